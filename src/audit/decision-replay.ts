/**
 * Replaying a decision record: its request evaluated again at a point of the
 * log (its own position unless asked otherwise), and the answer compared
 * with the recorded one. Pure: the caller folds the log to the point
 * (time-travel.ts) and evaluates; this builds the request and the report.
 *
 * Masked values cannot be replayed: each is left out of the replayed
 * request (a masked field's conditions are judged as on an absent field, a
 * masked variable renders as a missing one), and the report says which
 * parts of the answer the replay therefore cannot reproduce
 * (`unreproducible`), so a difference they cause is not mistaken for a
 * change of the rules.
 */
import type { EvaluateResponse } from '../service/evaluate';
import { toJsonPosition } from '../store/port';
import { entityDataDigest, type DecisionRecord } from './decision-log';
import { MASKED } from './decision-mask';
import type { AsOf } from './time-travel';

/** Where a record is replayed by default: the position its answer was computed at. */
export function recordedPoint(record: DecisionRecord): AsOf {
  return { kind: 'position', position: BigInt(record.position ?? '0') };
}

/** The evaluate body a record replays: its request with the masked values left out. */
export function replayBody(record: DecisionRecord): Record<string, unknown> {
  const { request } = record;
  const inputs = request.entity_inputs;
  const variables = (inputs.variables ?? {}) as Record<string, unknown>;
  const paths = new Set(record.masked);
  // Every path that leads to a masked one: the walk goes down only there. Paths are compared as the record wrote
  // them (member names joined by `.`), so a member whose name holds a dot is found as it was masked.
  const above = new Set(record.masked.flatMap((path) => [...path.matchAll(/\./g)].map((dot) => path.slice(0, dot.index))));
  const unmasked = (values: object, prefix: string) => (paths.size === 0 ? values : withoutMasked(values, prefix, paths, above));
  return {
    entity_type: request.entity_type,
    fields: unmasked(request.fields, 'fields'),
    include_entity_data: request.include_entity_data,
    entity_inputs: { ...inputs, variables: unmasked(variables, 'entity_inputs.variables') },
  };
}

/** `values` without the members at `paths` that hold MASKED (in an array, an absent element). */
function withoutMasked(values: object, prefix: string, paths: ReadonlySet<string>, above: ReadonlySet<string>): unknown {
  const copy = (Array.isArray(values) ? [...values] : Object.assign(Object.create(null) as object, values)) as Record<string, unknown>;
  for (const [key, value] of Object.entries(values)) {
    const path = `${prefix}.${key}`;
    if (paths.has(path) && value === MASKED) delete copy[key];
    else if (above.has(path) && typeof value === 'object' && value !== null) copy[key] = withoutMasked(value, path, paths, above);
  }
  return copy;
}

/** The names of the fields a record masked (its `fields.<name>` paths; a field name is flat, dots and all). */
export function maskedFieldNames(record: DecisionRecord): string[] {
  return record.masked.filter((path) => path.startsWith(FIELDS)).map((path) => path.slice(FIELDS.length));
}

const FIELDS = 'fields.';

interface SetDifference {
  readonly only_recorded: string[];
  readonly only_replayed: string[];
}

export interface ReplayReport {
  readonly decision_id: string;
  /** The position the answer was computed at, and the point replayed (its last event's position and time). */
  readonly recorded_position: string | null;
  readonly replayed_at: { readonly position: string | null; readonly at: string | null };
  /** True when the replayed answer equals the recorded one in every part compared (ids, entities and the entity_data digest). */
  readonly same: boolean;
  /** The record's masked values, left out of the replay. */
  readonly masked: readonly string[];
  /**
   * The parts of the answer the replay cannot reproduce, each with the masked values it depends on: `matchingRuleIds`
   * and `entities` when a rule at the replayed point reads a masked field, `entity_data` whenever something was
   * masked (the record keeps no digest of it to compare). Agreement or difference there says nothing of the rules.
   */
  readonly unreproducible: { readonly [part in 'matchingRuleIds' | 'entities' | 'entity_data']?: readonly string[] };
  readonly recorded: DecisionRecord['answer'];
  readonly replayed: DecisionRecord['answer'];
  /** Present for each part that differs. */
  readonly differences: {
    readonly matchingRuleIds?: SetDifference;
    readonly entities?: SetDifference;
    readonly entity_data?: { readonly recorded_sha256: string | null; readonly replayed_sha256: string | null };
  };
}

/** `fieldsRead`: of the record's masked fields (maskedFieldNames), those some active rule reads at the replayed point. */
export function replayReport(
  record: DecisionRecord, answer: EvaluateResponse, point: { readonly position: bigint | undefined; readonly at: string | undefined },
  fieldsRead: ReadonlySet<string>,
): ReplayReport {
  const replayed: DecisionRecord['answer'] = {
    matchingRuleIds: answer.matchingRuleIds,
    entities: answer.entities,
    ...(answer.entity_data === undefined ? {} : { entity_data_sha256: entityDataDigest(answer.entity_data) }),
  };
  const recorded = record.answer;
  const differences: { -readonly [K in keyof ReplayReport['differences']]: ReplayReport['differences'][K] } = {};
  const ids = difference(recorded.matchingRuleIds, replayed.matchingRuleIds);
  if (ids !== undefined) differences.matchingRuleIds = ids;
  const entityKey = (e: EvaluateResponse['entities'][number]) => `${e.rule_id} ${e.entity_type}:${e.entity_id}`;
  const entities = difference(recorded.entities.map(entityKey), replayed.entities.map(entityKey));
  if (entities !== undefined) differences.entities = entities;
  const unreproducible = unreproducibleParts(record, fieldsRead);
  // A record with masked values keeps no digest: there is nothing to compare, which is not a difference.
  const withheld = unreproducible.entity_data !== undefined && recorded.entity_data_sha256 === undefined;
  if (!withheld && (recorded.entity_data_sha256 ?? null) !== (replayed.entity_data_sha256 ?? null)) {
    differences.entity_data = { recorded_sha256: recorded.entity_data_sha256 ?? null, replayed_sha256: replayed.entity_data_sha256 ?? null };
  }
  return {
    decision_id: record.decision_id,
    recorded_position: record.position,
    replayed_at: { position: point.position === undefined ? null : toJsonPosition(point.position), at: point.at ?? null },
    same: Object.keys(differences).length === 0,
    masked: record.masked,
    unreproducible,
    recorded,
    replayed,
    differences,
  };
}

function unreproducibleParts(record: DecisionRecord, fieldsRead: ReadonlySet<string>): ReplayReport['unreproducible'] {
  const parts: { -readonly [K in keyof ReplayReport['unreproducible']]: ReplayReport['unreproducible'][K] } = {};
  const read = record.masked.filter((path) => path.startsWith(FIELDS) && fieldsRead.has(path.slice(FIELDS.length)));
  if (read.length > 0) {
    parts.matchingRuleIds = read;
    parts.entities = read;
  }
  if (record.request.include_entity_data && record.masked.length > 0) parts.entity_data = record.masked;
  return parts;
}

/** What lies in one list and not the other (order ignored: both are sorted answers); undefined when they are equal. */
function difference(recorded: readonly string[], replayed: readonly string[]): SetDifference | undefined {
  const a = new Set(recorded);
  const b = new Set(replayed);
  const only_recorded = recorded.filter((x) => !b.has(x));
  const only_replayed = replayed.filter((x) => !a.has(x));
  return only_recorded.length === 0 && only_replayed.length === 0 && recorded.length === replayed.length ? undefined : { only_recorded, only_replayed };
}
