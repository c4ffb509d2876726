/**
 * Decision records: every evaluate answer gets a decision id (the
 * `RuleVault-Decision-Id` response header); with decision logging on, a
 * sample of answers is recorded with what is needed to replay them: the
 * time, the key id, the log position the answer was computed at, the
 * request (the values at the masked paths replaced: decision-mask.ts) and
 * the answer.
 *
 * The request path only draws the id and, when sampled, queues references
 * to the request and the answer it already holds (both are fresh objects
 * nobody mutates after the answer is built). Masking, hashing and
 * serializing happen when the queue is drained (sink.ts), after the answer
 * is sent.
 *
 * What a record keeps of the answer: `matchingRuleIds` and `entities` as
 * answered, and a SHA-256 of `entity_data` when the request asked for it,
 * unless a value was masked: the rendered prompts hold the caller's
 * variables, so a plain digest would let anyone with the record and the
 * template check a guess of a masked value (a short one falls to a few
 * hundred guesses), and no replay could match it anyway, the value being
 * gone (docs/decisions/0042-masking-by-path.md). The records themselves (contexts, rendered prompts) are rebuilt from the
 * log at the recorded position, so the sink holds ids and a hash, not
 * copies of the catalog, and stays small.
 *
 * A record that cannot be serialized is written as a stand-in saying why
 * (its id, time, key, position and answer), and counted: the sink retries a
 * batch it could not write, so one such record left in the batch would hold
 * back every record after it for good.
 */
import { createHash } from 'node:crypto';
import type { AuditSinkSettings } from '../base/config';
import { conflict } from '../base/errors';
import type { EvaluateRequest, EvaluateResponse } from '../service/evaluate';
import { timeOrderedId } from '../base/uuid';
import { findLine, ndjsonWriter } from './ndjson-writer';
import { compileMasks, MASKED, maskValues, type Masks } from './decision-mask';
import { createSink, type Sink } from './sink';
import type { AuditSinkMetrics } from './sink-metrics';

export interface DecisionRecord {
  readonly decision_id: string;
  /** ISO 8601 time the answer was computed (its request's time: a split's schedule is read at it). */
  readonly at: string;
  readonly key_id: string;
  /** The log position the read model had applied (decimal), null for the empty log. */
  readonly position: string | null;
  /** The evaluate request as read, in its wire shape; masked values are MASKED. */
  readonly request: {
    readonly entity_type: string;
    readonly fields: Record<string, unknown>;
    readonly include_entity_data: boolean;
    readonly entity_inputs: Record<string, unknown>;
  };
  /** Paths of the masked values (`fields.<name>`, `entity_inputs.variables.<path>`: `entity_inputs.variables.customer.ssn`). */
  readonly masked: readonly string[];
  readonly answer: {
    readonly matchingRuleIds: readonly string[];
    readonly entities: EvaluateResponse['entities'];
    /** SHA-256 (hex) of JSON of the answer's entity_data; present when the request asked for entity data and nothing was masked. */
    readonly entity_data_sha256?: string;
  };
}

/**
 * What is written instead of a record that could not be serialized: what identifies the decision and its answer,
 * from members that always serialize, and why the rest is missing.
 */
export interface DecisionStandIn {
  readonly decision_id: string;
  readonly at: string;
  readonly key_id: string;
  readonly position: string | null;
  /** Why this record keeps no request, masked paths or entity_data digest. */
  readonly incomplete: string;
  readonly answer: Pick<DecisionRecord['answer'], 'matchingRuleIds' | 'entities'>;
}

/** A line of the decision files: a record, or the stand-in of one that could not be serialized. */
export type StoredDecision = DecisionRecord | DecisionStandIn;

export type DecisionSettings = AuditSinkSettings['decisions'];

export interface DecisionLog {
  /**
   * The answer's decision id: `id` when given (a UUID version 7 minted for
   * the request: request-id.ts), else a fresh one; its record is queued when
   * logging is on and the answer is sampled.
   */
  decide(keyId: string, request: EvaluateRequest, answer: EvaluateResponse, position: bigint | undefined, id?: string): string;
  /** Records waiting to be written. */
  readonly queued: number;
  /** Writes what is queued now, so a lookup that follows sees it. */
  flush(): void;
  /** Writes what is queued and closes the sink. */
  close(): void;
}

export interface DecisionLogDeps {
  readonly dir: string;
  readonly settings: DecisionSettings;
  readonly metrics: AuditSinkMetrics;
}

/** What the request path queues: references only. */
interface Pending {
  readonly id: string;
  readonly atMs: number;
  readonly keyId: string;
  readonly position: bigint | undefined;
  readonly request: EvaluateRequest;
  readonly answer: EvaluateResponse;
}

/** Decision files are `decisions-<first decision id>.ndjson` in the audit folder. */
export const DECISIONS_PREFIX = 'decisions';
const SAMPLE_SCALE = 1_000_000;

export function createDecisionLog({ dir, settings, metrics }: DecisionLogDeps): DecisionLog {
  const masks = compileMasks(settings.maskFields);
  let sink: Sink<Pending> | undefined;
  if (settings.enabled) {
    const files = { dir, prefix: DECISIONS_PREFIX, maxFileBytes: settings.maxFileBytes, maxFiles: settings.maxFiles };
    const replaced = (error: Error) => metrics.replaced('decisions', error);
    const writer = ndjsonWriter<Pending>(files, (pending) => pending.id, (pending) => recordLine(pending, masks, replaced));
    sink = createSink(writer, {
      queueCapacity: settings.queueCapacity,
      onDropped: (count) => metrics.dropped('decisions', count),
      onWriteError: (error) => metrics.writeFailed('decisions', error),
    });
  }
  // Systematic sampling, in integer parts per million: each answer adds the rate, and one is recorded each time a whole
  // million is reached. Exactly the rate over any run of answers, deterministic, and no random draw per request.
  const step = Math.max(1, Math.round(settings.sampleRate * SAMPLE_SCALE));
  let credit = 0;
  return {
    decide(keyId, request, answer, position, given) {
      // The answer's own time: a replay reads a split's schedule at the time the answer did.
      const atMs = request.atMs;
      const id = given ?? timeOrderedId(atMs);
      if (sink === undefined) return id;
      credit += step;
      if (credit >= SAMPLE_SCALE) {
        credit -= SAMPLE_SCALE;
        sink.enqueue({ id, atMs, keyId, position, request, answer });
      }
      return id;
    },
    get queued() {
      return sink?.queued ?? 0;
    },
    flush: () => sink?.flush(),
    close: () => sink?.close(),
  };
}

/** The line of a queued decision: its record, or its stand-in when the record cannot be serialized (`replaced` is told). */
function recordLine(pending: Pending, masks: Masks, replaced: (error: Error) => void): string {
  try {
    return JSON.stringify(toRecord(pending, masks));
  } catch (error) {
    const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    replaced(new Error(`decision record ${pending.id} could not be serialized (${why}); a stand-in was written instead`));
    return JSON.stringify(standIn(pending, why));
  }
}

function standIn(pending: Pending, why: string): DecisionStandIn {
  const { answer } = pending;
  return {
    decision_id: pending.id,
    at: new Date(pending.atMs).toISOString(),
    key_id: pending.keyId,
    position: pending.position === undefined ? null : pending.position.toString(),
    incomplete: `the record could not be serialized (${why}): its request, masked paths and entity_data digest are not kept`,
    // Copied member by member: the answer's ids and entities are strings the service made, whatever the request held.
    answer: {
      matchingRuleIds: [...answer.matchingRuleIds],
      entities: answer.entities.map(({ rule_id, entity_type, entity_id, variant, reason }) => ({ rule_id, entity_type, entity_id, variant, reason })),
    },
  };
}

/** The record of a queued decision, masked. */
export function toRecord(pending: Pending, masks: Masks): DecisionRecord {
  const { request, answer } = pending;
  const masked: string[] = [];
  const fields = maskValues(request.fields, masks, 'fields', masked);
  const variables = maskValues(request.variables, masks, 'entity_inputs.variables', masked);
  const entityInputs: Record<string, unknown> = { variables, shouldCompile: request.shouldCompile, strict: request.strict };
  if (request.version !== undefined) entityInputs.version = request.version;
  if (request.label !== undefined) entityInputs.label = request.label;
  return {
    decision_id: pending.id,
    at: new Date(pending.atMs).toISOString(),
    key_id: pending.keyId,
    position: pending.position === undefined ? null : pending.position.toString(),
    request: { entity_type: request.entityType, fields, include_entity_data: request.includeEntityData, entity_inputs: entityInputs },
    masked,
    answer: {
      matchingRuleIds: answer.matchingRuleIds,
      entities: answer.entities,
      ...(answer.entity_data === undefined || masked.length > 0 ? {} : { entity_data_sha256: entityDataDigest(answer.entity_data) }),
    },
  };
}

/** SHA-256 of the JSON of an answer's entity_data, as a record and a replay compare it. */
export function entityDataDigest(entityData: unknown): string {
  return createHash('sha256').update(JSON.stringify(entityData), 'utf8').digest('hex');
}

/** A decision record (or its stand-in) by id from the sink files in `dir`, beside a running service; undefined when there is none. */
export function readDecision(dir: string, id: string): StoredDecision | undefined {
  const line = findLine({ dir, prefix: DECISIONS_PREFIX }, 'decision_id', id);
  return line === undefined ? undefined : (JSON.parse(line) as StoredDecision);
}

/** The record to replay; a stand-in cannot be (409 naming why: its request was not kept). */
export function replayable(record: StoredDecision): DecisionRecord {
  if ('incomplete' in record) throw conflict(`decision ${record.decision_id} cannot be replayed: ${record.incomplete}`);
  return record;
}

/** Why a decision id may have no record: said once, for the API and the CLI. */
export function decisionNotFound(id: string): string {
  return `decision ${id} not found: it was not sampled (RULEVAULT_DECISION_LOG_SAMPLE_RATE), is older than the records kept, or decision logging was off (RULEVAULT_DECISION_LOG)`;
}
