/**
 * The catalog a list of proposed changes would produce, laid over the live
 * one without copying it (as dry-run.ts lays its drafts): the records a
 * change touches are kept in small maps and every other read falls through
 * to the live state. Each change is decided by the same decider its direct
 * route uses (the same 400s and 409s, prefixed with `changes[<index>]`),
 * against the catalog as the changes before it left it, and folded by the
 * same fold, so a proposed record is the record the write would store.
 *
 * A change is ADR 0062's `{op, resource: {type, id}, base_revision?, body?}`.
 * What is laid over (what can change an evaluate answer's rule ids,
 * entities and variants):
 * - rule create, update, delete;
 * - context and prompt create, update (status: an INACTIVE one drops out of
 *   answers), delete (its links drop out; every rule linking it is unlinked
 *   as the delete route does, which also takes its split variants away).
 * Accepted but not laid over (`not_replayed`, with why): add-version,
 * move-label and remove-label (they change only the rendered entity_data,
 * which impact does not compare), protect, unprotect and set-test-cases (no
 * answer changes).
 */
import type { CatalogState, ContextRecord, PromptRecord, RuleRecord } from '../../projections';
import { linksEntity, rulesLinking } from '../../projections';
import { evolveContexts } from '../../projections/contexts';
import { findPrompt, initialPrompts, evolvePrompts } from '../../projections/prompts';
import { evolveRules } from '../../projections/rules';
import { AppError, badRequest } from '../base/errors';
import { decideCreateContext, decideDeleteContext, decideUpdateContext, parseContextCreate, parseContextPatch } from '../domain/contexts';
import { isPlainObject } from '../domain/input';
import { decideCreatePrompt, decideDeletePrompt, decideUpdatePrompt, parsePromptCreate, parsePromptPatch } from '../domain/prompts';
import {
  decideCreateRule, decideDeleteRule, decideUnlinkEntity, decideUpdateRule, parseRuleCreate, parseRulePatch, type RuleContext,
} from '../domain/rules';
import type { Engine, Fields } from '../engine';
import { CHANGE_OPS, RESOURCE_TYPES, type ChangeOp, type DomainEvent, type EntityLink, type ResourceType, type StoredEvent } from '../events';
import type { TemplateLimits } from '../prompts/template';
import type { EvaluationReads } from '../service/evaluate';
import { checkedRule, readInputs, ruleMatches } from './rule-check';

// One vocabulary with change requests (src/events): a request's changes are what impact reads.
export { CHANGE_OPS, type ChangeOp } from '../events';

/** A proposed change (ADR 0062). */
export interface ProposedChange {
  readonly op: ChangeOp;
  readonly resource: { readonly type: ResourceType; readonly id?: string; readonly label?: string };
  /** The resource's revision the change was drafted against (decimal); absent for a create. */
  readonly base_revision?: string;
  /** What the matching direct route takes. */
  readonly body?: unknown;
}

/** A change that was read but changes nothing impact compares, and why. */
export interface NotReplayed {
  readonly index: number;
  readonly op: ChangeOp;
  readonly resource: ProposedChange['resource'];
  readonly why: string;
}

export interface ProposedState {
  /** The proposed catalog, read by id, as evaluate reads it. */
  readonly reads: EvaluationReads;
  /** The live engine's matches minus the touched rules, plus the touched rules that match as proposed. */
  readonly engine: Pick<Engine, 'evaluate'>;
  /** Rules whose record the changes replace or remove (unlinked ones included). */
  readonly touchedRules: ReadonlySet<string>;
  /** `context:<id>`, `prompt:<id>` of the contexts and prompts the changes create, replace or remove. */
  readonly touchedEntities: ReadonlySet<string>;
  /** The live record of each touched rule (undefined: created by the changes) and its proposed one (undefined: deleted). */
  readonly ruleVersions: ReadonlyMap<string, { readonly live: RuleRecord | undefined; readonly proposed: RuleRecord | undefined }>;
  readonly notReplayed: readonly NotReplayed[];
}

/** Changes one impact report may carry. */
export const MAX_CHANGES = 1000;

const NOT_REPLAYED: Partial<Record<ChangeOp, string>> = {
  'add-version': 'a prompt version changes only the rendered entity_data, which impact does not compare',
  'move-label': 'a label move changes only the rendered entity_data, which impact does not compare',
  'remove-label': 'a label removal changes only the rendered entity_data, which impact does not compare',
  protect: 'protection changes who may write, not what evaluate answers',
  unprotect: 'protection changes who may write, not what evaluate answers',
  'set-test-cases': 'test cases change what a request checks, not what evaluate answers',
};

/** Reads `changes` (400 naming `changes[i]` and the member) without deciding them. */
export function readChanges(value: unknown): ProposedChange[] {
  if (!Array.isArray(value)) throw badRequest('changes must be an array of changes ({op, resource: {type, id}, base_revision?, body?})');
  if (value.length > MAX_CHANGES) throw badRequest(`changes has ${value.length} items; the limit is ${MAX_CHANGES}`);
  return value.map((item, index) => {
    const path = `changes[${index}]`;
    if (!isPlainObject(item)) throw badRequest(`${path} must be a JSON object ({op, resource, base_revision?, body?})`);
    const unknown = Object.keys(item).find((key) => !['op', 'resource', 'base_revision', 'body'].includes(key));
    if (unknown !== undefined) throw badRequest(`${path} has an unknown member ${JSON.stringify(unknown.slice(0, 64))}`);
    if (!(CHANGE_OPS as readonly unknown[]).includes(item.op)) throw badRequest(`${path}.op must be one of ${CHANGE_OPS.join(', ')}`);
    const resource = item.resource;
    if (!isPlainObject(resource)) throw badRequest(`${path}.resource must be an object {type, id}`);
    if (!(RESOURCE_TYPES as readonly unknown[]).includes(resource.type)) throw badRequest(`${path}.resource.type must be one of ${RESOURCE_TYPES.join(', ')}`);
    if (resource.id !== undefined && (typeof resource.id !== 'string' || resource.id === '')) throw badRequest(`${path}.resource.id must be a non-empty string`);
    if (resource.id === undefined && item.op !== 'create') throw badRequest(`${path}.resource.id is required for ${String(item.op)}`);
    const base = item.base_revision;
    if (base !== undefined && (typeof base !== 'string' || !/^(0|[1-9][0-9]{0,18})$/.test(base))) {
      throw badRequest(`${path}.base_revision must be a revision (a whole number as a decimal string)`);
    }
    return item as unknown as ProposedChange;
  });
}

/** What deciding the changes needs besides the live state. */
export interface ProposeOptions {
  readonly maxRegexLength: number;
  readonly templateLimits: TemplateLimits;
  /** The time the proposed records say they were written (ISO 8601). */
  readonly at: string;
}

/**
 * Decides `changes` in order over `state` and lays the results over it; see the header. Throws the decider's 400 or
 * 409 prefixed with `changes[<index>]`, and a 409 when a `base_revision` is not the live resource's revision (the
 * request would apply as stale).
 */
export function proposedState(
  state: CatalogState, live: Pick<Engine, 'evaluate'>, changes: readonly ProposedChange[], options: ProposeOptions,
): ProposedState {
  // Each map holds what the changes touched: a record, or null for one they removed.
  const rules = new Map<string, RuleRecord | null>();
  const contexts = new Map<string, ContextRecord | null>();
  const prompts = new Map<string, PromptRecord | null>();
  const over = <R>(map: ReadonlyMap<string, R | null>, base: Pick<ReadonlyMap<string, R>, 'get'>) => (id: string): R | undefined => {
    const laid = map.get(id);
    return laid === null ? undefined : laid ?? base.get(id);
  };
  const reads: EvaluationReads = {
    rules: { get: over(rules, state.rules) },
    contexts: { get: over(contexts, state.contexts) },
    prompts: { get: over(prompts, state.prompts) },
  };
  const promptIdOf = (ref: string): string | undefined => {
    const laid = reads.prompts.get(ref);
    if (laid !== undefined) return laid.id;
    for (const record of prompts.values()) if (record !== null && record.name === ref) return record.id;
    const live = findPrompt(state.prompts, ref);
    return live !== undefined && prompts.get(live.id) !== null && reads.prompts.get(live.id)?.name === live.name ? live.id : undefined;
  };
  const context: RuleContext = {
    maxRegexLength: options.maxRegexLength,
    entityExists: (link: EntityLink) => (link.entity_type === 'context' ? reads.contexts.get(link.entity_id) : reads.prompts.get(link.entity_id)) !== undefined,
    promptIdOf,
  };
  const stored = storedEvents(options.at);
  const notReplayed: NotReplayed[] = [];

  const putRule = (id: string, events: readonly DomainEvent[]) => {
    rules.set(id, foldOne(id, reads.rules.get(id), events, stored, (map, event) => evolveRules(map, event as never)) ?? null);
  };
  /** Unlinks a context or prompt the changes delete from every rule linking it, as the delete route does first. */
  const unlink = (link: EntityLink) => {
    const ids = new Set(rulesLinking(state.rules, link).map((r) => r.id));
    for (const [id, record] of rules) if (record !== null && linksEntity(record, link)) ids.add(id);
    for (const id of ids) {
      const current = reads.rules.get(id);
      if (current !== undefined && linksEntity(current, link)) putRule(id, decideUnlinkEntity(id, current, link, context));
    }
  };

  changes.forEach((change, index) => {
    const path = `changes[${index}]`;
    const { op, resource } = change;
    const skipped = NOT_REPLAYED[op];
    if (skipped !== undefined || resource.type === 'prompt-label') {
      notReplayed.push({ index, op, resource, why: skipped ?? 'a prompt label changes only the rendered entity_data, which impact does not compare' });
      return;
    }
    const id = resource.id ?? `proposed-${index}`;
    withPath(path, () => {
      checkBase(change, state, path);
      switch (resource.type) {
        case 'rule': {
          const current = reads.rules.get(id);
          if (op === 'create') {
            if (current !== undefined) throw badRequest(`resource.id ${id} names a rule that exists: a create needs a new id`);
            putRule(id, decideCreateRule(id, parseRuleCreate(change.body), context));
          } else if (op === 'update') {
            putRule(id, decideUpdateRule(id, current, parseRulePatch(change.body), undefined, context));
          } else {
            putRule(id, decideDeleteRule(id, current, undefined));
          }
          return;
        }
        case 'context': {
          const current = reads.contexts.get(id);
          let events: DomainEvent[];
          if (op === 'create') {
            if (current !== undefined) throw badRequest(`resource.id ${id} names a context that exists: a create needs a new id`);
            events = decideCreateContext(id, parseContextCreate(change.body));
          } else if (op === 'update') {
            events = decideUpdateContext(id, current, parseContextPatch(change.body), undefined);
          } else {
            events = decideDeleteContext(id, current, undefined);
            unlink({ entity_type: 'context', entity_id: id });
          }
          contexts.set(id, foldOne(id, current, events, stored, (map, event) => evolveContexts(map, event as never)) ?? null);
          return;
        }
        case 'prompt': {
          const current = reads.prompts.get(id);
          let events: DomainEvent[];
          if (op === 'create') {
            if (current !== undefined) throw badRequest(`resource.id ${id} names a prompt that exists: a create needs a new id`);
            const input = parsePromptCreate(change.body, options.templateLimits);
            events = decideCreatePrompt(id, input, promptIdOf(input.name));
          } else if (op === 'update') {
            const patch = parsePromptPatch(change.body);
            events = decideUpdatePrompt(id, current, patch, undefined, patch.name === undefined ? undefined : promptIdOf(patch.name));
          } else {
            events = decideDeletePrompt(id, current, undefined);
            unlink({ entity_type: 'prompt', entity_id: id });
          }
          const folded = foldOne(id, current, events, stored, (map, event) => {
            const prompts = initialPrompts([...map]);
            evolvePrompts(prompts, event as never);
            map.clear();
            for (const [key, value] of prompts) map.set(key, value);
          });
          prompts.set(id, folded ?? null);
          return;
        }
      }
    });
  });

  const touchedRules = new Set(rules.keys());
  const ruleVersions = new Map([...rules].map(([id, record]) => [id, { live: state.rules.get(id), proposed: record ?? undefined }]));
  const proposedRules = [...rules.values()].filter((r): r is RuleRecord => r !== null).map((r) => checkedRule(r));
  const engine = {
    evaluate(fields: Fields): string[] {
      const ids = live.evaluate(fields).filter((id) => !touchedRules.has(id));
      const inputs = readInputs(fields);
      for (const checked of proposedRules) if (ruleMatches(checked, inputs)) ids.push(checked.rule.id);
      return ids.sort();
    },
  };
  const touchedEntities = new Set([...[...contexts.keys()].map((id) => `context:${id}`), ...[...prompts.keys()].map((id) => `prompt:${id}`)]);
  return { reads, engine, touchedRules, touchedEntities, ruleVersions, notReplayed };
}

/** A 409 when the live resource is not at the change's base revision: applied, the request would be stale. */
function checkBase(change: ProposedChange, state: CatalogState, path: string): void {
  if (change.base_revision === undefined || change.resource.id === undefined) return;
  const { type, id } = change.resource;
  const live = type === 'rule' ? state.rules.get(id) : type === 'context' ? state.contexts.get(id) : state.prompts.get(id);
  const base = BigInt(change.base_revision);
  if (live === undefined) throw new AppError('conflict', `${type} ${id} no longer exists (${path} was drafted against revision ${base})`);
  if (live.revision !== base) throw new AppError('conflict', `${type} ${id} is at revision ${live.revision}, not ${base} as ${path} was drafted against`);
}

/** The record `events` leave of `current` (undefined: none yet), folded by the resource's own fold on a one-entry map. */
function foldOne<R extends { readonly revision: bigint }>(
  id: string, current: R | undefined, events: readonly DomainEvent[], stored: Stored, fold: (map: Map<string, R>, event: StoredEvent) => void,
): R | undefined {
  const map = new Map<string, R>(current === undefined ? [] : [[id, current]]);
  let revision = current?.revision ?? -1n;
  for (const event of events) fold(map, stored(event, (revision += 1n)));
  return map.get(id);
}

type Stored = (event: DomainEvent, revision: bigint) => StoredEvent;

/** Proposed events as the log would hold them: by `change-request`, at `at`, with no position yet (0). */
function storedEvents(at: string): Stored {
  return (event, revision) => ({
    ...event,
    stream: 'proposed',
    revision,
    position: 0n,
    metadata: { actor: 'change-request', at, request_id: 'impact', schema: 1 },
  }) as StoredEvent;
}

/** Runs a decision, naming the change in its 400 or 409: `changes[1]: condition_groups[0]...`. */
function withPath(path: string, decide: () => void): void {
  try {
    decide();
  } catch (error) {
    if (!(error instanceof AppError) || (error.code !== 'bad_request' && error.code !== 'conflict' && error.code !== 'not_found')) throw error;
    if (error.message.startsWith(path)) throw error;
    const code = error.code === 'not_found' ? 'bad_request' : error.code;
    throw new AppError(code, `${path}: ${error.message.startsWith('body ') ? error.message.slice('body '.length) : error.message}`);
  }
}
