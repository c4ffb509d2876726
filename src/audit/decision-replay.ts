/**
 * Replaying a decision record: its request evaluated again at a point of the
 * log (its own position unless asked otherwise), and the answer compared
 * with the recorded one. Pure: the caller folds the log to the point
 * (time-travel.ts) and evaluates; this builds the request and the report.
 *
 * Masked values cannot be replayed: a masked field is left out of the
 * replayed request (its conditions are judged as on an absent field), and
 * the report names it, so a difference it causes is not mistaken for a
 * change of the rules.
 */
import type { EvaluateResponse } from '../service/evaluate';
import { toJsonPosition } from '../store/port';
import { entityDataDigest, MASKED, type DecisionRecord } from './decision-log';
import type { AsOf } from './time-travel';

/** Where a record is replayed by default: the position its answer was computed at. */
export function recordedPoint(record: DecisionRecord): AsOf {
  return { kind: 'position', position: BigInt(record.position ?? '0') };
}

/** The evaluate body a record replays: its request with masked values left out. */
export function replayBody(record: DecisionRecord): Record<string, unknown> {
  const { request } = record;
  const unmasked = (values: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(values).filter(([, value]) => value !== MASKED));
  const inputs = request.entity_inputs;
  const variables = (inputs.variables ?? {}) as Record<string, unknown>;
  return {
    entity_type: request.entity_type,
    fields: record.masked.length === 0 ? request.fields : unmasked(request.fields),
    include_entity_data: request.include_entity_data,
    entity_inputs: { ...inputs, variables: record.masked.length === 0 ? variables : unmasked(variables) },
  };
}

interface SetDifference {
  readonly only_recorded: string[];
  readonly only_replayed: string[];
}

export interface ReplayReport {
  readonly decision_id: string;
  /** The position the answer was computed at, and the point replayed (its last event's position and time). */
  readonly recorded_position: string | null;
  readonly replayed_at: { readonly position: string | null; readonly at: string | null };
  /** True when the replayed answer equals the recorded one (ids, entities and the entity_data digest). */
  readonly same: boolean;
  /** The record's masked values; a difference may come from them. */
  readonly masked: readonly string[];
  readonly recorded: DecisionRecord['answer'];
  readonly replayed: DecisionRecord['answer'];
  /** Present for each part that differs. */
  readonly differences: {
    readonly matchingRuleIds?: SetDifference;
    readonly entities?: SetDifference;
    readonly entity_data?: { readonly recorded_sha256: string | null; readonly replayed_sha256: string | null };
  };
}

export function replayReport(
  record: DecisionRecord, answer: EvaluateResponse, point: { readonly position: bigint | undefined; readonly at: string | undefined },
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
  if ((recorded.entity_data_sha256 ?? null) !== (replayed.entity_data_sha256 ?? null)) {
    differences.entity_data = { recorded_sha256: recorded.entity_data_sha256 ?? null, replayed_sha256: replayed.entity_data_sha256 ?? null };
  }
  return {
    decision_id: record.decision_id,
    recorded_position: record.position,
    replayed_at: { position: point.position === undefined ? null : toJsonPosition(point.position), at: point.at ?? null },
    same: Object.keys(differences).length === 0,
    masked: record.masked,
    recorded,
    replayed,
    differences,
  };
}

/** What lies in one list and not the other (order ignored: both are sorted answers); undefined when they are equal. */
function difference(recorded: readonly string[], replayed: readonly string[]): SetDifference | undefined {
  const a = new Set(recorded);
  const b = new Set(replayed);
  const only_recorded = recorded.filter((x) => !b.has(x));
  const only_replayed = replayed.filter((x) => !a.has(x));
  return only_recorded.length === 0 && only_replayed.length === 0 && recorded.length === replayed.length ? undefined : { only_recorded, only_replayed };
}
