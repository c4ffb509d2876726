/**
 * POST /api/rule-engine/evaluate, minus HTTP: reading the request (contract §1.1)
 * and answering it from the read model. Never touches the store.
 */
import type { CatalogState, ContextRecord, PromptRecord, RuleRecord } from '../../projections';
import type { Limits } from '../base/limits';
import { badRequest } from '../base/errors';
import { ENTITY_TYPES, type EntityType, type LinkReason, type SplitVariant } from '../events';
import { bucketingValue, chooseVariant, compileSplit, type CompiledSplit, type Engine, type FieldValue, type Fields } from '../engine';
import { ruleKeyOf } from '../domain/splits';
import { selectVersion } from '../../projections/prompts';
import { parseVersion } from '../prompts/semver';
import type { RenderLimits } from '../prompts/template';
import { isPlainObject, nestedDeeperThan } from '../domain/input';
import { readLabel } from '../domain/prompts';
import { renderVersion, type OutputBudget } from './prompt-render';
import { contextView } from './views';

export interface EvaluateRequest {
  readonly entityType: EntityType;
  readonly fields: Fields;
  readonly includeEntityData: boolean;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly version: string | undefined;
  /** A label naming the version (`latest`, `production`, a custom one); never given with `version`. */
  readonly label: string | undefined;
  readonly shouldCompile: boolean;
  /** Refuse a render with variables missing (the record says which) instead of rendering them empty. */
  readonly strict: boolean;
  /**
   * The request's time, ms since the epoch: what a split's rollout schedule is read at. The server's clock
   * when it answered (recorded with the decision), the point's time for an audit evaluate.
   */
  readonly atMs: number;
}

/** What evaluate reads of the catalog: the server's whole state, or a client's copy of the stream's view (evaluation-view.ts). */
export type EvaluationState = Pick<CatalogState, 'rules' | 'contexts' | 'prompts'>;

/**
 * What answering reads of it: a record by id, nothing else (dry-run lays its drafts over the live rules so, and an
 * impact report its proposed rules, contexts and prompts: audit/proposed-state.ts, copying nothing).
 */
export interface EvaluationReads {
  readonly rules: Pick<ReadonlyMap<string, RuleRecord>, 'get'>;
  readonly contexts: Pick<ReadonlyMap<string, ContextRecord>, 'get'>;
  readonly prompts: Pick<ReadonlyMap<string, PromptRecord>, 'get'>;
}

/** One item of `entities`: a link of a matching rule, with the split variant that chose it (null for a plain link) and why. */
export interface AnsweredLink {
  rule_id: string;
  entity_type: EntityType;
  entity_id: string;
  variant: string | null;
  reason: LinkReason;
}

export interface EvaluateResponse {
  matchingRuleIds: string[];
  entities: AnsweredLink[];
  entity_data?: { [key: string]: unknown };
}

type FieldLimits = Pick<Limits, 'maxFields' | 'maxFieldKeyLength' | 'maxFieldValueLength'>;

/** What rendering the prompts of one answer may cost (docs/prompts.md#limits). */
export type PromptLimits = RenderLimits & Pick<Limits, 'responseMaxRenderBytes'>;

/**
 * Levels of `entity_inputs.variables`, the variables object itself the first (docs/api.md, evaluate). A decision record
 * serializes the request after the answer is sent, and JSON.stringify overflows the stack near 4,000 levels: bounded
 * where the request is read, as meta_properties are, such a request is a 400 naming the bound instead of a record
 * nobody can write (docs/decisions/0035-bounded-variables.md).
 */
export const VARIABLES_MAX_DEPTH = 32;

/** Joined once, not per request (bench: cpu-per-request --workload evaluate). */
const ALLOWED_TYPES = ENTITY_TYPES.join(', ');

/**
 * Reads an evaluate body. An optional member is absent or of its type: null
 * is neither, so `"include_entity_data": null` is a 400 naming the member,
 * never read as the default.
 */
export function parseEvaluateRequest(body: unknown, limits: FieldLimits, atMs: number): EvaluateRequest {
  if (!isPlainObject(body)) throw badRequest('request body must be a JSON object');
  const allowed = ALLOWED_TYPES;
  if (body.entity_type === undefined) throw badRequest(`entity_type is required: one of ${allowed}`);
  if (typeof body.entity_type !== 'string' || !(ENTITY_TYPES as readonly string[]).includes(body.entity_type)) {
    throw badRequest(`entity_type must be one of ${allowed}`);
  }
  const includeEntityData = body.include_entity_data === undefined ? false : body.include_entity_data;
  if (typeof includeEntityData !== 'boolean') throw badRequest('include_entity_data must be a boolean');
  const inputs = body.entity_inputs === undefined ? {} : body.entity_inputs;
  if (!isPlainObject(inputs)) throw badRequest('entity_inputs must be an object');
  const variables = inputs.variables === undefined ? {} : inputs.variables;
  if (!isPlainObject(variables)) throw badRequest('entity_inputs.variables must be an object');
  if (nestedDeeperThan(variables, VARIABLES_MAX_DEPTH)) {
    throw badRequest(`entity_inputs.variables is nested deeper than ${VARIABLES_MAX_DEPTH} levels (the limit for evaluate variables)`);
  }
  const version = inputs.version;
  if (version !== undefined && (typeof version !== 'string' || parseVersion(version) === undefined)) {
    throw badRequest('entity_inputs.version must be a version string like 1.2.0');
  }
  const label = inputs.label === undefined ? undefined : readLabel(inputs.label, 'entity_inputs.label');
  if (version !== undefined && label !== undefined) throw badRequest('entity_inputs takes version or label, not both');
  const shouldCompile = inputs.shouldCompile === undefined ? true : inputs.shouldCompile;
  if (typeof shouldCompile !== 'boolean') throw badRequest('entity_inputs.shouldCompile must be a boolean');
  const strict = inputs.strict === undefined ? false : inputs.strict;
  if (typeof strict !== 'boolean') throw badRequest('entity_inputs.strict must be a boolean');
  return {
    entityType: body.entity_type as EntityType,
    fields: readFields(body.fields, limits),
    includeEntityData,
    variables,
    version,
    label,
    shouldCompile,
    strict,
    atMs,
  };
}

function readFields(value: unknown, limits: FieldLimits): Fields {
  if (value === undefined) throw badRequest('fields is required: an object of field names to values');
  if (!isPlainObject(value)) throw badRequest('fields must be an object of field names to values (not null or an array)');
  const keys = Object.keys(value);
  if (keys.length > limits.maxFields) {
    throw badRequest(`fields has ${keys.length} members; the limit is ${limits.maxFields}`);
  }
  for (const key of keys) {
    if (key.length > limits.maxFieldKeyLength) {
      throw badRequest(`field name ${JSON.stringify(key.slice(0, 64))}... is longer than the limit of ${limits.maxFieldKeyLength} characters`);
    }
    const item: unknown = value[key];
    if (typeof item === 'string') {
      if (item.length > limits.maxFieldValueLength) {
        throw badRequest(`fields.${key} is longer than the limit of ${limits.maxFieldValueLength} characters`);
      }
    } else if (typeof item !== 'number' && typeof item !== 'boolean' && item !== null) {
      // null is read as an absent field, whose conditions are false (contract §2): clients send null for "unknown".
      throw badRequest(`fields.${key} must be a string, number, boolean or null`);
    }
  }
  return value as { [field: string]: FieldValue };
}

/** An evaluate answer with its JSON text, as the HTTP endpoint sends it. */
export interface EvaluateAnswer {
  readonly response: EvaluateResponse;
  /** Exactly `JSON.stringify(response)`. */
  readonly json: string;
  /** The JSON text's length in UTF-8 bytes. */
  readonly jsonBytes: number;
}

/**
 * What answers which rules match: the live engine (or a local client's), which keeps each rule's answer parts
 * by rule number (evaluateDerived), or any other `evaluate` (a scan engine, dry-run's overlay).
 */
export type AnsweringEngine = Pick<Engine, 'evaluate'> & Partial<Pick<Engine, 'evaluateDerived'>>;

export function evaluate(state: EvaluationReads, engine: AnsweringEngine, request: EvaluateRequest, limits: PromptLimits): EvaluateResponse {
  return answerFor(state, engine, request, limits, undefined);
}

/**
 * The same answer and its JSON text, assembled by hand from pieces each rule
 * record keeps quoted (ruleParts) instead of `JSON.stringify` escaping every
 * id of every answer again: ~1 µs less per request at 10k rules (bench:
 * cpu-per-request --workload evaluate). With `entity_data` (records and
 * rendered prompts) the text is `JSON.stringify`'s.
 */
export function evaluateWithJson(
  state: EvaluationReads, engine: AnsweringEngine, request: EvaluateRequest, limits: PromptLimits,
): EvaluateAnswer {
  const text: JsonPieces = { ids: '', entities: '', extraBytes: 0 };
  const response = answerFor(state, engine, request, limits, text);
  if (response.entity_data !== undefined) {
    const json = JSON.stringify(response);
    return { response, json, jsonBytes: Buffer.byteLength(json) };
  }
  const json = `{"matchingRuleIds":[${text.ids}],"entities":[${text.entities}]}`;
  return { response, json, jsonBytes: json.length + text.extraBytes };
}

/** The members' JSON as it is assembled: comma-separated items, and the UTF-8 bytes beyond one per UTF-16 unit. */
interface JsonPieces {
  ids: string;
  entities: string;
  extraBytes: number;
}

function answerFor(
  state: EvaluationReads, engine: AnsweringEngine, request: EvaluateRequest, limits: PromptLimits, text: JsonPieces | undefined,
): EvaluateResponse {
  const matched = matchedParts(state, engine, request.fields);
  const type = request.entityType;
  const matchingRuleIds = new Array<string>(matched.length);
  const entities: EvaluateResponse['entities'] = [];
  /** Per item of `entities` chosen by a prompt split: its variant, whose version or label is rendered. */
  let variants: (SplitVariant | undefined)[] | undefined;
  const emit = (ruleId: string, link: LinkPart, reason: LinkReason, variant: SplitVariant | undefined) => {
    if (!isLive(state, type, link.entityId)) return;
    if (variant !== undefined && (variant.version !== undefined || variant.label !== undefined)) (variants ??= [])[entities.length] = variant;
    entities.push({ rule_id: ruleId, entity_type: type, entity_id: link.entityId, variant: variant?.name ?? null, reason });
    if (text !== undefined) {
      const json = reason === 'TARGETING_MATCH' ? link.json : reason === 'SPLIT' ? link.split! : link.fallback!;
      text.entities += text.entities === '' ? json.text : `,${json.text}`;
      text.extraBytes += json.extraBytes;
    }
  };
  for (let i = 0; i < matched.length; i++) {
    const parts = matched[i];
    const ruleId = parts.id;
    matchingRuleIds[i] = ruleId;
    if (text !== undefined) {
      text.ids += i === 0 ? parts.text : parts.listed;
      text.extraBytes += parts.extraBytes;
    }
    // Most rules link nothing: no map lookup for them.
    const links = parts.links === NO_LINKS ? undefined : parts.links.get(type);
    if (links === undefined) continue;
    const split = links.split;
    if (split === undefined) {
      for (const link of links.plain) emit(ruleId, link, 'TARGETING_MATCH', undefined);
      continue;
    }
    // The split's one choice, among the plain links in entity id order (contract §1.1's order).
    const value = request.fields[split.compiled.bucketBy];
    const index = chooseVariant(split.compiled, value, request.atMs);
    const chosen = split.links[index]!;
    // Without a bucketing value chooseVariant took bucket 0's variant: a default, not a split's choice (ADR 0054).
    const reason: LinkReason = bucketingValue(value) === undefined ? 'DEFAULT' : 'SPLIT';
    let placed = false;
    for (const link of links.plain) {
      if (!placed && chosen.entityId < link.entityId) {
        emit(ruleId, chosen, reason, split.compiled.variants[index]);
        placed = true;
      }
      emit(ruleId, link, 'TARGETING_MATCH', undefined);
    }
    if (!placed) emit(ruleId, chosen, reason, split.compiled.variants[index]);
  }
  const response: EvaluateResponse = { matchingRuleIds, entities };
  if (request.includeEntityData) response.entity_data = entityData(state, request, entities, variants, limits);
  return response;
}

/**
 * The matching rules' parts: kept by the engine per rule number when it
 * keeps values (the live engine, a local client's: evaluateDerived), else
 * found by id (audit's scan engines, dry-run's overlay).
 */
function matchedParts(state: EvaluationReads, engine: AnsweringEngine, fields: Fields): readonly RuleParts[] {
  if (engine.evaluateDerived !== undefined) return engine.evaluateDerived(fields, partsDeriver(state));
  return engine.evaluate(fields).map((id) => {
    const rule = state.rules.get(id);
    return rule === undefined ? partsOf(id, undefined) : ruleParts(rule);
  });
}

/** A value's JSON text, and its UTF-8 bytes beyond its length (0 for ASCII). */
interface Quoted {
  readonly text: string;
  readonly extraBytes: number;
}

function quoted(value: unknown): Quoted {
  const text = JSON.stringify(value);
  return { text, extraBytes: Buffer.byteLength(text) - text.length };
}

/** A link as an answer writes it: its entity id and its `entities` item as JSON (a split's variant: as chosen, and as chosen without a value). */
interface LinkPart {
  readonly entityId: string;
  readonly json: Quoted;
  readonly split?: Quoted;
  readonly fallback?: Quoted;
}

/** A rule's links of one entity type: the plain ones (sorted by id), and its split's, one per variant in order. */
interface TypeLinks {
  readonly plain: readonly LinkPart[];
  readonly split?: { readonly compiled: CompiledSplit; readonly links: readonly LinkPart[] };
}

/**
 * What an answer takes from a rule record: its id, as JSON too (`text`, `extraBytes`), and its links per
 * entity type, each with its `entities` item as JSON. About 130 bytes for a rule that links nothing.
 */
interface RuleParts extends Quoted {
  readonly id: string;
  /** `text` after a comma, as every id but an answer's first is written (one string less per id and answer). */
  readonly listed: string;
  readonly links: ReadonlyMap<EntityType, TypeLinks>;
}

const NO_LINKS: RuleParts['links'] = new Map();

const item = (ruleId: string, type: EntityType, entityId: string, variant: string | null, reason: LinkReason): Quoted =>
  quoted({ rule_id: ruleId, entity_type: type, entity_id: entityId, variant, reason } satisfies AnsweredLink);

/** The parts of rule `id` (record `rule`; none: the id alone, linking nothing). */
function partsOf(id: string, rule: RuleRecord | undefined): RuleParts {
  const byType = new Map<EntityType, string[]>();
  for (const link of rule?.entities ?? []) {
    const ids = byType.get(link.entity_type) ?? [];
    ids.push(link.entity_id);
    byType.set(link.entity_type, ids);
  }
  let links = NO_LINKS;
  if (byType.size > 0) {
    const made = new Map<EntityType, TypeLinks>();
    for (const [type, ids] of byType) {
      const split = rule?.splits?.find((s) => s.entity_type === type);
      // A link a variant names is answered only when the split chooses it.
      const named = new Set(split?.variants.map((v) => v.entity_id));
      const plain = ids.filter((entityId) => !named.has(entityId)).sort()
        .map((entityId) => ({ entityId, json: item(id, type, entityId, null, 'TARGETING_MATCH') }));
      if (split === undefined) {
        made.set(type, { plain });
        continue;
      }
      const variantLinks = split.variants.map((v) => ({
        entityId: v.entity_id,
        json: item(id, type, v.entity_id, null, 'TARGETING_MATCH'),
        split: item(id, type, v.entity_id, v.name, 'SPLIT'),
        fallback: item(id, type, v.entity_id, v.name, 'DEFAULT'),
      }));
      made.set(type, { plain, split: { compiled: compileSplit(split, ruleKeyOf(rule!)), links: variantLinks } });
    }
    links = made;
  }
  // Written member by member: a spread's object read ~60 ns slower per match (bench: cpu-per-request --workload evaluate).
  const json = quoted(id);
  return { id, text: json.text, extraBytes: json.extraBytes, listed: `,${json.text}`, links };
}

/** Parts by record, for engines that keep none: records are replaced on change, so a record's parts never go stale. */
const partsCache = new WeakMap<RuleRecord, RuleParts>();

function ruleParts(rule: RuleRecord): RuleParts {
  let parts = partsCache.get(rule);
  if (parts === undefined) partsCache.set(rule, (parts = partsOf(rule.id, rule)));
  return parts;
}

/**
 * One deriver per state, so an engine keeps its parts from call to call (it
 * starts over for another function). The read model changes a rule's record
 * and its engine entry in one step, and the engine drops the parts with the
 * entry, so parts made from the record at the first match stay right.
 */
const derivers = new WeakMap<EvaluationReads, (id: string) => RuleParts>();

function partsDeriver(state: EvaluationReads): (id: string) => RuleParts {
  let derive = derivers.get(state);
  if (derive === undefined) derivers.set(state, (derive = (id) => partsOf(id, state.rules.get(id))));
  return derive;
}

/** Deleted or INACTIVE contexts and prompts drop out of answers; evaluation ids are opaque. */
function isLive(state: EvaluationReads, type: EntityType, id: string): boolean {
  if (type === 'evaluation') return true;
  const record: ContextRecord | PromptRecord | undefined = type === 'context' ? state.contexts.get(id) : state.prompts.get(id);
  return record !== undefined && record.status === 'ACTIVE';
}

/**
 * The records of the answer's entities, one per `<type>:<id>` (the first item's, in answer order). A prompt a split
 * chose renders at its variant's version or label when it names one, else at the request's (docs/concepts.md#splits).
 */
function entityData(
  state: EvaluationReads, request: EvaluateRequest, entities: EvaluateResponse['entities'], variants: readonly (SplitVariant | undefined)[] | undefined,
  limits: PromptLimits,
) {
  const data: { [key: string]: unknown } = {};
  if (request.entityType === 'evaluation') return data;
  const total = limits.responseMaxRenderBytes;
  const output: OutputBudget = {
    left: total,
    reason: `the prompts rendered for this answer would pass ${total} bytes; the limit is RULEVAULT_RESPONSE_MAX_RENDER_BYTES=${total}`,
  };
  entities.forEach(({ entity_id: id }, i) => {
    const key = `${request.entityType}:${id}`;
    if (key in data) return;
    const variant = variants?.[i];
    const asked = variant === undefined ? request : { ...request, version: variant.version, label: variant.label };
    data[key] = request.entityType === 'context'
      ? contextView(state.contexts.get(id)!)
      : promptRecord(state.prompts.get(id)!, asked, limits, output);
  });
  return data;
}

/**
 * The contract §1.3 prompt record, or null when the requested version (or
 * label) does not exist. A render that fails, passes a limit or is refused
 * (strict) leaves `compiled_prompt` null and says why in `error`; the rest of
 * the answer stands.
 */
function promptRecord(prompt: PromptRecord, request: EvaluateRequest, limits: PromptLimits, output: OutputBudget) {
  const version = selectVersion(prompt, request);
  if (version === undefined) return null;
  const rendered = renderVersion(version, request, limits, output);
  return {
    id: prompt.id,
    name: prompt.name,
    version: version.version,
    type: rendered.type,
    prompt: rendered.prompt,
    compiled_prompt: rendered.compiled,
    ...(rendered.error !== undefined ? { error: rendered.error } : {}),
    variables: rendered.variables,
    missing_variables: rendered.missing,
    config: version.config ?? null,
    tags: prompt.tags,
    meta_properties: prompt.meta_properties,
    status: prompt.status,
    created_by: prompt.created_by,
    created_at: prompt.created_at,
    updated_at: prompt.updated_at,
  };
}
