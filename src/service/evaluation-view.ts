/**
 * What the change stream shows (docs/change-stream.md#what-it-shows): the
 * part of the read model that decides evaluate answers, and nothing more.
 * That is the ACTIVE rules, and the ACTIVE contexts and prompts that at least
 * one of them links: exactly what a caller with the `evaluate` scope can see
 * through evaluate with include_entity_data. An inactive rule with a `key` (a
 * flag, ADR 0057) travels as a stub (ruleWire: its id, key, status, revision,
 * position and the entity types it links), so a follower answers DISABLED as
 * OFREP does (ADR 0061); the engine drops a rule that is not ACTIVE. Other
 * inactive rules, unlinked entities, secrets and API keys never leave.
 *
 * Both ends live here, so they cannot drift: the server side keeps the view
 * and turns each applied event into a change (the records that entered or
 * changed, the ids that left); the client side folds a snapshot and changes
 * into the state `evaluate` (evaluate.ts) answers from. Pure: no I/O.
 */
import type { ContextRecord, PromptRecord, PromptVersion, RuleRecord } from '../../projections';
import { addVersions, dropPrompt, initialPrompts, putPrompt, recompiledVersion } from '../../projections/prompts';
import type { Limits } from '../base/limits';
import type { RecordedEvent } from '../store/port';
import type { EvaluationState } from './evaluate';

/** A record on the wire: bigints as decimal strings, prompt versions without their compiled template. */
export type WireRecord = { readonly id: string; readonly [member: string]: unknown };

export interface ViewRecords {
  readonly rules?: readonly WireRecord[];
  readonly contexts?: readonly WireRecord[];
  readonly prompts?: readonly WireRecord[];
}

export interface ViewRemovals {
  readonly rules?: readonly string[];
  readonly contexts?: readonly string[];
  readonly prompts?: readonly string[];
}

/** The `snapshot` event's data: the whole view at `position`, and the limits evaluate applies. */
export interface StreamSnapshot {
  readonly position: string | null;
  readonly limits: Limits;
  readonly rules: readonly WireRecord[];
  readonly contexts: readonly WireRecord[];
  readonly prompts: readonly WireRecord[];
}

/**
 * An entity the subscriber holds, changed: its id and the members whose
 * values changed, a prompt's new versions as `versions_added` (never the
 * versions it had). Applied over the held record.
 */
export type WirePatch = { readonly id: string; readonly versions_added?: readonly WireRecord[]; readonly [member: string]: unknown };

export interface ViewPatches {
  readonly contexts?: readonly WirePatch[];
  readonly prompts?: readonly WirePatch[];
}

/**
 * The `change` event's data: one applied event; `upsert`, `patch` and
 * `remove` are absent when it changed nothing visible. `patch` only in the
 * `patch` format; in the `records` format the same entities are upserted whole.
 */
export interface StreamChange {
  readonly position: string;
  readonly upsert?: ViewRecords;
  readonly patch?: ViewPatches;
  readonly remove?: ViewRemovals;
}

/**
 * How a subscriber takes changes (docs/decisions/0049-stream-change-patches.md):
 * `records`, every changed record whole (a prompt with all its versions: the
 * first format, what clients that do not ask get), or `patch`, an entity it
 * holds as a patch of what changed.
 */
export type ChangeFormat = 'records' | 'patch';

/** One applied event as a change, in both formats; the `records` one is built only when asked, and only differs when the change has patches. */
export interface ViewChange {
  readonly patched: StreamChange;
  /** Undefined when the change has no patch: then both formats are `patched`. */
  readonly whole: (() => StreamChange) | undefined;
}

type EntityKind = 'contexts' | 'prompts';
type Visible = RuleRecord | ContextRecord | PromptRecord;
type ViewState = Pick<EvaluationState, 'rules' | 'contexts' | 'prompts'>;

/** The server's side: the records subscribers hold, by reference, and how many active rules link each entity. */
export interface EvaluationView {
  /**
   * The `snapshot` event's data (a StreamSnapshot) as JSON text, in pieces,
   * a record at a time: at a few hundred thousand rules the whole text passes the length
   * a string may have (the change feed joins the pieces into a Buffer, in
   * slices). The records are listed at the call: changes applied while the
   * pieces are taken do not show.
   */
  snapshotJson(position: bigint | undefined, limits: Limits): Iterable<string>;
  /** Brings the view up to `state` after `event` was folded into it; the change subscribers must apply. */
  apply(state: ViewState, event: RecordedEvent): ViewChange;
}

const KIND_OF_LINK = { context: 'contexts', prompt: 'prompts' } as const;

export function createEvaluationView(state: ViewState): EvaluationView {
  const rules = new Map<string, RuleRecord>();
  const entities = { contexts: new Map<string, ContextRecord>(), prompts: new Map<string, PromptRecord>() };
  const linkCounts = { contexts: new Map<string, number>(), prompts: new Map<string, number>() };

  function link(rule: RuleRecord | undefined, by: 1 | -1, touched: Set<string>): void {
    for (const { entity_type: type, entity_id: id } of rule?.entities ?? []) {
      if (type !== 'context' && type !== 'prompt') continue;
      const kind = KIND_OF_LINK[type];
      const count = (linkCounts[kind].get(id) ?? 0) + by;
      if (count === 0) linkCounts[kind].delete(id);
      else linkCounts[kind].set(id, count);
      touched.add(`${kind}:${id}`);
    }
  }
  function visibleEntity(kind: EntityKind, id: string): ContextRecord | PromptRecord | undefined {
    const record = state[kind].get(id);
    return record !== undefined && record.status === 'ACTIVE' && linkCounts[kind].has(id) ? record : undefined;
  }

  // The view at the moment it is created.
  const initial = new Set<string>();
  for (const rule of state.rules.values()) {
    if (!isVisibleRule(rule)) continue;
    rules.set(rule.id, rule);
    link(activeOnly(rule), 1, initial);
  }
  for (const key of initial) {
    const [kind, id] = splitKey(key);
    const record = visibleEntity(kind, id);
    if (record !== undefined) (entities[kind] as Map<string, Visible>).set(id, record);
  }

  return {
    snapshotJson(position, limits) {
      const head: Omit<StreamSnapshot, 'rules' | 'contexts' | 'prompts'> = { position: position?.toString() ?? null, limits };
      const members: [string, Visible[]][] = [['rules', [...rules.values()]], ['contexts', [...entities.contexts.values()]], ['prompts', [...entities.prompts.values()]]];
      return (function* () {
        yield JSON.stringify(head).slice(0, -1);
        for (const [member, records] of members) {
          yield `,"${member}":[`;
          for (let i = 0; i < records.length; i++) yield (i === 0 ? '' : ',') + JSON.stringify(member === 'rules' ? ruleWire(records[i] as RuleRecord) : toWire(records[i]!));
          yield ']';
        }
        yield '}';
      })();
    },
    apply(current, event) {
      const upsert = { rules: [] as WireRecord[], contexts: [] as WireRecord[], prompts: [] as WireRecord[] };
      const patch = { contexts: [] as WirePatch[], prompts: [] as WirePatch[] };
      /** The records the patches stand for, for the `records` format. */
      const patchedRecords = { contexts: [] as Visible[], prompts: [] as Visible[] };
      const remove = { rules: [] as string[], contexts: [] as string[], prompts: [] as string[] };
      const touched = new Set<string>();
      const id = typeof event.data.id === 'string' ? event.data.id : undefined;
      if (id !== undefined && event.type.startsWith('Rule')) {
        const before = rules.get(id);
        const found = current.rules.get(id);
        const after = found !== undefined && isVisibleRule(found) ? found : undefined;
        if (before !== after) {
          link(activeOnly(before), -1, touched);
          link(activeOnly(after), 1, touched);
          if (after !== undefined) {
            rules.set(id, after);
            upsert.rules.push(ruleWire(after));
          } else if (before !== undefined) {
            rules.delete(id);
            remove.rules.push(id);
          }
        }
      } else if (id !== undefined && event.type.startsWith('Context')) {
        touched.add(`contexts:${id}`);
      } else if (id !== undefined && event.type.startsWith('Prompt')) {
        touched.add(`prompts:${id}`);
      }
      for (const key of touched) {
        const [kind, entityId] = splitKey(key);
        const held = entities[kind] as Map<string, Visible>;
        const before = held.get(entityId);
        const after = visibleEntity(kind, entityId);
        if (before === after) continue;
        if (after === undefined) {
          held.delete(entityId);
          remove[kind].push(entityId);
          continue;
        }
        held.set(entityId, after);
        const patched = before === undefined ? undefined : patchOf(before, after);
        if (patched === undefined) {
          upsert[kind].push(toWire(after));
        } else {
          patch[kind].push(patched);
          patchedRecords[kind].push(after);
        }
      }
      const position = event.position.toString();
      const patched = { position, ...nonEmpty('upsert', upsert), ...nonEmpty('patch', patch), ...nonEmpty('remove', remove) };
      if (patch.contexts.length === 0 && patch.prompts.length === 0) return { patched, whole: undefined };
      const whole = () => {
        const records = {
          rules: upsert.rules,
          contexts: [...upsert.contexts, ...patchedRecords.contexts.map(toWire)],
          prompts: [...upsert.prompts, ...patchedRecords.prompts.map(toWire)],
        };
        return { position, ...nonEmpty('upsert', records), ...nonEmpty('remove', remove) };
      };
      return { patched, whole };
    },
  };
}

/** Shown: an ACTIVE rule, or an inactive one with a key (as a stub). */
function isVisibleRule(rule: RuleRecord): boolean {
  return rule.status === 'ACTIVE' || rule.key !== undefined;
}

/** The rule whose links count: a stub links nothing the view shows. */
function activeOnly(rule: RuleRecord | undefined): RuleRecord | undefined {
  return rule?.status === 'ACTIVE' ? rule : undefined;
}

/**
 * A rule on the wire: an ACTIVE rule whole; an inactive keyed one as a stub,
 * enough to name its flags (the types it links, each as a link without an id,
 * so its object flags are DISABLED rather than unknown) and say DISABLED, and
 * nothing evaluate or the engine could use.
 */
function ruleWire(rule: RuleRecord): WireRecord {
  if (rule.status === 'ACTIVE') return toWire(rule);
  const types = [...new Set(rule.entities.map((link) => link.entity_type))];
  return {
    id: rule.id, key: rule.key, status: rule.status, revision: rule.revision.toString(), position: rule.position.toString(),
    entities: types.map((entity_type) => ({ entity_type })),
  };
}

function splitKey(key: string): [EntityKind, string] {
  const colon = key.indexOf(':');
  return [key.slice(0, colon) as EntityKind, key.slice(colon + 1)];
}

function nonEmpty<K extends string, V extends Record<string, readonly unknown[]>>(name: K, lists: V): { [P in K]?: Partial<V> } {
  const kept: Partial<V> = {};
  for (const [member, list] of Object.entries(lists) as [keyof V, V[keyof V]][]) if (list.length > 0) kept[member] = list;
  return (Object.keys(kept).length > 0 ? { [name]: kept } : {}) as { [P in K]?: Partial<V> };
}

/** A record as JSON: bigints as strings; a prompt's versions without their compiled template (the client compiles its own). */
function toWire(record: Visible): WireRecord {
  const plain: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(record)) plain[member] = wireValue(member, value);
  return plain as WireRecord;
}

function wireValue(member: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : member === 'versions' ? wireVersions(value as PromptVersion[]) : value;
}

function wireVersions(versions: readonly PromptVersion[]): WireRecord[] {
  return versions.map(({ compiled: _compiled, messages, ...version }) =>
    (messages === undefined ? version : { ...version, messages: messages.map(({ role, content }) => ({ role, content })) }) as unknown as WireRecord);
}

/**
 * `after` as a patch of `before` (the same entity, held by subscribers): the
 * members whose values are not the same (the folds replace what changes and
 * keep the rest by reference), and a prompt's versions that `before` did not
 * have. Undefined when a patch cannot say it: a member gone, or a version
 * `before` had missing from `after`; then the record goes whole.
 */
function patchOf(before: Visible, after: Visible): WirePatch | undefined {
  const patch: Record<string, unknown> = { id: after.id };
  for (const member of Object.keys(before)) if (!(member in after)) return undefined;
  for (const [member, value] of Object.entries(after)) {
    const previous = (before as unknown as Record<string, unknown>)[member];
    if (value === previous) continue;
    if (member !== 'versions') {
      patch[member] = wireValue(member, value);
      continue;
    }
    const had = new Set(previous as readonly PromptVersion[]);
    const added = (value as readonly PromptVersion[]).filter((version) => !had.has(version));
    if ((value as readonly PromptVersion[]).length !== had.size + added.length) return undefined;
    patch.versions_added = wireVersions(added);
  }
  return patch as WirePatch;
}

/** The client's side: the state evaluate answers from, rebuilt from a snapshot and kept by changes. */
export function restoreEvaluationState(snapshot: StreamSnapshot): EvaluationState {
  const state: EvaluationState = { rules: new Map(), contexts: new Map(), prompts: initialPrompts() };
  applyRecords(state, snapshot);
  return state;
}

/** A patch of an entity the state does not hold: the stream and the state disagree (a client starts over from a snapshot). */
export class StreamFoldError extends Error {
  override readonly name = 'StreamFoldError';
}

/**
 * Folds a change (either format) into a state restored by
 * `restoreEvaluationState`; returns the ids of the rules it touched. Throws
 * a StreamFoldError, with the state untouched, when it patches an entity the
 * state does not hold.
 */
export function applyStreamChange(state: EvaluationState, change: StreamChange): string[] {
  for (const patch of change.patch?.contexts ?? []) held(state.contexts, 'context', patch.id);
  for (const patch of change.patch?.prompts ?? []) held(state.prompts, 'prompt', patch.id);
  const removed = change.remove ?? {};
  for (const id of removed.rules ?? []) state.rules.delete(id);
  for (const id of removed.contexts ?? []) state.contexts.delete(id);
  for (const id of removed.prompts ?? []) dropPrompt(state.prompts, id);
  applyRecords(state, change.upsert ?? {});
  applyPatches(state, change.patch ?? {});
  return changedRuleIds(change);
}

/** The ids of the rules a change removes or upserts: what applyStreamChange will touch, known before it does. */
export function changedRuleIds(change: StreamChange): string[] {
  return [...(change.remove?.rules ?? []), ...(change.upsert?.rules ?? []).map((rule) => rule.id)];
}

function applyRecords(state: EvaluationState, records: ViewRecords): void {
  for (const rule of records.rules ?? []) state.rules.set(rule.id, rule as unknown as RuleRecord);
  for (const context of records.contexts ?? []) state.contexts.set(context.id, context as unknown as ContextRecord);
  for (const prompt of records.prompts ?? []) {
    const versions = (prompt.versions as Parameters<typeof recompiledVersion>[0][]).map(recompiledVersion);
    putPrompt(state.prompts, { ...prompt, versions } as unknown as PromptRecord);
  }
}

function applyPatches(state: EvaluationState, patches: ViewPatches): void {
  for (const patch of patches.contexts ?? []) state.contexts.set(patch.id, { ...held(state.contexts, 'context', patch.id), ...patch } as ContextRecord);
  for (const { versions_added: added, ...patch } of patches.prompts ?? []) {
    const prompt = held(state.prompts, 'prompt', patch.id);
    const versions = added === undefined
      ? prompt.versions
      : addVersions(prompt.versions, (added as unknown as Parameters<typeof recompiledVersion>[0][]).map(recompiledVersion));
    putPrompt(state.prompts, { ...prompt, ...patch, versions } as PromptRecord);
  }
}

function held<R>(records: ReadonlyMap<string, R>, kind: string, id: string): R {
  const record = records.get(id);
  if (record === undefined) throw new StreamFoldError(`the stream patched ${kind} ${id}, which this state does not hold`);
  return record;
}
