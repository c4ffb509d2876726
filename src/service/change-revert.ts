/**
 * Reverting an applied change request is itself a change request: a draft
 * whose changes restore what each applied change replaced, read from the
 * resource's stream at its revision before the apply, and pinned to the
 * revision the apply left (docs/change-requests.md#revert).
 */
import { conflict } from '../base/errors';
import type { ChangeRequestRecord } from '../../projections/change-control';
import { evolveContexts } from '../../projections/contexts';
import { evolvePrompts, initialPrompts } from '../../projections/prompts';
import type { ContextRecord, PromptRecord, RuleRecord } from '../../projections/records';
import { evolveRules } from '../../projections/rules';
import {
  decodeEvent, streams, TEST_CASES_STREAM, type Change, type ChangeResult, type ContextEvent, type PromptEvent, type RuleEvent, type StoredEvent, type TestCaseEvent,
} from '../events';
import type { EventStore, Json } from '../store/port';

type Body = { [key: string]: Json };

/** The record `ref` was at `revision`, folded from its stream (also a change request's `before`: change-before.ts). */
export async function recordAt(store: EventStore, type: 'rule' | 'context' | 'prompt', id: string, revision: bigint): Promise<RuleRecord | ContextRecord | PromptRecord | undefined> {
  const events = (await store.readStream(streams[type](id))).filter((e) => e.revision <= revision);
  const rules = new Map<string, RuleRecord>();
  const contexts = new Map<string, ContextRecord>();
  const prompts = initialPrompts();
  for (const recorded of events) {
    const event = decodeEvent(recorded);
    if (event === undefined) continue;
    if (type === 'rule') evolveRules(rules, event as StoredEvent<RuleEvent>);
    else if (type === 'context') evolveContexts(contexts, event as StoredEvent<ContextEvent>);
    else evolvePrompts(prompts, event as StoredEvent<PromptEvent>);
  }
  return type === 'rule' ? rules.get(id) : type === 'context' ? contexts.get(id) : prompts.get(id);
}

/** The test cases' text at `revision` of their stream: none (empty) when the apply set the first. */
async function testCasesAt(store: EventStore, revision: string | undefined): Promise<string> {
  if (revision === undefined) return '';
  const events = (await store.readStream(TEST_CASES_STREAM)).filter((e) => e.revision <= BigInt(revision));
  const last = events.map(decodeEvent).filter((e): e is StoredEvent<TestCaseEvent> => e?.type === 'TestCasesSet').at(-1);
  return last?.data.text ?? '';
}

/** The members `body` set, as `before` had them (a rule without splits: `splits: []`). */
function restored(before: object, body: { readonly [key: string]: Json } | undefined): Body {
  const out: Body = {};
  for (const member of Object.keys(body ?? {})) {
    const value = (before as { [key: string]: unknown })[member];
    out[member] = (value === undefined && member === 'splits' ? [] : value) as Json;
  }
  return out;
}

/** The changes of a draft that undoes `record`'s apply, newest first. */
export async function revertChanges(store: EventStore, record: ChangeRequestRecord): Promise<Change[]> {
  if (record.state !== 'applied' || record.results === undefined) throw conflict(`change request ${record.id} is ${record.state}: only an applied one is reverted`);
  // Every change on one stream pins to the revision the whole apply left it at.
  const lastRevision = new Map<string, string>();
  for (const result of record.results) if (result.revision !== undefined) lastRevision.set(result.resource.id, result.revision);
  const changes: Change[] = [];
  for (const [i, result] of [...record.results.entries()].reverse()) {
    const change = record.changes[i]!;
    const inverse = await inverseOf(store, result, change, lastRevision.get(result.resource.id));
    if (inverse !== undefined) changes.push(inverse);
  }
  if (changes.length === 0) throw conflict(`change request ${record.id} holds nothing a revert can undo (a new prompt version stays in its history)`);
  return changes;
}

async function inverseOf(store: EventStore, result: ChangeResult, change: Change, pinned: string | undefined): Promise<Change | undefined> {
  const { resource } = result;
  const base = pinned === undefined ? {} : { base_revision: pinned };
  switch (result.op) {
    case 'protect': return { op: 'unprotect', resource };
    case 'unprotect': return { op: 'protect', resource };
    case 'create': return { op: 'delete', resource, ...base };
    case 'delete': throw conflict(`a revert cannot bring back ${resource.type} ${resource.id}, which the request deleted: open a request that creates it again`);
    // A version is never removed: the labels the request moved are moved back by their own changes.
    case 'add-version': return undefined;
    case 'set-test-cases': return { op: 'set-test-cases', resource, ...base, body: { cases: await testCasesAt(store, result.before_revision) } };
    default: break;
  }
  const type = resource.type === 'prompt-label' ? 'prompt' : resource.type as 'rule' | 'context' | 'prompt';
  const before = await recordAt(store, type, resource.id, BigInt(result.before_revision!));
  if (before === undefined) return undefined;
  if (result.op === 'update') return { op: 'update', resource, ...base, body: restored(before, change.body) };
  const previous = (before as PromptRecord).labels[resource.label!];
  return previous === undefined ? { op: 'remove-label', resource, ...base } : { op: 'move-label', resource, ...base, body: { version: previous } };
}
