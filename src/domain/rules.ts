/** Rule commands: reading the author's input and deciding the events. Pure. */
import { checkConditionGroups } from '../engine';
import { badRequest, conflict, notFound } from '../errors';
import {
  DATA_TYPES, ENTITY_TYPES, OPERATORS,
  type Condition, type ConditionGroup, type EntityLink, type RuleBody, type RuleEvent,
} from '../events';
import type { RuleRecord } from '../../projections';
import {
  INPUT_LIMITS, has, optional, readArray, readEnum, readString, requireObject, type JsonObject,
} from './input';

const STATUSES = ['ACTIVE', 'INACTIVE'] as const;
const LOGICAL = ['AND', 'OR'] as const;
const MAX_GROUPS = 100;
const MAX_CONDITIONS = 100;
const MAX_LINKS = 1000;

/** What a rule decision needs to know of the rest of the catalog. */
export interface RuleContext {
  /** True when a context or prompt with this id exists (any status). */
  entityExists(link: EntityLink): boolean;
  readonly maxRegexLength: number;
}

export type RulePatch = Partial<RuleBody>;

export function parseRuleCreate(body: unknown): RuleBody {
  const input = requireObject(body, 'body');
  if (!has(input, 'name')) throw badRequest('name is required');
  if (!has(input, 'condition_groups')) throw badRequest('condition_groups is required');
  return {
    name: readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength }),
    description: optional(input, 'description', readDescription) ?? '',
    status: optional(input, 'status', (v, p) => readEnum(v, p, STATUSES)) ?? 'ACTIVE',
    group_operator: optional(input, 'group_operator', (v, p) => readEnum(v, p, LOGICAL)) ?? 'AND',
    condition_groups: readGroups(input.condition_groups),
    entities: optional(input, 'entities', readLinks) ?? [],
  };
}

export function parseRulePatch(body: unknown): RulePatch {
  const input = requireObject(body, 'body');
  const patch: { -readonly [K in keyof RuleBody]?: RuleBody[K] } = {};
  if (has(input, 'name')) patch.name = readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength });
  if (has(input, 'description')) patch.description = readDescription(input.description, 'description');
  if (has(input, 'status')) patch.status = readEnum(input.status, 'status', STATUSES);
  if (has(input, 'group_operator')) patch.group_operator = readEnum(input.group_operator, 'group_operator', LOGICAL);
  if (has(input, 'condition_groups')) patch.condition_groups = readGroups(input.condition_groups);
  if (has(input, 'entities')) patch.entities = readLinks(input.entities, 'entities');
  return patch;
}

export function decideCreateRule(id: string, body: RuleBody, context: RuleContext): RuleEvent[] {
  checkRule(body, context);
  return [{ type: 'RuleCreated', data: { id, ...body } }];
}

export function decideUpdateRule(
  id: string,
  current: RuleRecord | undefined,
  patch: RulePatch,
  expectedRevision: bigint | undefined,
  context: RuleContext,
): RuleEvent[] {
  if (current === undefined) throw notFound('rule', id);
  if (expectedRevision !== undefined && expectedRevision !== current.revision) {
    throw conflict(`rule ${id} is at revision ${current.revision}, not ${expectedRevision}`);
  }
  checkRule({ ...current, ...patch }, context);
  return [{ type: 'RuleUpdated', data: { id, changes: patch } }];
}

export function decideDeleteRule(id: string, current: RuleRecord | undefined): RuleEvent[] {
  if (current === undefined) throw notFound('rule', id);
  return [{ type: 'RuleDeleted', data: { id } }];
}

/** Semantic checks on a whole rule: condition values, regexes, links. */
function checkRule(rule: RuleBody, context: RuleContext): void {
  const [problem] = checkConditionGroups(rule.condition_groups, { maxRegexLength: context.maxRegexLength });
  if (problem !== undefined) throw badRequest(`${problem.path}: ${problem.message}`);
  rule.entities.forEach((link, i) => {
    if (link.entity_type !== 'evaluation' && !context.entityExists(link)) {
      throw badRequest(`entities[${i}]: ${link.entity_type} ${link.entity_id} does not exist`);
    }
  });
}

function readDescription(value: unknown, path: string): string {
  return readString(value, path, { allowEmpty: true });
}

function readGroups(value: unknown): ConditionGroup[] {
  const groups = readArray(value, 'condition_groups', MAX_GROUPS);
  if (groups.length === 0) throw badRequest('condition_groups must have at least one group');
  return groups.map((item, g) => {
    const path = `condition_groups[${g}]`;
    const group = requireObject(item, path);
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
  const condition = requireObject(value, path);
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

/** SPEC: value is a string. Numbers and booleans are accepted as their JSON text. */
function readConditionValue(condition: JsonObject, path: string): string {
  const value = condition.value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return readString(value, `${path}.value`, { allowEmpty: true, maxLength: 64 * 1024 });
}

function readLinks(value: unknown, path: string): EntityLink[] {
  const links = readArray(value, path, MAX_LINKS).map((item, i) => {
    const link = requireObject(item, `${path}[${i}]`);
    return {
      entity_type: readEnum(link.entity_type, `${path}[${i}].entity_type`, ENTITY_TYPES),
      entity_id: readString(link.entity_id, `${path}[${i}].entity_id`, { maxLength: 256 }),
    };
  });
  const seen = new Set<string>();
  return links.filter((link) => {
    const key = `${link.entity_type}:${link.entity_id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
