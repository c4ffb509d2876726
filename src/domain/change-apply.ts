/**
 * What applying a change request writes (docs/decisions/0062-change-requests.md):
 * each change decided by its route's decider against the catalog as it is,
 * in order, each later change seeing what the earlier ones decided; or why
 * the request is stale (a pinned resource moved or is gone, or a decider
 * refused a change the catalog no longer allows). Pure: the service appends
 * the plan in one atomic write (SQLite) or through ChangeRequestApplying
 * (EventStoreDB).
 */
import { AppError } from '../base/errors';
import { resourceKey, type ChangeRequestRecord } from '../../projections/change-control';
import { linksEntity, rulesLinking, type CatalogState } from '../../projections';
import { evolveContexts } from '../../projections/contexts';
import { evolvePrompts, findPrompt, initialPrompts } from '../../projections/prompts';
import type { ContextRecord, PromptRecord, RuleRecord } from '../../projections/records';
import { evolveRules } from '../../projections/rules';
import {
  PROTECTIONS_STREAM, SCHEMA_VERSION, TEST_CASES_STREAM, streams, type Change, type ChangeResult, type ContextEvent, type DomainEvent, type EntityLink,
  type PromptEvent, type ResourceRef, type RuleEvent, type StoredEvent,
} from '../events';
import type { TemplateLimits } from '../prompts/template';
import type { ExpectedRevision } from '../store/port';
import { decideCreateContext, decideDeleteContext, decideUpdateContext, parseContextCreate, parseContextPatch } from './contexts';
import { currentRevision } from './change-requests';
import {
  decideAddPromptVersion, decideCreatePrompt, decideDeletePrompt, decideMoveLabel, decideRemoveLabel, decideUpdatePrompt,
  parseLabelMove, parsePromptCreate, parsePromptPatch, parsePromptVersion,
} from './prompts';
import { describeResource } from './protection';
import { parseTestCaseBody } from './test-cases';
import {
  decideCreateRule, decideDeleteRule, decideUnlinkEntity, decideUpdateRule, parseRuleCreate, parseRulePatch, type RuleContext,
} from './rules';

export interface ApplyContext {
  readonly state: CatalogState;
  readonly maxRegexLength: number;
  readonly templateLimits: TemplateLimits;
  readonly keyHolder?: (key: string) => string | undefined;
}

/** One stream's planned events, in the order decided. */
export interface PlanAppend {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly events: DomainEvent[];
}

export type ApplyOutcome =
  | { readonly plan: readonly PlanAppend[]; readonly results: readonly ChangeResult[] }
  | { readonly stale: { readonly resource: ResourceRef; readonly reason: string } };

/** Why a change cannot apply over the catalog as it is, or undefined. */
function staleReason(state: CatalogState, change: Change): string | undefined {
  const now = currentRevision(state, change.resource);
  const what = describeResource(change.resource);
  if (change.op === 'create') return now === undefined ? undefined : `${what} was created since the request was drafted`;
  if (change.op === 'protect') return now === undefined ? `${what} is gone` : undefined;
  if (change.op === 'unprotect') return state.changeControl.protections.has(resourceKey(change.resource)) ? undefined : `${what} is no longer protected`;
  if (change.op === 'set-test-cases') {
    const base = change.base_revision === undefined ? undefined : BigInt(change.base_revision);
    return now === base ? undefined : `${what} moved from ${base === undefined ? 'none' : `revision ${base}`} to revision ${now} since the request was drafted`;
  }
  if (now === undefined) return `${what} was deleted since the request was drafted`;
  const base = BigInt(change.base_revision!);
  return now === base ? undefined : `${what} moved from revision ${base} to ${now} since the request was drafted`;
}

/** The plan of `record`'s changes over `context.state`, or the first change that makes it stale. */
export function planApply(record: ChangeRequestRecord, context: ApplyContext): ApplyOutcome {
  const { state } = context;
  for (const change of record.changes) {
    const reason = staleReason(state, change);
    if (reason !== undefined) return { stale: { resource: change.resource, reason } };
  }
  const work = new Working(state);
  const results: ChangeResult[] = [];
  for (const change of record.changes) {
    try {
      results.push(work.decide(change, record.id, context));
    } catch (error) {
      if (error instanceof AppError && error.status < 500) return { stale: { resource: change.resource, reason: `${describeResource(change.resource)}: ${error.message}` } };
      throw error;
    }
  }
  return { plan: work.plan(), results };
}

/** The catalog as the changes decided so far leave it: records the plan touched, over the state. */
class Working {
  private readonly rules = new Map<string, RuleRecord | null>();
  private readonly contexts = new Map<string, ContextRecord | null>();
  private readonly prompts = new Map<string, PromptRecord | null>();
  private readonly protections = new Map<string, boolean>();
  private readonly appends = new Map<string, PlanAppend>();

  constructor(private readonly state: CatalogState) {}

  rule(id: string): RuleRecord | undefined {
    return this.rules.has(id) ? this.rules.get(id) ?? undefined : this.state.rules.get(id);
  }
  context(id: string): ContextRecord | undefined {
    return this.contexts.has(id) ? this.contexts.get(id) ?? undefined : this.state.contexts.get(id);
  }
  prompt(id: string): PromptRecord | undefined {
    return this.prompts.has(id) ? this.prompts.get(id) ?? undefined : this.state.prompts.get(id);
  }

  plan(): PlanAppend[] {
    return [...this.appends.values()].filter((a) => a.events.length > 0);
  }

  private ruleContext(context: ApplyContext): RuleContext {
    return {
      maxRegexLength: context.maxRegexLength,
      entityExists: (link: EntityLink) => (link.entity_type === 'context' ? this.context(link.entity_id) : this.prompt(link.entity_id)) !== undefined,
      promptIdOf: (ref) => this.prompt(ref)?.id ?? findPrompt(this.state.prompts, ref)?.id,
      ...(context.keyHolder === undefined ? {} : { keyHolder: context.keyHolder }),
    };
  }

  /** Adds `events` to `stream`'s append and folds them into the working records; the stream's revision after them. */
  private add(stream: string, current: { readonly revision: bigint } | undefined, events: readonly DomainEvent[]): bigint | undefined {
    let append = this.appends.get(stream);
    if (append === undefined) {
      const expected: ExpectedRevision = stream === PROTECTIONS_STREAM ? this.state.changeControl.protectionsRevision ?? 'no_stream'
        : stream === TEST_CASES_STREAM ? this.state.changeControl.testCases?.revision ?? 'no_stream' : current?.revision ?? 'no_stream';
      append = { stream, expected, events: [] };
      this.appends.set(stream, append);
    }
    for (const event of events) {
      const revision = (append.expected === 'no_stream' ? -1n : (append.expected as bigint)) + BigInt(append.events.length) + 1n;
      append.events.push(event);
      this.fold(event, stream, revision);
    }
    const last = (append.expected === 'no_stream' ? -1n : (append.expected as bigint)) + BigInt(append.events.length);
    return last < 0n ? undefined : last;
  }

  private fold(event: DomainEvent, stream: string, revision: bigint): void {
    const stored = { ...event, stream, revision, position: this.state.position ?? 0n, metadata: { actor: '', at: '', request_id: '', schema: SCHEMA_VERSION } } as StoredEvent;
    const id = (event.data as { readonly id?: string }).id!;
    if (stream.startsWith('rule-')) {
      const one = new Map<string, RuleRecord>();
      const current = this.rule(id);
      if (current !== undefined) one.set(id, current);
      evolveRules(one, stored as StoredEvent<RuleEvent>);
      this.rules.set(id, one.get(id) ?? null);
    } else if (stream.startsWith('context-')) {
      const one = new Map<string, ContextRecord>();
      const current = this.context(id);
      if (current !== undefined) one.set(id, current);
      evolveContexts(one, stored as StoredEvent<ContextEvent>);
      this.contexts.set(id, one.get(id) ?? null);
    } else if (stream.startsWith('prompt-')) {
      const current = this.prompt(id);
      const one = initialPrompts(current === undefined ? [] : [[id, current]]);
      evolvePrompts(one, stored as StoredEvent<PromptEvent>);
      this.prompts.set(id, one.get(id) ?? null);
    }
  }

  /** Every rule that links `link` now: unlinked first, as the direct delete does. */
  private unlink(link: EntityLink, context: ApplyContext): void {
    const ids = new Set(rulesLinking(this.state.rules, link).map((r) => r.id));
    for (const [id, rule] of this.rules) if (rule !== null && linksEntity(rule, link)) ids.add(id);
    for (const id of ids) {
      const current = this.rule(id);
      if (current !== undefined && linksEntity(current, link)) this.add(streams.rule(id), current, decideUnlinkEntity(id, current, link, this.ruleContext(context)));
    }
  }

  decide(change: Change, requestId: string, context: ApplyContext): ChangeResult {
    const { resource, body } = change;
    const id = resource.id;
    const before = currentRevision(this.state, resource);
    const result = (revision: bigint | undefined): ChangeResult => ({
      op: change.op, resource,
      ...(before === undefined || change.op === 'create' ? {} : { before_revision: before.toString() }),
      ...(revision === undefined ? {} : { revision: revision.toString() }),
    });
    const limits = context.templateLimits;
    switch (change.op) {
      case 'protect':
      case 'unprotect': {
        const key = resourceKey(resource);
        const isProtected = this.protections.get(key) ?? this.state.changeControl.protections.has(key);
        const wanted = change.op === 'protect';
        if (isProtected !== wanted) {
          this.protections.set(key, wanted);
          this.add(PROTECTIONS_STREAM, undefined, [wanted
            ? { type: 'ResourceProtected', data: { resource } }
            : { type: 'ResourceUnprotected', data: { resource, change_request: requestId } }]);
        }
        return result(undefined);
      }
      case 'set-test-cases': {
        const { text, cases } = parseTestCaseBody(body);
        return result(this.add(TEST_CASES_STREAM, undefined, [{ type: 'TestCasesSet', data: { text, count: cases.length } }]));
      }
      default:
        break;
    }
    if (resource.type === 'rule') {
      const current = this.rule(id);
      const ctx = this.ruleContext(context);
      const events = change.op === 'create' ? decideCreateRule(id, parseRuleCreate(body), ctx)
        : change.op === 'update' ? decideUpdateRule(id, current, parseRulePatch(body), undefined, ctx)
          : decideDeleteRule(id, current, undefined);
      return result(this.add(streams.rule(id), current, events));
    }
    if (resource.type === 'context') {
      const current = this.context(id);
      if (change.op === 'delete') this.unlink({ entity_type: 'context', entity_id: id }, context);
      const events = change.op === 'create' ? decideCreateContext(id, parseContextCreate(body))
        : change.op === 'update' ? decideUpdateContext(id, current, parseContextPatch(body), undefined)
          : decideDeleteContext(id, current, undefined);
      return result(this.add(streams.context(id), current, events));
    }
    const current = this.prompt(id);
    let events: PromptEvent[];
    switch (change.op) {
      case 'create': {
        const input = parsePromptCreate(body, limits);
        events = decideCreatePrompt(id, input, this.state.prompts.idsByName.get(input.name));
        break;
      }
      case 'update': {
        const patch = parsePromptPatch(body);
        events = decideUpdatePrompt(id, current, patch, undefined, patch.name === undefined ? undefined : this.state.prompts.idsByName.get(patch.name));
        break;
      }
      case 'delete':
        this.unlink({ entity_type: 'prompt', entity_id: id }, context);
        events = decideDeletePrompt(id, current, undefined);
        break;
      case 'add-version':
        events = decideAddPromptVersion(id, current, parsePromptVersion(body, limits), undefined);
        break;
      case 'move-label':
        events = decideMoveLabel(id, current, resource.label!, parseLabelMove(body), undefined);
        break;
      default:
        events = decideRemoveLabel(id, current, resource.label!, undefined);
        break;
    }
    return result(this.add(streams.prompt(id), current, events));
  }
}
