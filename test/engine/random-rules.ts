/**
 * Seeded random rules and inputs for the differential tests: a small field
 * set and vocabularies full of corner values (number spellings, booleans as
 * text, unicode, list syntax, invalid operands), so random rules match often
 * and hit the corners the case table pins.
 */
import { OPERATORS, OPERATORS_BY_TYPE, type Condition, type ConditionGroup, type DataType, type LogicalOperator } from '../../src/events/rule-events';
import type { FieldValue, Fields, RuleDefinition } from '../../src/engine/types';

export type Random = () => number;

/** mulberry32: small, fast, good enough for test data; same seed, same sequence. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** A copy of `items` in a seeded random order (Fisher-Yates). */
export function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const FIELDS = ['a', 'b', 'c', 'n', 'm', 'flag', 'constructor'];

const INPUTS: readonly FieldValue[] = [
  'a', 'b', 'ab', 'ba', 'abc', '', ' a', 'A', 'x,y', '😀', 'e\u0301', '\u00e9', 'a\nb',
  '0', '-0', '1', '1.0', '1.5', '-2', '42', '4.2e1', '1e21', '1e400', ' 1', '0x10', 'NaN', '.5', '5.',
  'true', 'false', 'TRUE',
  0, -0, 1, 1.5, -2, 42, 100, 1e21, 0.1, 2.5,
  true, false,
];

const STRING_OPERANDS = ['a', 'b', 'ab', '', '1', 'a,b', ' a , b ', '1, 1.0', 'true', '😀', 'e\u0301', 'x,y'];
// Includes the shapes the regex prefilter reads (anchored runs, literal alternation groups, quantified characters),
// and the shapes of FOUND_REGEX_CASES (cases.ts) that these inputs reach: a negated POSIX class on '😀', a quantified `^`.
const REGEX_OPERANDS = [
  '^a', 'b$', 'a|b', '^\\d+$', '^.$', '(a', 'a.b', '^$', '[😀-😂]', '\\d',
  '^(a|b)b?$', 'ab?', 'a+b$', '(?:ab|ba)', '^a.*b$', 'b{2}', '(a|)b', '^1\\.?0',
  '^[[:^alpha:]]$', '^*b$',
];
const NUMBER_OPERANDS = ['0', '-0', '1', '1.5', '-2', '42', '1e21', '.5', 'x', '', '1,5', '-2, 2', '5,1', '0,0', '1, 1.0, 42'];
const BOOLEAN_OPERANDS = ['true', 'false', 'TRUE'];
const DATA_TYPES: readonly DataType[] = ['string', 'string', 'string', 'number', 'number', 'boolean'];

export function randomCondition(random: Random): Condition {
  const data_type = pick(random, DATA_TYPES);
  // Mostly operators the type admits; sometimes any operator, to keep upsert honest on odd input.
  const operator = random() < 0.95 ? pick(random, OPERATORS_BY_TYPE[data_type]) : pick(random, OPERATORS);
  let value: string;
  if (data_type === 'boolean') value = pick(random, BOOLEAN_OPERANDS);
  else if (data_type === 'number') value = pick(random, NUMBER_OPERANDS);
  else value = operator === 'regex' ? pick(random, REGEX_OPERANDS) : pick(random, STRING_OPERANDS);
  return { field: pick(random, FIELDS), operator, value, data_type };
}

function randomOperator(random: Random): LogicalOperator {
  return random() < 0.5 ? 'AND' : 'OR';
}

export function randomGroup(random: Random): ConditionGroup {
  const n = 1 + Math.floor(random() * 4);
  return { condition_operator: randomOperator(random), conditions: Array.from({ length: n }, () => randomCondition(random)) };
}

export function randomRule(random: Random, id: string): RuleDefinition {
  const n = 1 + Math.floor(random() * 3);
  return {
    id,
    status: random() < 0.9 ? 'ACTIVE' : 'INACTIVE',
    group_operator: randomOperator(random),
    condition_groups: Array.from({ length: n }, () => randomGroup(random)),
  };
}

export function randomFields(random: Random): Fields {
  const fields: Record<string, FieldValue> = {};
  for (const field of FIELDS) if (random() < 0.6) fields[field] = pick(random, INPUTS);
  return fields;
}
