/** Rule commands: reading the author's input and deciding the events. Pure. */
import { checkConditionGroups } from '../engine';
import { badRequest, conflict, notFound } from '../base/errors';
import {
  DATA_TYPES, ENTITY_TYPES, OPERATORS,
  type Condition, type ConditionGroup, type EntityLink, type RuleBody, type RuleEvent, type Split,
} from '../events';
import type { RuleRecord } from '../../projections';
import { lowerCaseHint } from '../base/uuid-text';
import { checkSplitLinks, mapVariantIds, readRuleKey, readSplits, ruleKeyOf, withoutLinks } from './splits';
import {
  INPUT_LIMITS, changedMembers, checkIfMatch, has, optional, readArray, readEnum, readMembers, readString,
  type IfMatch, type JsonObject,
} from './input';

const STATUSES = ['ACTIVE', 'INACTIVE'] as const;
const LOGICAL = ['AND', 'OR'] as const;
const MAX_GROUPS = 100;
const MAX_CONDITIONS = 100;
const MAX_LINKS = 1000;
const RULE_MEMBERS = ['name', 'description', 'status', 'group_operator', 'condition_groups', 'entities', 'key', 'splits'] as const;
const GROUP_MEMBERS = ['condition_operator', 'conditions'] as const;
const CONDITION_MEMBERS = ['field', 'operator', 'value', 'data_type'] as const;
const LINK_MEMBERS = ['entity_type', 'entity_id'] as const;

/** What a rule decision needs to know of the rest of the catalog. */
export interface RuleContext {
  /** True when a context or prompt with this id exists (any status). */
  entityExists(link: EntityLink): boolean;
  /**
   * The id of the prompt a link's `entity_id` names, by id or by name (as every prompt route takes
   * either), or undefined. Absent: links are taken as ids (an import resolves its names itself).
   */
  promptIdOf?(ref: string): string | undefined;
  /**
   * The id of the live rule holding a flag key (keys are unique: ADR 0057), or undefined. Absent: keys are
   * not checked (dry-run's drafts are never written).
   */
  keyHolder?(key: string): string | undefined;
  readonly maxRegexLength: number;
}

export type RulePatch = Partial<RuleBody>;

export function parseRuleCreate(body: unknown): RuleBody {
  const input = readMembers(body, 'body', RULE_MEMBERS);
  if (!has(input, 'name')) throw badRequest('name is required');
  if (!has(input, 'condition_groups')) throw badRequest('condition_groups is required');
  const key = optional(input, 'key', readRuleKey);
  const splits = optional(input, 'splits', readSplits) ?? [];
  return {
    name: readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength }),
    description: optional(input, 'description', readDescription) ?? '',
    status: optional(input, 'status', (v, p) => readEnum(v, p, STATUSES)) ?? 'ACTIVE',
    group_operator: optional(input, 'group_operator', (v, p) => readEnum(v, p, LOGICAL)) ?? 'AND',
    condition_groups: readGroups(input.condition_groups),
    entities: optional(input, 'entities', readLinks) ?? [],
    // Written only when given: a rule without them is as every rule before splits (events/rule-events.ts).
    ...(key === undefined ? {} : { key }),
    ...(splits.length === 0 ? {} : { splits }),
  };
}

export function parseRulePatch(body: unknown): RulePatch {
  const input = readMembers(body, 'body', RULE_MEMBERS);
  const patch: { -readonly [K in keyof RuleBody]?: RuleBody[K] } = {};
  if (has(input, 'name')) patch.name = readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength });
  if (has(input, 'description')) patch.description = readDescription(input.description, 'description');
  if (has(input, 'status')) patch.status = readEnum(input.status, 'status', STATUSES);
  if (has(input, 'group_operator')) patch.group_operator = readEnum(input.group_operator, 'group_operator', LOGICAL);
  if (has(input, 'condition_groups')) patch.condition_groups = readGroups(input.condition_groups);
  if (has(input, 'entities')) patch.entities = readLinks(input.entities, 'entities');
  if (has(input, 'key')) patch.key = readRuleKey(input.key, 'key');
  // `splits: []` takes every split away.
  if (has(input, 'splits')) patch.splits = readSplits(input.splits, 'splits');
  return patch;
}

export function decideCreateRule(id: string, body: RuleBody, context: RuleContext): RuleEvent[] {
  const holder = body.key === undefined ? undefined : context.keyHolder?.(body.key);
  if (holder !== undefined) throw conflict(`key ${JSON.stringify(body.key)} is taken by rule ${holder}: a key names one flag (docs/openfeature.md)`);
  checkConditions(body.condition_groups, context);
  const entities = resolveLinks(body.entities, context);
  checkNewLinks(entities, new Set(), context);
  if (body.splits === undefined) return [{ type: 'RuleCreated', data: { id, ...body, entities } }];
  const splits = resolveVariants(body.splits, context);
  checkSplitLinks(splits, entities, 'splits');
  return [{ type: 'RuleCreated', data: { id, ...body, entities, splits } }];
}

/**
 * A PATCH is checked for what it adds: its conditions, and links the rule did
 * not have. Links the rule already had to a context or prompt deleted since
 * (an old log, or a delete on another node) are dropped by any PATCH, and the
 * event records the drop; they never block a write such as `status: INACTIVE`.
 * A PATCH that changes nothing decides no event.
 */
export function decideUpdateRule(
  id: string,
  current: RuleRecord | undefined,
  patch: RulePatch,
  ifMatch: IfMatch | undefined,
  context: RuleContext,
): RuleEvent[] {
  if (current === undefined) throw notFound('rule', id);
  checkIfMatch('rule', id, current.revision, ifMatch);
  const { key, ...rest } = patch;
  if (key !== undefined && key !== ruleKeyOf(current)) {
    throw badRequest(`key cannot change (it is ${ruleKeyOf(current)}): every split of the rule buckets by it, so a new key would move its users; create a rule for a new key`);
  }
  if (rest.condition_groups !== undefined) checkConditions(rest.condition_groups, context);
  const had = new Set(current.entities.map(linkKey));
  const given = rest.entities === undefined ? undefined : resolveLinks(rest.entities, context);
  if (given !== undefined) checkNewLinks(given, had, context);
  const chosen = given ?? current.entities;
  const entities = chosen.filter((link) => !had.has(linkKey(link)) || isLive(link, context));
  // Variants of links dropped as dead go with them, as the links do; any other variant must name a link kept.
  const dropped = new Set(chosen.filter((link) => !entities.includes(link)).map(linkKey));
  const splits = withoutLinks(rest.splits === undefined ? current.splits ?? [] : resolveVariants(rest.splits, context), dropped);
  checkSplitLinks(splits, entities, 'splits');
  const changes = changedMembers<RuleBody>({ ...current, splits: current.splits ?? [] }, { ...rest, entities, splits });
  return Object.keys(changes).length === 0 ? [] : [{ type: 'RuleUpdated', data: { id, changes } }];
}

export function decideDeleteRule(id: string, current: RuleRecord | undefined, ifMatch: IfMatch | undefined): RuleEvent[] {
  if (current === undefined) throw notFound('rule', id);
  checkIfMatch('rule', id, current.revision, ifMatch);
  return [{ type: 'RuleDeleted', data: { id } }];
}

/**
 * Deleting a context or prompt first unlinks it from each rule that names it:
 * a RuleUpdated whose `entities` lack the link (and any other dead link), so
 * no write of the API leaves a rule pointing at nothing, and the rule's
 * history shows why its links changed.
 */
export function decideUnlinkEntity(id: string, current: RuleRecord | undefined, link: EntityLink, context: RuleContext): RuleEvent[] {
  const entities = current?.entities.filter((l) => linkKey(l) !== linkKey(link));
  // A split's variants of the entity go with the link (splits.ts withoutLinks).
  const splits = current?.splits === undefined ? undefined : withoutLinks(current.splits, new Set([linkKey(link)]));
  return decideUpdateRule(id, current, { entities, ...(splits === undefined ? {} : { splits }) }, undefined, context);
}

function checkConditions(groups: readonly ConditionGroup[], context: RuleContext): void {
  const [problem] = checkConditionGroups(groups, { maxRegexLength: context.maxRegexLength });
  if (problem !== undefined) throw badRequest(`${problem.path}: ${problem.message}`);
}

/**
 * Prompt links given by name as the prompt's id: the rule stores ids, so renaming a prompt keeps its
 * links, and evaluate answers the id it always answers. A link naming no prompt is kept as given, for
 * checkNewLinks to refuse. Links that name one prompt twice (its id and its name) become one.
 */
function resolveLinks(links: readonly EntityLink[], context: RuleContext): readonly EntityLink[] {
  const { promptIdOf } = context;
  if (promptIdOf === undefined || !links.some((link) => link.entity_type === 'prompt')) return links;
  return dedupeLinks(links.map((link) => {
    if (link.entity_type !== 'prompt') return link;
    const id = promptIdOf(link.entity_id);
    return id === undefined || id === link.entity_id ? link : { entity_type: 'prompt', entity_id: id };
  }));
}

/** Variants naming a prompt by name, as its id (resolveLinks does the same for the links). */
function resolveVariants(splits: readonly Split[], context: RuleContext): Split[] {
  const { promptIdOf } = context;
  if (promptIdOf === undefined) return [...splits];
  return mapVariantIds(splits, (type, ref) => (type === 'prompt' ? promptIdOf(ref) ?? ref : ref), 'splits');
}

/** Links not in `had` must name an existing context or prompt (an evaluation link may name any id). */
function checkNewLinks(links: readonly EntityLink[], had: ReadonlySet<string>, context: RuleContext): void {
  links.forEach((link, i) => {
    if (!had.has(linkKey(link)) && !isLive(link, context)) {
      const hint = link.entity_type === 'prompt' && context.promptIdOf !== undefined ? ' (by id or by name)' : '';
      throw badRequest(`entities[${i}]: ${link.entity_type} ${link.entity_id} does not exist${hint}${lowerCaseHint(link.entity_id)}`);
    }
  });
}

function isLive(link: EntityLink, context: RuleContext): boolean {
  return link.entity_type === 'evaluation' || context.entityExists(link);
}

const linkKey = (link: EntityLink) => `${link.entity_type}:${link.entity_id}`;

function readDescription(value: unknown, path: string): string {
  return readString(value, path, { allowEmpty: true });
}

function readGroups(value: unknown): ConditionGroup[] {
  const groups = readArray(value, 'condition_groups', MAX_GROUPS);
  if (groups.length === 0) throw badRequest('condition_groups must have at least one group');
  return groups.map((item, g) => {
    const path = `condition_groups[${g}]`;
    const group = readMembers(item, path, GROUP_MEMBERS);
    if (!has(group, 'conditions')) throw badRequest(`${path}.conditions is required`);
    const conditions = readArray(group.conditions, `${path}.conditions`, MAX_CONDITIONS);
    if (conditions.length === 0) throw badRequest(`${path}.conditions must have at least one condition`);
    return {
      condition_operator: optional(group, 'condition_operator', (v) => readEnum(v, `${path}.condition_operator`, LOGICAL)) ?? 'AND',
      conditions: conditions.map((c, i) => readCondition(c, `${path}.conditions[${i}]`)),
    };
  });
}

function readCondition(value: unknown, path: string): Condition {
  const condition = readMembers(value, path, CONDITION_MEMBERS);
  for (const member of ['field', 'operator', 'value']) {
    if (!has(condition, member)) throw badRequest(`${path}.${member} is required`);
  }
  return {
    field: readString(condition.field, `${path}.field`, { maxLength: 256 }),
    operator: readEnum(condition.operator, `${path}.operator`, OPERATORS),
    value: readConditionValue(condition, path),
    data_type: optional(condition, 'data_type', (v) => readEnum(v, `${path}.data_type`, DATA_TYPES)) ?? 'string',
  };
}

/** Contract §2: value is a string. Numbers and booleans are accepted as their JSON text. */
function readConditionValue(condition: JsonObject, path: string): string {
  const value = condition.value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return readString(value, `${path}.value`, { allowEmpty: true, maxLength: 64 * 1024 });
}

function readLinks(value: unknown, path: string): EntityLink[] {
  const links = readArray(value, path, MAX_LINKS).map((item, i) => {
    const link = readMembers(item, `${path}[${i}]`, LINK_MEMBERS);
    return {
      entity_type: readEnum(link.entity_type, `${path}[${i}].entity_type`, ENTITY_TYPES),
      entity_id: readString(link.entity_id, `${path}[${i}].entity_id`, { maxLength: 256 }),
    };
  });
  return dedupeLinks(links);
}

function dedupeLinks(links: readonly EntityLink[]): EntityLink[] {
  const seen = new Set<string>();
  return links.filter((link) => {
    const key = linkKey(link);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
