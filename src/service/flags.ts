/**
 * Rules as OpenFeature flags (docs/openfeature.md; ADR 0057): what a flag key
 * names, how an OFREP context becomes evaluate's fields, and a flag's answer
 * read off evaluate's. Pure and total: every outcome is data (a resolution or
 * an error with its OpenFeature code), shared by the OFREP endpoints
 * (src/http/ofrep.ts) and the Node provider over the local evaluator
 * (src/client/openfeature.ts), so the two cannot drift.
 *
 * - A rule with a `key` is a flag of that key. Without a split it is a boolean
 *   (does the rule match); with one a string (the variant its first split
 *   chose). `<key>:<entity type>` is an object flag: the record of the link of
 *   that type the rule answers (the split's choice, else its first link).
 * - Inactive: DISABLED, no value (the caller's code default). Not matching:
 *   DEFAULT, `false` for a boolean, no value otherwise.
 */
import type { RuleRecord } from '../../projections';
import { ENTITY_TYPES, type EntityType } from '../events';
import { bucketingValue, type Fields, type FieldValue } from '../engine';
import type { Limits } from '../base/limits';
import { isPlainObject, nestedDeeperThan } from '../domain/input';
import { VARIABLES_MAX_DEPTH, type EvaluateResponse } from './evaluate';

export type FlagType = 'boolean' | 'string' | 'object';

/** What a flag key names: its rule, its type and, for an object flag or a split's string, the entity type it answers. */
export interface FlagRef {
  readonly key: string;
  readonly rule: RuleRecord;
  readonly type: FlagType;
  /** The entity type evaluate is asked for: an object flag's, a split's; `context` for a boolean (any type answers matchingRuleIds). */
  readonly entityType: EntityType;
}

/** An OFREP success: `value` absent means the caller's code default (OFREP ADR 0006). */
export interface FlagResolution {
  readonly key: string;
  readonly value?: boolean | string | { readonly [member: string]: unknown };
  readonly reason: 'TARGETING_MATCH' | 'SPLIT' | 'DEFAULT' | 'DISABLED';
  readonly variant?: string;
  readonly metadata: FlagMetadata;
}

/** OFREP metadata holds strings, numbers and booleans only: the rule's revision as a number, the log position as a string. */
export interface FlagMetadata {
  readonly rule_id: string;
  readonly revision: number;
  /** The log position of the rule set that answered (RuleVault-Position's form). */
  readonly position: string;
}

export type FlagErrorCode = 'FLAG_NOT_FOUND' | 'PARSE_ERROR' | 'INVALID_CONTEXT' | 'TARGETING_KEY_MISSING' | 'GENERAL';

export interface FlagFailure {
  readonly key?: string;
  readonly errorCode: FlagErrorCode;
  readonly errorDetails: string;
}

export type FlagAnswer = FlagResolution | FlagFailure;

/** True for a failure: of a flag's answer, or of lookupFlag's and parseFlagContext's results. */
export function isFlagFailure<T extends object>(answer: T | FlagFailure): answer is FlagFailure {
  return 'errorCode' in answer;
}

/** The HTTP status of an OFREP failure: 404 for an unknown flag, 400 for what the request got wrong, 500 otherwise. */
export function failureStatus(code: FlagErrorCode): 400 | 404 | 500 {
  return code === 'FLAG_NOT_FOUND' ? 404 : code === 'GENERAL' ? 500 : 400;
}

/** The separator of an object flag's key (`support-prompt:prompt`): a character rule keys cannot hold. */
export const OBJECT_FLAG_SEPARATOR = ':';

/** The rule a rule key names, if any: the server's flag index, or a client's map of its rule set. */
export type RuleOfKey = (ruleKey: string) => RuleRecord | undefined;

/** What a flag key names, or FLAG_NOT_FOUND naming it. */
export function lookupFlag(flagKey: string, ruleOfKey: RuleOfKey): FlagRef | FlagFailure {
  const at = flagKey.lastIndexOf(OBJECT_FLAG_SEPARATOR);
  const ruleKey = at === -1 ? flagKey : flagKey.slice(0, at);
  const rule = ruleOfKey(ruleKey);
  if (rule === undefined) return notFound(flagKey, `no rule has the key ${JSON.stringify(ruleKey)}`);
  if (at === -1) {
    const split = rule.splits?.[0];
    return split === undefined
      ? { key: flagKey, rule, type: 'boolean', entityType: 'context' }
      : { key: flagKey, rule, type: 'string', entityType: split.entity_type };
  }
  const entityType = flagKey.slice(at + 1);
  if (!(ENTITY_TYPES as readonly string[]).includes(entityType)) {
    return notFound(flagKey, `an object flag is <rule key>:<entity type>, one of ${ENTITY_TYPES.join(', ')}; not ${JSON.stringify(entityType)}`);
  }
  if (!rule.entities.some((link) => link.entity_type === entityType)) {
    return notFound(flagKey, `rule ${JSON.stringify(ruleKey)} links no ${entityType}`);
  }
  return { key: flagKey, rule, type: 'object', entityType: entityType as EntityType };
}

/** Every flag a rule is: its own, and an object flag per entity type it links (the bulk answer's order: key, then type). */
export function flagsOf(rule: RuleRecord): FlagRef[] {
  if (rule.key === undefined) return [];
  const own = lookupFlag(rule.key, () => rule) as FlagRef;
  const types = ENTITY_TYPES.filter((type) => rule.entities.some((link) => link.entity_type === type));
  return [own, ...types.map((type): FlagRef => ({ key: `${rule.key}${OBJECT_FLAG_SEPARATOR}${type}`, rule, type: 'object', entityType: type }))];
}

function notFound(key: string, why: string): FlagFailure {
  return { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag ${JSON.stringify(key)} was not found: ${why}` };
}

/** An OFREP context read as evaluate's inputs. */
export interface FlagContext {
  readonly fields: Fields;
  /** The context's `variables` object: a prompt's variables, not fields. */
  readonly variables: Readonly<Record<string, unknown>>;
}

type ContextLimits = Pick<Limits, 'maxFields' | 'maxFieldKeyLength' | 'maxFieldValueLength'>;

/**
 * Reads an OFREP request body `{"context": {...}}`. Nested objects become
 * dotted field names (`{"user": {"tier": "gold"}}` is `user.tier`), null is
 * an absent field (ADR 0041), and `variables`, when an object, is the
 * prompts' variables. An array is INVALID_CONTEXT: no condition compares a
 * list, and joining one would make up a value.
 */
export function parseFlagContext(body: unknown, limits: ContextLimits, key?: string): FlagContext | FlagFailure {
  const fail = (errorCode: FlagErrorCode, errorDetails: string): FlagFailure => ({ ...(key === undefined ? {} : { key }), errorCode, errorDetails });
  if (!isPlainObject(body)) return fail('PARSE_ERROR', 'the request body must be a JSON object: {"context": {...}}');
  const context = body.context ?? {};
  if (!isPlainObject(context)) return fail('PARSE_ERROR', 'context must be a JSON object');
  // A flat context without `variables`, the usual one, is its own fields, as an evaluate body's `fields` is: no copy
  // (bench: cpu-per-request --workload ofrep). Any other goes the long way, which also names what is wrong.
  if (isFlatFields(context, limits)) return { fields: context as Fields, variables: NO_VARIABLES };
  const { variables: given, ...members } = context;
  const rest: Record<string, unknown> = members;
  let variables: Readonly<Record<string, unknown>> = {};
  if (isPlainObject(given)) {
    if (nestedDeeperThan(given, VARIABLES_MAX_DEPTH)) return fail('INVALID_CONTEXT', `context.variables is nested deeper than ${VARIABLES_MAX_DEPTH} levels`);
    variables = given;
  } else if (given !== undefined) {
    rest.variables = given;
  }
  const fields: Record<string, FieldValue> = {};
  const problem = flatten(rest, '', 0, { fields, count: 0 }, limits);
  return problem === undefined ? { fields, variables } : fail('INVALID_CONTEXT', problem);
}

const NO_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/** True when every member of `context` is a field as it stands: a valid scalar, none named `variables`, within the limits. */
function isFlatFields(context: Record<string, unknown>, limits: ContextLimits): boolean {
  let count = 0;
  for (const name in context) {
    if (name === 'variables' || name.length > limits.maxFieldKeyLength || ++count > limits.maxFields) return false;
    const value = context[name];
    if (typeof value === 'string') {
      if (value.length > limits.maxFieldValueLength) return false;
    } else if (typeof value !== 'number' && typeof value !== 'boolean' && value !== null) {
      return false;
    }
  }
  return true;
}

/** The fields written so far, and how many (counted, not Object.keys'd per field). */
interface Flattened {
  readonly fields: Record<string, FieldValue>;
  count: number;
}

/** Writes `object`'s members into `into` under `prefix`; the first problem, if any. */
function flatten(object: Record<string, unknown>, prefix: string, depth: number, into: Flattened, limits: ContextLimits): string | undefined {
  if (depth > VARIABLES_MAX_DEPTH) return `context is nested deeper than ${VARIABLES_MAX_DEPTH} levels at ${prefix.slice(0, -1)}`;
  const { fields } = into;
  for (const [member, value] of Object.entries(object)) {
    const name = prefix + member;
    if (isPlainObject(value)) {
      const problem = flatten(value, `${name}.`, depth + 1, into, limits);
      if (problem !== undefined) return problem;
      continue;
    }
    if (Object.hasOwn(fields, name)) return `context names the field ${JSON.stringify(name)} twice (once nested, once dotted)`;
    if (name.length > limits.maxFieldKeyLength) return `context field ${JSON.stringify(name.slice(0, 64))}... is longer than the limit of ${limits.maxFieldKeyLength} characters`;
    if (typeof value === 'string') {
      if (value.length > limits.maxFieldValueLength) return `context.${name} is longer than the limit of ${limits.maxFieldValueLength} characters`;
    } else if (Array.isArray(value)) {
      return `context.${name} is an array: a field is a string, number, boolean or null`;
    } else if (typeof value !== 'number' && typeof value !== 'boolean' && value !== null) {
      return `context.${name} must be a string, number, boolean, null or an object`;
    }
    if (++into.count > limits.maxFields) return `context has more than ${limits.maxFields} fields; the limit is ${limits.maxFields}`;
    // `__proto__` is a field like any other (JSON.parse makes it an own member): assigned, it would set the prototype.
    if (name === '__proto__') Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
    else fields[name] = value as FieldValue;
  }
  return undefined;
}

/** Evaluate's answer for one entity type, with or without entity_data; the caller computes each once per request. */
export type AnswerFor = (entityType: EntityType, withData: boolean) => EvaluateResponse;

/**
 * A flag's answer, read off evaluate's answers. `position`: the rule set's
 * log position that answered.
 */
export function resolveFlag(ref: FlagRef, context: FlagContext, answerFor: AnswerFor, position: bigint | undefined): FlagAnswer {
  const { rule } = ref;
  const metadata: FlagMetadata = { rule_id: rule.id, revision: Number(rule.revision), position: position === undefined ? '' : position.toString() };
  if (rule.status !== 'ACTIVE') return { key: ref.key, reason: 'DISABLED', metadata };
  const answer = answerFor(ref.entityType, ref.type === 'object');
  if (!answer.matchingRuleIds.includes(rule.id)) {
    return ref.type === 'boolean' ? { key: ref.key, value: false, variant: 'off', reason: 'DEFAULT', metadata } : { key: ref.key, reason: 'DEFAULT', metadata };
  }
  if (ref.type === 'boolean') return { key: ref.key, value: true, variant: 'on', reason: 'TARGETING_MATCH', metadata };
  const split = rule.splits?.find((s) => s.entity_type === ref.entityType);
  if (split !== undefined && bucketingValue(context.fields[split.bucket_by]) === undefined) {
    // Evaluate answers bucket 0 for a request without the bucketing value (ADR 0054); a flag says what is missing instead.
    // Read off the context, not the answer: bucket 0's entity may be inactive and missing from it.
    return { key: ref.key, errorCode: 'TARGETING_KEY_MISSING', errorDetails: `flag ${JSON.stringify(ref.key)} splits by the context field ${JSON.stringify(split.bucket_by)}, which the context does not hold` };
  }
  const link = answer.entities.find((e) => e.rule_id === rule.id && (split === undefined || e.variant !== null));
  // The chosen entity is inactive or deleted: it drops out, as in evaluate (ADR 0056), and the caller keeps its default.
  if (link === undefined) return { key: ref.key, reason: 'DEFAULT', metadata };
  const reason = link.reason === 'SPLIT' ? 'SPLIT' : 'TARGETING_MATCH';
  if (ref.type === 'string') return { key: ref.key, value: link.variant!, variant: link.variant!, reason, metadata };
  const record = ref.entityType === 'evaluation'
    ? { id: link.entity_id }
    : (answer.entity_data?.[`${ref.entityType}:${link.entity_id}`] as Record<string, unknown> | null | undefined);
  if (record === null || record === undefined) return { key: ref.key, reason: 'DEFAULT', metadata };
  return { key: ref.key, value: record, variant: link.variant ?? link.entity_id, reason, metadata };
}
