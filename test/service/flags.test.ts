/**
 * The flag mapping as tables (ADR 0057; src/service/flags.ts): how an OFREP
 * context becomes evaluate's fields, what a flag key names, and a flag's
 * answer read off evaluate's answers.
 */
import t from 'tap';
import type { RuleRecord } from '../../projections';
import type { EntityType } from '../../src/events';
import type { EvaluateResponse } from '../../src/service/evaluate';
import { failureStatus, flagsOf, isFlagFailure, lookupFlag, parseFlagContext, resolveFlag, type FlagRef } from '../../src/service/flags';

const LIMITS = { maxFields: 4, maxFieldKeyLength: 12, maxFieldValueLength: 5 };

t.test('parseFlagContext: nesting, null, arrays, variables, limits, duplicates', async (t) => {
  const cases: [string, unknown, unknown][] = [
    ['nested objects are dotted names', { context: { user: { tier: 'gold', n: 2 } } }, { fields: { 'user.tier': 'gold', 'user.n': 2 }, variables: {} }],
    ['null is kept, read as absent', { context: { a: null } }, { fields: { a: null }, variables: {} }],
    ['no context is an empty one', {}, { fields: {}, variables: {} }],
    ['an object `variables` is the prompts\' variables', { context: { variables: { name: 'Ada', deep: { x: [1] } } } }, { fields: {}, variables: { name: 'Ada', deep: { x: [1] } } }],
    ['a `variables` that is no object is a field', { context: { variables: 'v' } }, { fields: { variables: 'v' }, variables: {} }],
    ['a dotted name as given', { context: { 'user.tier': 'gold' } }, { fields: { 'user.tier': 'gold' }, variables: {} }],
    ['booleans and numbers', { context: { on: true, n: 1.5 } }, { fields: { on: true, n: 1.5 }, variables: {} }],
  ];
  for (const [name, body, expected] of cases) t.same(parseFlagContext(body, LIMITS), expected, name);
  const proto = parseFlagContext(JSON.parse('{"context": {"__proto__": "x"}}'), LIMITS);
  t.ok(!isFlagFailure(proto) && Object.hasOwn(proto.fields, '__proto__') && proto.fields.__proto__ === 'x', '__proto__ is a field, not a prototype');

  const failures: [string, unknown, string, RegExp][] = [
    ['not an object', [], 'PARSE_ERROR', /JSON object/],
    ['no body', undefined, 'PARSE_ERROR', /JSON object/],
    ['context not an object', { context: [] }, 'PARSE_ERROR', /context must be a JSON object/],
    ['an array', { context: { user: { tags: ['a'] } } }, 'INVALID_CONTEXT', /context\.user\.tags is an array/],
    ['a name twice', { context: { user: { tier: 'a' }, 'user.tier': 'b' } }, 'INVALID_CONTEXT', /"user\.tier" twice/],
    ['a name twice, dotted first', { context: { 'user.tier': 'b', user: { tier: 'a' } } }, 'INVALID_CONTEXT', /twice/],
    ['too many fields', { context: { a: 1, b: 2, c: { d: 3, e: 4, f: 5 } } }, 'INVALID_CONTEXT', /more than 4 fields/],
    ['a long name', { context: { user: { addresses: 'x' } } }, 'INVALID_CONTEXT', /longer than the limit of 12/],
    ['a long value', { context: { a: 'abcdef' } }, 'INVALID_CONTEXT', /context\.a is longer than the limit of 5/],
    ['nested too deep', { context: nest(40) }, 'INVALID_CONTEXT', /nested deeper than 32/],
    ['variables nested too deep', { context: { variables: nest(40) } }, 'INVALID_CONTEXT', /variables is nested deeper/],
  ];
  for (const [name, body, code, details] of failures) {
    t.match(parseFlagContext(body, { ...LIMITS, maxFieldKeyLength: name === 'nested too deep' ? 1000 : 12 }, 'f'), { key: 'f', errorCode: code, errorDetails: details }, name);
  }
  t.same(Object.keys(parseFlagContext([], LIMITS)), ['errorCode', 'errorDetails'], 'without a key (bulk), none in the failure');
});

function nest(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { v: 1 };
  for (let i = 0; i < levels; i++) value = { n: value };
  return value;
}

function rule(overrides: Partial<RuleRecord>): RuleRecord {
  return {
    id: 'r1', name: 'r', description: '', status: 'ACTIVE', group_operator: 'AND', condition_groups: [], entities: [],
    created_by: 'me', created_at: '', updated_at: '', revision: 3n, position: 9n, ...overrides,
  };
}

const split = { entity_type: 'context' as const, bucket_by: 'targetingKey', variants: [{ name: 'a', entity_id: 'c1', weight: 50 }, { name: 'b', entity_id: 'c2', weight: 50 }] };
const plain = rule({ key: 'beta', entities: [{ entity_type: 'prompt', entity_id: 'p1' }, { entity_type: 'evaluation', entity_id: 'e1' }] });
const splitRule = rule({ key: 'theme', entities: [{ entity_type: 'context', entity_id: 'c1' }, { entity_type: 'context', entity_id: 'c2' }], splits: [split] });
const byKey = new Map([['beta', plain], ['theme', splitRule], ['off', rule({ key: 'off', status: 'INACTIVE' })]]);
const ruleOf = (key: string) => byKey.get(key);

t.test('lookupFlag and flagsOf: what a key names', async (t) => {
  const cases: [string, unknown][] = [
    ['beta', { type: 'boolean', entityType: 'context' }],
    ['theme', { type: 'string', entityType: 'context' }],
    ['beta:prompt', { type: 'object', entityType: 'prompt' }],
    ['beta:evaluation', { type: 'object', entityType: 'evaluation' }],
    ['theme:context', { type: 'object', entityType: 'context' }],
    ['nope', { errorCode: 'FLAG_NOT_FOUND', errorDetails: /no rule has the key "nope"/ }],
    ['beta:context', { errorCode: 'FLAG_NOT_FOUND', errorDetails: /links no context/ }],
    ['beta:dataset', { errorCode: 'FLAG_NOT_FOUND', errorDetails: /one of context, prompt, evaluation/ }],
    ['a:b:prompt', { errorCode: 'FLAG_NOT_FOUND', errorDetails: /"a:b"/ }],
  ];
  for (const [key, expected] of cases) t.match(lookupFlag(key, ruleOf), { key, ...(expected as object) }, key);
  t.same(flagsOf(plain).map((f) => f.key), ['beta', 'beta:prompt', 'beta:evaluation'], 'own flag, then one per linked type in type order');
  t.same(flagsOf(rule({})), [], 'a rule without a key is no flag');
  t.same([failureStatus('FLAG_NOT_FOUND'), failureStatus('INVALID_CONTEXT'), failureStatus('PARSE_ERROR'), failureStatus('TARGETING_KEY_MISSING'), failureStatus('GENERAL')], [404, 400, 400, 400, 500]);
});

t.test('resolveFlag: reasons, values, defaults and errors', async (t) => {
  const ctx = (fields: Record<string, string>) => ({ fields, variables: {} });
  const link = (entity_type: EntityType, entity_id: string, variant: string | null, reason: 'TARGETING_MATCH' | 'SPLIT' | 'DEFAULT') =>
    ({ rule_id: 'r1', entity_type, entity_id, variant, reason });
  const answers = (response: EvaluateResponse) => () => response;
  const metadata = { rule_id: 'r1', revision: 3, position: '12' };
  const none: EvaluateResponse = { matchingRuleIds: [], entities: [] };
  const ref = (key: string) => lookupFlag(key, ruleOf) as FlagRef;
  const cases: [string, string, Record<string, string>, EvaluateResponse, unknown][] = [
    ['boolean match', 'beta', {}, { matchingRuleIds: ['r1'], entities: [] }, { key: 'beta', value: true, variant: 'on', reason: 'TARGETING_MATCH', metadata }],
    ['boolean no match', 'beta', {}, none, { key: 'beta', value: false, variant: 'off', reason: 'DEFAULT', metadata }],
    ['inactive', 'off', {}, none, { key: 'off', reason: 'DISABLED', metadata }],
    ['split chose', 'theme', { targetingKey: 'u' }, { matchingRuleIds: ['r1'], entities: [link('context', 'c2', 'b', 'SPLIT')] }, { key: 'theme', value: 'b', variant: 'b', reason: 'SPLIT', metadata }],
    ['split not matching', 'theme', { targetingKey: 'u' }, none, { key: 'theme', reason: 'DEFAULT', metadata }],
    ['split, chosen entity inactive', 'theme', { targetingKey: 'u' }, { matchingRuleIds: ['r1'], entities: [] }, { key: 'theme', reason: 'DEFAULT', metadata }],
    ['split without its field', 'theme', {}, { matchingRuleIds: ['r1'], entities: [link('context', 'c1', 'a', 'DEFAULT')] }, { key: 'theme', errorCode: 'TARGETING_KEY_MISSING', errorDetails: /"targetingKey"/ }],
    ['split without its field, bucket 0 inactive', 'theme', {}, { matchingRuleIds: ['r1'], entities: [] }, { key: 'theme', errorCode: 'TARGETING_KEY_MISSING' }],
    ['object: the record', 'beta:prompt', {}, { matchingRuleIds: ['r1'], entities: [link('prompt', 'p1', null, 'TARGETING_MATCH')], entity_data: { 'prompt:p1': { id: 'p1', compiled_prompt: 'hi' } } },
      { key: 'beta:prompt', value: { id: 'p1', compiled_prompt: 'hi' }, variant: 'p1', reason: 'TARGETING_MATCH', metadata }],
    ['object: the version does not exist', 'beta:prompt', {}, { matchingRuleIds: ['r1'], entities: [link('prompt', 'p1', null, 'TARGETING_MATCH')], entity_data: { 'prompt:p1': null } }, { key: 'beta:prompt', reason: 'DEFAULT', metadata }],
    ['object: an evaluation id', 'beta:evaluation', {}, { matchingRuleIds: ['r1'], entities: [link('evaluation', 'e1', null, 'TARGETING_MATCH')] }, { key: 'beta:evaluation', value: { id: 'e1' }, variant: 'e1', reason: 'TARGETING_MATCH', metadata }],
    ['object of a split: the chosen record', 'theme:context', { targetingKey: 'u' }, { matchingRuleIds: ['r1'], entities: [link('context', 'c1', 'a', 'SPLIT')], entity_data: { 'context:c1': { id: 'c1' } } },
      { key: 'theme:context', value: { id: 'c1' }, variant: 'a', reason: 'SPLIT', metadata }],
  ];
  for (const [name, key, fields, response, expected] of cases) {
    const answer = resolveFlag(ref(key), ctx(fields), answers(response), 12n);
    if (isFlagFailure(answer)) t.match(answer, expected as object, name);
    else t.same(answer, expected, name);
  }
  let asked = 0;
  resolveFlag(ref('off'), ctx({}), () => (asked++, none), 12n);
  t.equal(asked, 0, 'an inactive flag evaluates nothing');
  t.match(resolveFlag(ref('beta'), ctx({}), answers(none), undefined), { metadata: { position: '' } }, 'the empty log: no position');
});
