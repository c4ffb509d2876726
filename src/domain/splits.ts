/**
 * A rule's `key` and `splits`, read from the author's input and checked
 * against the rule's links (docs/concepts.md#splits). Every refusal is a 400
 * naming the member (`splits[0].variants[1].weight`). Pure.
 */
import { badRequest } from '../base/errors';
import { ENTITY_TYPES, MAX_SPLIT_WEIGHT, type EntityLink, type Split, type SplitSchedule, type SplitVariant } from '../events';
import { parseVersion } from '../prompts/semver';
import { has, readArray, readEnum, readMembers, readString, type JsonObject } from './input';
import { readLabel } from './prompts';

/** The field a split buckets by when it names none: OpenFeature's targeting key. */
export const DEFAULT_BUCKET_BY = 'targetingKey';
const MAX_SPLITS = ENTITY_TYPES.length;
const MAX_VARIANTS = 100;
const MAX_STEPS = 1000;
const KEY_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
const SPLIT_MEMBERS = ['entity_type', 'bucket_by', 'variants', 'schedule'] as const;
const VARIANT_MEMBERS = ['name', 'entity_id', 'weight', 'version', 'label'] as const;
const SCHEDULE_MEMBERS = ['start', 'end', 'weights', 'steps'] as const;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A rule's key: what a split hashes before the bucketing value (flagd's flag key). Set at creation only. */
export function readRuleKey(value: unknown, path: string): string {
  if (typeof value !== 'string' || !KEY_PATTERN.test(value)) {
    throw badRequest(`${path} must be 1 to 128 letters, digits, '.', '_' or '-' (a flagd flag key, say)`);
  }
  return value;
}

/** The key a rule's splits hash by: the one it was given, else its id. */
export function ruleKeyOf(rule: { readonly id: string; readonly key?: string }): string {
  return rule.key ?? rule.id;
}

export function readSplits(value: unknown, path: string): Split[] {
  const splits = readArray(value, path, MAX_SPLITS).map((item, i) => readSplit(item, `${path}[${i}]`));
  const types = new Set<string>();
  splits.forEach((split, i) => {
    if (types.has(split.entity_type)) throw badRequest(`${path}[${i}].entity_type: a rule has one split per entity type, and ${split.entity_type} has two`);
    types.add(split.entity_type);
  });
  return splits;
}

function readSplit(value: unknown, path: string): Split {
  const input = readMembers(value, path, SPLIT_MEMBERS);
  for (const member of ['entity_type', 'variants']) if (!has(input, member)) throw badRequest(`${path}.${member} is required`);
  const entityType = readEnum(input.entity_type, `${path}.entity_type`, ENTITY_TYPES);
  // A bucketing field is a field name as a condition takes one: no condition could read an empty name.
  const bucketBy = has(input, 'bucket_by') ? readString(input.bucket_by, `${path}.bucket_by`, { maxLength: 256 }) : DEFAULT_BUCKET_BY;
  const items = readArray(input.variants, `${path}.variants`, MAX_VARIANTS);
  if (items.length === 0) throw badRequest(`${path}.variants must have at least one variant`);
  const variants = items.map((item, i) => readVariant(item, `${path}.variants[${i}]`, entityType));
  const names = new Set<string>();
  variants.forEach((variant, i) => {
    if (names.has(variant.name)) throw badRequest(`${path}.variants[${i}].name: ${JSON.stringify(variant.name)} names two variants`);
    names.add(variant.name);
  });
  checkTotal(variants.map((v) => v.weight), `${path}.variants`);
  const schedule = has(input, 'schedule') ? readSchedule(input.schedule, `${path}.schedule`, variants) : undefined;
  return { entity_type: entityType, bucket_by: bucketBy, variants, ...(schedule === undefined ? {} : { schedule }) };
}

function readVariant(value: unknown, path: string, entityType: Split['entity_type']): SplitVariant {
  const input = readMembers(value, path, VARIANT_MEMBERS);
  for (const member of ['name', 'entity_id', 'weight']) if (!has(input, member)) throw badRequest(`${path}.${member} is required`);
  const variant: { -readonly [K in keyof SplitVariant]: SplitVariant[K] } = {
    name: readString(input.name, `${path}.name`, { maxLength: 128 }),
    entity_id: readString(input.entity_id, `${path}.entity_id`, { maxLength: 256 }),
    weight: readWeight(input.weight, `${path}.weight`),
  };
  if (has(input, 'version') || has(input, 'label')) {
    if (entityType !== 'prompt') throw badRequest(`${path}: only a prompt variant takes a version or a label`);
    if (has(input, 'version') && has(input, 'label')) throw badRequest(`${path} takes version or label, not both`);
  }
  if (has(input, 'version')) variant.version = readVersion(input.version, `${path}.version`);
  if (has(input, 'label')) variant.label = readLabel(input.label, `${path}.label`);
  return variant;
}

function readVersion(value: unknown, path: string): string {
  if (typeof value !== 'string' || parseVersion(value) === undefined) throw badRequest(`${path} must be a version string like 1.2.0`);
  return value;
}

function readWeight(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest(`${path} must be a whole number from 0 to ${MAX_SPLIT_WEIGHT}`);
  if (!Number.isInteger(value)) throw badRequest(`${path} must be a whole number (got ${value}): weights are integers, so 0.001% is 1 of 100000`);
  if (value < 0) throw badRequest(`${path} must be 0 or more (got ${value})`);
  if (value > MAX_SPLIT_WEIGHT) throw badRequest(`${path} must be at most ${MAX_SPLIT_WEIGHT} (got ${value})`);
  return value;
}

function checkTotal(weights: readonly number[], path: string): void {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total < 1) throw badRequest(`${path}: the weights total 0; at least one must be above 0`);
  if (total > MAX_SPLIT_WEIGHT) throw badRequest(`${path}: the weights total ${total}, past the bound of ${MAX_SPLIT_WEIGHT}`);
}

function readSchedule(value: unknown, path: string, variants: readonly SplitVariant[]): SplitSchedule {
  const input = readMembers(value, path, SCHEDULE_MEMBERS);
  for (const member of ['start', 'end', 'weights']) if (!has(input, member)) throw badRequest(`${path}.${member} is required`);
  const start = readTime(input.start, `${path}.start`);
  const end = readTime(input.end, `${path}.end`);
  if (Date.parse(end) <= Date.parse(start)) throw badRequest(`${path}.end (${end}) must be after ${path}.start (${start})`);
  const weights = readScheduleWeights(input.weights, `${path}.weights`, variants);
  const schedule: { -readonly [K in keyof SplitSchedule]: SplitSchedule[K] } = { start, end, weights };
  if (has(input, 'steps')) {
    const steps = input.steps;
    if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1 || steps > MAX_STEPS) {
      throw badRequest(`${path}.steps must be a whole number from 1 to ${MAX_STEPS} (absent: linear)`);
    }
    schedule.steps = steps;
  }
  return schedule;
}

function readTime(value: unknown, path: string): string {
  const ms = typeof value === 'string' && ISO_TIME.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw badRequest(`${path} must be an ISO 8601 time with a zone, like 2026-01-31T12:00:00Z`);
  return new Date(ms).toISOString();
}

function readScheduleWeights(value: unknown, path: string, variants: readonly SplitVariant[]): { [variant: string]: number } {
  const names = variants.map((v) => v.name);
  const input: JsonObject = readMembers(value, path, names);
  const weights: { [variant: string]: number } = {};
  for (const name of names) {
    if (!has(input, name)) throw badRequest(`${path}.${name} is required: the schedule gives every variant its weight at the end`);
    Object.defineProperty(weights, name, { value: readWeight(input[name], `${path}.${name}`), enumerable: true, writable: true, configurable: true });
  }
  checkTotal(Object.values(weights), path);
  return weights;
}

/** Each variant names a link of the rule, of its split's type (`resolve`: a prompt given by name, as its id). */
export function checkSplitLinks(splits: readonly Split[], entities: readonly EntityLink[], path: string): void {
  const linked = new Set(entities.map((link) => `${link.entity_type}:${link.entity_id}`));
  splits.forEach((split, s) => split.variants.forEach((variant, v) => {
    if (!linked.has(`${split.entity_type}:${variant.entity_id}`)) {
      throw badRequest(`${path}[${s}].variants[${v}].entity_id: the rule links no ${split.entity_type} ${variant.entity_id}; a variant names one of the rule's entities`);
    }
  }));
}

/** `splits` with each variant's entity_id mapped by `resolve` (a prompt named by name becomes its id, as links do). */
export function mapVariantIds(splits: readonly Split[], resolve: (type: Split['entity_type'], ref: string, path: string) => string, path: string): Split[] {
  return splits.map((split, s) => ({
    ...split,
    variants: split.variants.map((variant, v) => {
      const id = resolve(split.entity_type, variant.entity_id, `${path}[${s}].variants[${v}].entity_id`);
      return id === variant.entity_id ? variant : { ...variant, entity_id: id };
    }),
  }));
}

/**
 * The splits once `links` are gone: their variants go too (a weight of 0 and a
 * removed variant move the same keys); a split left with no weight goes, and a
 * schedule left with none goes (its split stays on its weights).
 */
export function withoutLinks(splits: readonly Split[], links: ReadonlySet<string>): Split[] {
  const kept: Split[] = [];
  for (const split of splits) {
    const variants = split.variants.filter((v) => !links.has(`${split.entity_type}:${v.entity_id}`));
    if (variants.length === split.variants.length) {
      kept.push(split);
      continue;
    }
    if (variants.reduce((a, v) => a + v.weight, 0) === 0) continue;
    const { schedule, ...rest } = split;
    const weights = schedule === undefined ? undefined : Object.fromEntries(variants.map((v) => [v.name, schedule.weights[v.name] ?? 0]));
    const keepSchedule = schedule !== undefined && Object.values(weights!).some((w) => w > 0);
    kept.push({ ...rest, variants, ...(keepSchedule ? { schedule: { ...schedule, weights: weights! } } : {}) });
  }
  return kept;
}
