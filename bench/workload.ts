/**
 * The standard workload of docs/bench-method.md as a seeded generator: LLM-trace routing
 * rules over 30 fields, and requests drawn from the same vocabularies. Rule
 * bodies come in the admin API's shape, so HTTP scenarios can POST them as
 * they are; `toDefinitions` gives the engine's view.
 *
 * Shapes: "mixed" (the standard), "broad" (mixed plus 10% of rules that
 * match every request), "regex-only" (every condition a regex), "scoped"
 * (mixed up to 10k rules, then rules of one tenant each, about 45 per
 * tenant, so the answer stays near the size it has at 10k however many
 * rules there are: see `scopedTenants`).
 */
import type { Condition, ConditionGroup, EntityLink, LogicalOperator } from '../src/events/rule-events';
import type { FieldValue, Fields, RuleDefinition } from '../src/engine';
import { createRandom, type Random } from './random';

export type Shape = 'mixed' | 'broad' | 'regex-only' | 'scoped';

/** A rule as POST /api/rule-engine/rules takes it. */
export interface BenchRuleBody {
  readonly name: string;
  readonly status: 'ACTIVE';
  readonly group_operator: LogicalOperator;
  readonly condition_groups: ConditionGroup[];
  readonly entities?: EntityLink[];
}

interface TextField {
  readonly name: string;
  readonly kind: 'string';
  readonly values: readonly string[];
  /** Leading parts shared by many values: what starts_with, contains and regex conditions use. */
  readonly stems: readonly string[];
}
interface NumberField {
  readonly name: string;
  readonly kind: 'number';
  readonly min: number;
  readonly max: number;
  /** Decimal places of generated values. */
  readonly decimals: number;
  /** For discrete fields (status codes, retries): the values equals/in conditions name. */
  readonly values?: readonly number[];
}
interface FlagField {
  readonly name: string;
  readonly kind: 'boolean';
}
export type FieldSpec = TextField | NumberField | FlagField;

function text(name: string, size: number, stems: readonly string[], exact = false): TextField {
  const values = exact ? stems.slice(0, size) : Array.from({ length: size }, (_, i) => `${stems[i % stems.length]}-${i}`);
  return { name, kind: 'string', values, stems };
}

function num(name: string, min: number, max: number, decimals: number, values?: number[]): NumberField {
  return { name, kind: 'number', min, max, decimals, values };
}

/**
 * The 30 fields: 19 string fields with vocabularies of 5 to 2,000 values and
 * one boolean flag (the bench method's 2% boolean conditions need one), 10 numbers.
 */
export const FIELDS: readonly FieldSpec[] = [
  text('gen_ai.system', 5, ['openai', 'anthropic', 'google', 'mistral', 'meta'], true),
  text('gen_ai.request.model', 300, ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet', 'claude-3-haiku', 'gemini-1.5-pro', 'llama-3.1-70b', 'mistral-large']),
  text('gen_ai.operation.name', 8, ['chat', 'text_completion', 'embeddings', 'execute_tool', 'create_agent', 'invoke_agent', 'rerank', 'moderation'], true),
  text('service.name', 500, ['checkout', 'search', 'support-bot', 'billing', 'ingest', 'agent-runner']),
  text('deployment.environment', 5, ['prod', 'staging', 'dev', 'test', 'canary'], true),
  text('user.tier', 5, ['free', 'pro', 'team', 'enterprise', 'internal'], true),
  text('region', 20, ['us-east', 'us-west', 'eu-west', 'eu-central', 'ap-south']),
  text('tenant.id', 2000, ['tenant']),
  text('user.id', 2000, ['user', 'svc']),
  text('app.version', 50, ['v1', 'v2', 'v3']),
  text('http.route', 300, ['/api/chat', '/api/search', '/v1/completions', '/internal/eval']),
  text('feature.flag', 100, ['ff-new-ui', 'ff-router', 'ff-cache']),
  text('customer.segment', 10, ['smb', 'mid-market', 'enterprise', 'public-sector', 'edu']),
  text('language', 30, ['en', 'de', 'fr', 'es', 'ja', 'zh']),
  text('device.type', 6, ['desktop', 'mobile', 'tablet', 'server', 'watch', 'tv'], true),
  text('os.name', 10, ['linux', 'macos', 'windows', 'ios', 'android']),
  text('team', 50, ['team-platform', 'team-growth', 'team-ml']),
  text('prompt.template', 400, ['tpl-support', 'tpl-sales', 'tpl-code', 'tpl-summarize']),
  text('session.channel', 8, ['web', 'api', 'slack', 'email', 'sms', 'voice', 'teams', 'cli'], true),
  { name: 'gen_ai.request.stream', kind: 'boolean' },
  num('gen_ai.usage.input_tokens', 0, 8000, 0),
  num('gen_ai.usage.output_tokens', 0, 4000, 0),
  num('gen_ai.usage.cost_usd', 0, 2, 4),
  num('latency_ms', 0, 5000, 0),
  num('gen_ai.request.temperature', 0, 2, 1),
  num('gen_ai.request.top_p', 0, 1, 2),
  num('gen_ai.request.max_tokens', 256, 8192, 0, [256, 512, 1024, 2048, 4096, 8192]),
  num('retry.count', 0, 5, 0, [0, 1, 2, 3, 4, 5]),
  num('http.status_code', 200, 503, 0, [200, 201, 400, 401, 403, 404, 429, 500, 502, 503]),
  num('request.size_bytes', 0, 1_000_000, 0),
];

const TEXT_FIELDS = FIELDS.filter((f): f is TextField => f.kind === 'string');
const NUMBER_FIELDS = FIELDS.filter((f): f is NumberField => f.kind === 'number');
const DISCRETE_FIELDS = NUMBER_FIELDS.filter((f) => f.values !== undefined);
const FLAG = FIELDS.find((f): f is FlagField => f.kind === 'boolean')!;
/** Present in every request: real traces always say which system, model, environment and service. */
const CORE = ['gen_ai.system', 'gen_ai.request.model', 'deployment.environment', 'service.name'];

function randomNumber(random: Random, field: NumberField): number {
  if (field.values !== undefined) return random.pick(field.values);
  const x = field.min + random.next() * (field.max - field.min);
  return Number(x.toFixed(field.decimals));
}

function c(field: string, operator: Condition['operator'], value: string, data_type: Condition['data_type'] = 'string'): Condition {
  return { field, operator, value, data_type };
}

/**
 * Anchors favour large vocabularies (weight = vocabulary size): targeting
 * rules name a tenant, a service or a model far more often than one of five
 * environments, which keeps a request at 0 to ~20 matches at 10k rules.
 */
const ANCHOR_WEIGHTS = cumulative(TEXT_FIELDS.map((f) => f.values.length));

function cumulative(weights: number[]): number[] {
  let sum = 0;
  return weights.map((w) => (sum += w));
}

function weightedPick<T>(random: Random, items: readonly T[], cumulativeWeights: readonly number[]): T {
  const x = random.next() * cumulativeWeights[cumulativeWeights.length - 1];
  let i = 0;
  while (cumulativeWeights[i] <= x) i++;
  return items[i];
}

/** equals/in: mostly on string fields, some on discrete numbers; `anchor` picks the field by vocabulary size. */
function equalityCondition(random: Random, anchor = false): Condition {
  if (!anchor && random.chance(0.1)) {
    const f = random.pick(DISCRETE_FIELDS);
    return random.chance(0.7)
      ? c(f.name, 'equals', String(random.pick(f.values!)), 'number')
      : c(f.name, 'in', random.sample(f.values!, 2).join(','), 'number');
  }
  const f = anchor ? weightedPick(random, TEXT_FIELDS, ANCHOR_WEIGHTS) : random.pick(TEXT_FIELDS);
  return random.chance(0.7)
    ? c(f.name, 'equals', random.pick(f.values))
    : c(f.name, 'in', random.sample(f.values, Math.min(f.values.length - 1, random.int(2, 4))).join(', '));
}

function rangeCondition(random: Random): Condition {
  const f = random.pick(NUMBER_FIELDS);
  const a = randomNumber(random, f);
  const op = random.pick(['gt', 'gte', 'lt', 'lte', 'between'] as const);
  if (op !== 'between') return c(f.name, op, String(a), 'number');
  const b = randomNumber(random, f);
  return c(f.name, 'between', `${Math.min(a, b)},${Math.max(a, b)}`, 'number');
}

function affixCondition(random: Random): Condition {
  const f = random.pick(TEXT_FIELDS);
  const value = random.pick(f.values);
  switch (random.int(0, 2)) {
    case 0: return c(f.name, 'starts_with', random.chance(0.5) ? random.pick(f.stems) : value.slice(0, Math.max(1, value.length - 1)));
    case 1: return c(f.name, 'ends_with', value.slice(-2));
    default: return c(f.name, 'contains', random.pick(f.stems).slice(1, 5));
  }
}

function negationCondition(random: Random): Condition {
  const f = random.pick(TEXT_FIELDS);
  switch (random.int(0, 2)) {
    case 0: return c(f.name, 'not_equals', random.pick(f.values));
    case 1: return c(f.name, 'not_in', random.sample(f.values, 2).join(','));
    default: return c(f.name, 'not_contains', random.pick(f.stems));
  }
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function regexCondition(random: Random): Condition {
  const f = random.pick(TEXT_FIELDS);
  const stem = escapeRegex(random.pick(f.stems));
  const other = escapeRegex(random.pick(f.stems));
  const patterns = [
    `^${stem}-\\d{1,2}$`,
    `^(${stem}|${other})-[0-9]*${random.int(0, 9)}$`,
    `-${random.int(1, 9)}[0-9]?$`,
    `${stem.slice(0, 3)}.*\\d{3}`,
    `^[a-z]+-?${random.int(0, 9)}`,
  ];
  return c(f.name, 'regex', random.pick(patterns));
}

function booleanCondition(random: Random): Condition {
  return c(FLAG.name, random.chance(0.5) ? 'equals' : 'not_equals', random.chance(0.5) ? 'true' : 'false', 'boolean');
}

/**
 * One non-anchor condition. With the anchors (about one condition in four)
 * the mix over all conditions comes out near the bench method's: 55% equals/in, 20%
 * numeric, 10% affix, 8% negation, 5% regex, 2% boolean.
 */
function mixedCondition(random: Random): Condition {
  const r = random.next();
  if (r < 0.4) return equalityCondition(random);
  if (r < 0.667) return rangeCondition(random);
  if (r < 0.8) return affixCondition(random);
  if (r < 0.907) return negationCondition(random);
  if (r < 0.973) return regexCondition(random);
  return booleanCondition(random);
}

/** A condition that rarely holds by itself (OR groups of free-form rules are built from these). */
function selectiveCondition(random: Random): Condition {
  const r = random.next();
  if (r < 0.7) return equalityCondition(random, true);
  if (r < 0.9) return affixCondition(random);
  return regexCondition(random);
}

function group(operator: LogicalOperator, conditions: Condition[]): ConditionGroup {
  return { condition_operator: operator, conditions };
}

function mixedRule(random: Random): { group_operator: LogicalOperator; condition_groups: ConditionGroup[] } {
  const groups = random.int(1, 2);
  if (random.chance(0.9)) {
    // Anchored: an AND group led by equals/in, as targeting rules are in practice.
    const first = group('AND', [equalityCondition(random, true), ...Array.from({ length: random.int(0, 3) }, () => mixedCondition(random))]);
    if (groups === 1) return { group_operator: 'AND', condition_groups: [first] };
    const second = group(random.chance(0.5) ? 'AND' : 'OR', Array.from({ length: random.int(1, 4) }, () => mixedCondition(random)));
    return { group_operator: 'AND', condition_groups: [first, second] };
  }
  // Free-form: AND groups of 2 to 4 conditions, or OR groups of selective ones.
  const condition_groups = Array.from({ length: groups }, () => random.chance(0.7)
    ? group('AND', Array.from({ length: random.int(2, 4) }, () => mixedCondition(random)))
    : group('OR', Array.from({ length: random.int(1, 3) }, () => selectiveCondition(random))));
  return { group_operator: random.chance(0.8) ? 'AND' : 'OR', condition_groups };
}

/** True for every generated request: conditions on the core fields that every value satisfies. */
function universalRule(random: Random): { group_operator: LogicalOperator; condition_groups: ConditionGroup[] } {
  const system = TEXT_FIELDS.find((f) => f.name === 'gen_ai.system')!;
  const templates: Condition[] = [
    c('gen_ai.system', 'in', system.values.join(',')),
    c('deployment.environment', 'not_equals', 'nowhere'),
    c('gen_ai.request.model', 'contains', '-'),
    c('service.name', 'regex', '-\\d+$'),
  ];
  return { group_operator: 'AND', condition_groups: [group('AND', random.sample(templates, random.int(1, 2)))] };
}

/** "scoped" rules start after this many mixed ones, so the first 10k are the standard 10k. */
export const SCOPED_FROM = 10_000;

/** The standard vocabulary of tenant.id (2,000 values); "scoped" sets larger than 100k widen it. */
const TENANT_FIELD = TEXT_FIELDS.find((f) => f.name === 'tenant.id')!;
const RULES_PER_TENANT = 50;

/**
 * How many tenants a "scoped" set of `rules` spreads its tenant rules over:
 * the standard 2,000 up to 100k rules (so the 100k figures are unchanged),
 * then one tenant per 50 rules (1M: 20,000), with requests drawing tenant.id
 * from the same widened vocabulary (`generateRequests`' `tenants`). With the
 * 2,000 tenants kept, 1M scoped rules answer a mean of 36.6 rules per request
 * (bench: million probe), outside the bench method's 0 to ~20.
 */
export function scopedTenants(rules: number): number {
  return Math.max(TENANT_FIELD.values.length, Math.ceil(rules / RULES_PER_TENANT));
}

/** tenant.id's values when there are `count` tenants: the standard ones first, so 2,000 is the standard vocabulary. */
function tenantValues(count: number): readonly string[] {
  if (count <= TENANT_FIELD.values.length) return TENANT_FIELD.values.slice(0, count);
  return Array.from({ length: count }, (_, i) => `${TENANT_FIELD.stems[0]}-${i}`);
}

/**
 * One tenant's rule: an AND group led by `tenant.id equals <tenant>`, then
 * mixed conditions, and optionally a second group, as an anchored mixed rule
 * has. the bench method's standard keeps a request's answer at 0 to about 20 rules;
 * with fixed vocabularies, 100k "mixed" rules answer ~140, so "scoped" is
 * how the 100k figures are also taken at an answer of standard size.
 */
function scopedRule(random: Random, tenants: readonly string[]): { group_operator: LogicalOperator; condition_groups: ConditionGroup[] } {
  const first = group('AND', [c(TENANT_FIELD.name, 'equals', random.pick(tenants)), ...Array.from({ length: random.int(0, 3) }, () => mixedCondition(random))]);
  if (random.int(1, 2) === 1) return { group_operator: 'AND', condition_groups: [first] };
  const second = group(random.chance(0.5) ? 'AND' : 'OR', Array.from({ length: random.int(1, 4) }, () => mixedCondition(random)));
  return { group_operator: 'AND', condition_groups: [first, second] };
}

function regexOnlyRule(random: Random): { group_operator: LogicalOperator; condition_groups: ConditionGroup[] } {
  const condition_groups = Array.from({ length: random.int(1, 2) }, () =>
    group(random.chance(0.7) ? 'AND' : 'OR', Array.from({ length: random.int(1, 2) }, () => regexCondition(random))));
  return { group_operator: random.chance(0.7) ? 'AND' : 'OR', condition_groups };
}

export interface RuleOptions {
  readonly seed: number;
  readonly count: number;
  readonly shape?: Shape;
  /** Links to attach to rule i (HTTP scenarios); none by default. */
  readonly entities?: (i: number) => EntityLink[];
}

/** `count` rule bodies in the API's shape; same seed and options, same rules. */
export function generateRules(options: RuleOptions): BenchRuleBody[] {
  const random = createRandom(options.seed);
  const shape = options.shape ?? 'mixed';
  const tenants = shape === 'scoped' ? tenantValues(scopedTenants(options.count)) : TENANT_FIELD.values;
  return Array.from({ length: options.count }, (_, i) => {
    const logic = shape === 'regex-only' ? regexOnlyRule(random)
      : shape === 'broad' && i % 10 === 0 ? universalRule(random)
      : shape === 'scoped' && i >= SCOPED_FROM ? scopedRule(random, tenants)
      : mixedRule(random);
    const entities = options.entities?.(i);
    return { name: `bench-rule-${i}`, status: 'ACTIVE', ...logic, ...(entities ? { entities } : {}) };
  });
}

/** The engine's view of generated bodies, with ids `ruleId(0)`, `ruleId(1)`, ... */
export function toDefinitions(bodies: readonly BenchRuleBody[]): RuleDefinition[] {
  return bodies.map((body, i) => ({
    id: ruleId(i),
    status: body.status,
    group_operator: body.group_operator,
    condition_groups: body.condition_groups,
  }));
}

/**
 * A UUID-shaped id for rule i, as the service assigns (contract §1.1 answers
 * rule uuids): the leading groups are a bijective scramble of i, so ids
 * differ early like random UUIDs do (answers are sorted by id; ids sharing
 * a long prefix would make every comparison walk it), and the last group
 * is i itself, so ids are distinct. Same i, same id.
 */
export function ruleId(i: number): string {
  const hex = (n: number, width: number): string => (n >>> 0).toString(16).padStart(width, '0').slice(-width);
  const a = scramble(i ^ 0x5bd1e995);
  const b = scramble(a ^ 0x9e3779b9);
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-8${hex(b >>> 12, 3)}-${hex(Math.floor(i / 2 ** 32), 4)}${hex(i, 8)}`;
}

/** A bijection on 32-bit integers (xorshift-multiply), spreading consecutive inputs. */
function scramble(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * `count` request `fields`: the core fields plus random others, 8 to 15 in
 * all; `tenants` widens tenant.id's vocabulary as a "scoped" rule set of that
 * many tenants has (`scopedTenants`), 2,000 by default.
 */
export function generateRequests(options: { readonly seed: number; readonly count: number; readonly tenants?: number }): Fields[] {
  const random = createRandom(options.seed);
  const tenants = tenantValues(options.tenants ?? TENANT_FIELD.values.length);
  const others = FIELDS.filter((f) => !CORE.includes(f.name));
  return Array.from({ length: options.count }, () => {
    const chosen = [...FIELDS.filter((f) => CORE.includes(f.name)), ...random.sample(others, random.int(8, 15) - CORE.length)];
    const fields: Record<string, FieldValue> = {};
    for (const f of chosen) fields[f.name] = f === TENANT_FIELD ? random.pick(tenants) : randomValue(random, f);
    return fields;
  });
}

function randomValue(random: Random, f: FieldSpec): FieldValue {
  switch (f.kind) {
    case 'string': return random.pick(f.values);
    case 'boolean': return random.chance(0.5);
    // Some clients send numbers as strings; the engine must parse those too.
    case 'number': {
      const n = randomNumber(random, f);
      return random.chance(0.15) ? String(n) : n;
    }
  }
}

/** The workload's own figures, reported with every result. */
export function countConditions(bodies: readonly BenchRuleBody[]): number {
  let n = 0;
  for (const body of bodies) for (const g of body.condition_groups) n += g.conditions.length;
  return n;
}
