/**
 * Splits: which one of a rule's weighted links a request gets, decided by
 * the rule's key and the request's bucketing value and nothing else
 * (docs/concepts.md#splits). Pure and total; choosing allocates nothing.
 *
 * The bucketing is flagd's `fractional`: h = murmur3 (x86, 32-bit, seed 0)
 * of the UTF-8 bytes of the rule's key then the value; bucket =
 * (h * total) >> 32; the variants, in their order, take consecutive
 * ranges of buckets. Here that is computed once per rule, not per request:
 * bucket >= S holds exactly when h >= ceil(S * 2^32 / total), so each
 * variant's first bucket becomes a threshold on h (`thresholdOf`), and a
 * request compares its hash with them. No 64-bit product, no BigInt.
 *
 * A rollout schedule moves the thresholds from the variants' weights to the
 * schedule's, linearly in time or in `steps` equal steps. Each threshold
 * moves one way only, so with two variants a key changes variant at most
 * once, from the first to the second (or back, if the schedule gives the
 * first more); with more, a key crosses each threshold at most once and so
 * moves at most (variants - 1) times, never back to a variant it left.
 */

import { murmur3Utf8, murmur3Utf8Int32 } from './murmur3';

/** The weights a split's variants may have: flagd's bound, a signed 32-bit maximum. */
export const MAX_SPLIT_WEIGHT = 2_147_483_647;

/** A split as a rule holds it (the events carry it). */
export interface Split {
  readonly entity_type: 'context' | 'prompt' | 'evaluation';
  /** The request field whose value is bucketed (default `targetingKey`). */
  readonly bucket_by: string;
  readonly variants: readonly SplitVariant[];
  readonly schedule?: SplitSchedule;
}

export interface SplitVariant {
  readonly name: string;
  /** A linked entity of the split's type. */
  readonly entity_id: string;
  readonly weight: number;
  /** A prompt variant's version, or label; neither: the request's (entity_inputs), else latest. */
  readonly version?: string;
  readonly label?: string;
}

/** From the variants' weights at `start` to `weights` (by variant name) at `end`; ISO 8601 UTC. */
export interface SplitSchedule {
  readonly start: string;
  readonly end: string;
  readonly weights: { readonly [variant: string]: number };
  /** Equal steps from start to end (the first at start + (end - start) / steps); absent: linear. */
  readonly steps?: number;
}

/** Why a link is in an answer: a plain link of a matched rule, a split's choice, or a split's choice without a bucketing value. */
export type LinkReason = 'TARGETING_MATCH' | 'SPLIT' | 'DEFAULT';

/** A split compiled for answering: its thresholds on the hash (per variant, the first hash it takes). */
export interface CompiledSplit {
  readonly key: string;
  readonly bucketBy: string;
  readonly variants: readonly SplitVariant[];
  readonly from: Float64Array;
  readonly fromTotal: number;
  readonly schedule: CompiledSchedule | undefined;
}

interface CompiledSchedule {
  readonly startMs: number;
  readonly endMs: number;
  readonly steps: number;
  readonly to: Float64Array;
  readonly toTotal: number;
  /** The thresholds in force inside the window, rewritten per request (one split is answered at a time). */
  readonly now: Float64Array;
}

const TWO_16 = 65536;
const TWO_32 = 4294967296;

/** ceil(sum * 2^32 / total), exactly, for 0 <= sum <= total <= MAX_SPLIT_WEIGHT: long division in 16-bit digits. */
export function thresholdOf(sum: number, total: number): number {
  const [q1, r1] = divide(sum * TWO_16, total);
  const [q2, r2] = divide(r1 * TWO_16, total);
  return q1 * TWO_16 + q2 + (r2 > 0 ? 1 : 0);
}

/** floor(n / d) and its remainder, exact for n < 2^53 (the quotient corrected should rounding have moved it). */
function divide(n: number, d: number): [number, number] {
  let q = Math.floor(n / d);
  let r = n - q * d;
  if (r < 0) {
    q -= 1;
    r += d;
  } else if (r >= d) {
    q += 1;
    r -= d;
  }
  return [q, r];
}

/** flagd's bucket, (hash * total) >> 32 unsigned, in 16-bit halves (each product below 2^47, exact). */
export function bucketOf(hash: number, total: number): number {
  const high = Math.floor(hash / TWO_16);
  const low = hash % TWO_16;
  return Math.floor((high * total + Math.floor((low * total) / TWO_16)) / TWO_16);
}

function thresholds(weights: readonly number[]): { readonly at: Float64Array; readonly total: number } {
  const total = weights.reduce((a, b) => a + b, 0);
  const at = new Float64Array(weights.length);
  let sum = 0;
  for (let i = 0; i < weights.length; i++) {
    at[i] = thresholdOf(sum, total);
    sum += weights[i]!;
  }
  return { at, total };
}

export function compileSplit(split: Split, key: string): CompiledSplit {
  const from = thresholds(split.variants.map((v) => v.weight));
  let schedule: CompiledSchedule | undefined;
  if (split.schedule !== undefined) {
    const s = split.schedule;
    const to = thresholds(split.variants.map((v) => s.weights[v.name] ?? 0));
    schedule = {
      startMs: Date.parse(s.start), endMs: Date.parse(s.end), steps: s.steps ?? 0, to: to.at, toTotal: to.total,
      now: new Float64Array(split.variants.length),
    };
  }
  return { key, bucketBy: split.bucket_by, variants: split.variants, from: from.at, fromTotal: from.total, schedule };
}

/** How far into its window a schedule is at `nowMs`: 0 before the start, 1 from the end, in steps if it has them. */
export function scheduleProgress(schedule: Pick<CompiledSchedule, 'startMs' | 'endMs' | 'steps'>, nowMs: number): number {
  if (nowMs <= schedule.startMs) return 0;
  if (nowMs >= schedule.endMs) return 1;
  const linear = (nowMs - schedule.startMs) / (schedule.endMs - schedule.startMs);
  return schedule.steps === 0 ? linear : Math.floor(linear * schedule.steps) / schedule.steps;
}

/**
 * The thresholds in force at `nowMs`. Inside the window each is
 * from + floor((to - from) * progress): monotone in the progress (every
 * step a correctly rounded operation), and exactly `from` and `to` at its
 * ends, so before the start and from the end the split is flagd's.
 */
export function thresholdsAt(split: CompiledSplit, nowMs: number): Float64Array {
  const schedule = split.schedule;
  if (schedule === undefined) return split.from;
  const progress = scheduleProgress(schedule, nowMs);
  if (progress === 0) return split.from;
  if (progress === 1) return schedule.to;
  const now = schedule.now;
  for (let i = 0; i < now.length; i++) now[i] = split.from[i]! + Math.floor((schedule.to[i]! - split.from[i]!) * progress);
  return now;
}

/** The variant whose range holds `hash`: the last whose threshold it reaches (a weight of 0 has an empty range). */
export function variantAt(at: Float64Array, hash: number): number {
  for (let i = at.length - 1; i > 0; i--) if (hash >= at[i]!) return i;
  return 0;
}

/** The bucketing value of a request field: its text, or undefined when absent, null or empty (docs/concepts.md#splits). */
export function bucketingValue(value: string | number | boolean | null | undefined): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * The variant a request gets: by its bucketing value's hash, or, without a
 * value, the one bucket 0 falls in (the first whose weight in force is above
 * 0), reason DEFAULT. Allocates nothing for a string value.
 */
export function chooseVariant(split: CompiledSplit, value: string | number | boolean | null | undefined, nowMs: number): number {
  const text = bucketingValue(value);
  const at = thresholdsAt(split, nowMs);
  // Unsigned only here, where the comparison is made: the call returns a small integer, not a boxed number.
  return text === undefined ? variantAt(at, 0) : variantAt(at, murmur3Utf8Int32(split.key, text) >>> 0);
}

/** What explain shows of a split for one request (docs/auditors.md#explain). */
export interface SplitExplanation {
  readonly entity_type: string;
  readonly bucket_by: string;
  /** The bucketing value as hashed; null when the request lacks it. */
  readonly value: string | null;
  /** The rule key the value is hashed after. */
  readonly key: string;
  /** murmur3 of key then value, unsigned; null without a value. */
  readonly hash: number | null;
  /** The value's bucket, in [0, total); 0 without a value. */
  readonly bucket: number;
  /** The buckets: the total weight in force, or 2^32 inside a rollout window (the ranges are then on the hash itself). */
  readonly total: number;
  readonly ranges: readonly { readonly variant: string; readonly entity_id: string; readonly from: number; readonly to: number }[];
  readonly variant: string;
  readonly reason: 'SPLIT' | 'DEFAULT';
  /** With a schedule: how far into its window the request's time is (0 to 1). */
  readonly progress?: number;
}

export function explainSplit(split: Split, compiled: CompiledSplit, value: string | number | boolean | null | undefined, nowMs: number): SplitExplanation {
  const text = bucketingValue(value);
  const hash = text === undefined ? null : murmur3Utf8(compiled.key, text);
  const progress = compiled.schedule === undefined ? undefined : scheduleProgress(compiled.schedule, nowMs);
  const inWindow = progress !== undefined && progress > 0 && progress < 1;
  const at = Float64Array.from(thresholdsAt(compiled, nowMs));
  const index = variantAt(at, hash ?? 0);
  let total: number;
  let bounds: number[];
  if (inWindow) {
    total = TWO_32;
    bounds = [...at, TWO_32];
  } else {
    const weights = split.variants.map((v) => (progress === 1 ? split.schedule!.weights[v.name] ?? 0 : v.weight));
    total = weights.reduce((a, b) => a + b, 0);
    bounds = [0];
    for (const w of weights) bounds.push(bounds[bounds.length - 1]! + w);
  }
  return {
    entity_type: split.entity_type,
    bucket_by: split.bucket_by,
    value: text ?? null,
    key: compiled.key,
    hash,
    bucket: hash === null ? 0 : inWindow ? hash : bucketOf(hash, total),
    total,
    ranges: split.variants.map((v, i) => ({ variant: v.name, entity_id: v.entity_id, from: bounds[i]!, to: bounds[i + 1]! })),
    variant: split.variants[index]!.name,
    reason: text === undefined ? 'DEFAULT' : 'SPLIT',
    ...(progress === undefined ? {} : { progress }),
  };
}
