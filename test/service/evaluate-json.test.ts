/**
 * The evaluate endpoint's JSON is assembled by hand from quoted pieces each
 * rule record keeps (src/service/evaluate.ts, evaluateWithJson): it must be
 * JSON.stringify's text byte for byte, with the byte count the
 * Content-Length header carries, whatever the ids hold (quotes, backslashes,
 * control characters, non-ASCII, surrogate pairs, lone surrogates), and the
 * pieces kept for a record must not outlive it.
 */
import t from 'tap';
import type { ContextRecord, RuleRecord } from '../../projections';
import { initialPrompts } from '../../projections/prompts';
import { DEFAULTS } from '../../src/base/config';
import { createEngine } from '../../src/engine';
import type { EntityType } from '../../src/events';
import { evaluate, evaluateWithJson, type EvaluateRequest, type EvaluationState } from '../../src/service/evaluate';

const ODD_IDS = ['plain-0195a1b2', 'quote"and\\slash', 'line\nbreak\u0001', 'caf\u00e9', 'emoji\u{1F600}', 'lone\ud800', 'z-last'];

function rule(id: string, links: [EntityType, string][], value = 'y'): RuleRecord {
  return {
    id, status: 'ACTIVE', group_operator: 'AND',
    condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'x', value, data_type: 'string', operator: 'equals' }] }],
    entities: links.map(([entity_type, entity_id]) => ({ entity_type, entity_id })),
  } as unknown as RuleRecord;
}

function context(id: string, status: 'ACTIVE' | 'INACTIVE'): ContextRecord {
  return {
    id, name: `n ${id}`, description: '', content: `c ${id}`, tags: [], meta_properties: {}, status,
    created_by: 'test', created_at: '2026-11-24T00:00:00.000Z', updated_at: '2026-11-24T00:00:00.000Z',
  } as unknown as ContextRecord;
}

function request(entityType: EntityType, value: string, includeEntityData = false): EvaluateRequest {
  return { entityType, fields: { x: value }, includeEntityData, variables: {}, version: undefined, label: undefined, shouldCompile: true, strict: false, atMs: 0 };
}

function setUp() {
  const engine = createEngine();
  const rules = new Map<string, RuleRecord>();
  const contexts = new Map<string, ContextRecord>();
  for (const [i, id] of ODD_IDS.entries()) {
    // Links in no particular order, to a live, an inactive and a missing context, and to other types.
    const record = rule(id, [['context', `ctx-${i}-b\u00e9`], ['context', `ctx-${i}-a"`], ['context', `ctx-${i}-off`], ['context', 'missing'], ['evaluation', `ev-${i}\\`], ['prompt', 'no-such-prompt']]);
    rules.set(id, record);
    engine.upsert(record);
    for (const suffix of ['-b\u00e9', '-a"']) contexts.set(`ctx-${i}${suffix}`, context(`ctx-${i}${suffix}`, 'ACTIVE'));
    contexts.set(`ctx-${i}-off`, context(`ctx-${i}-off`, 'INACTIVE'));
  }
  const state: EvaluationState = { rules, contexts, prompts: initialPrompts() };
  return { engine, state, rules };
}

t.test('the text is JSON.stringify of the answer, and its byte count is exact', async (t) => {
  const { engine, state } = setUp();
  for (const type of ['context', 'evaluation', 'prompt'] as const) {
    // Twice: the second answer is built from the pieces the first one kept.
    for (const round of [1, 2]) {
      const answer = evaluateWithJson(state, engine, request(type, 'y'), DEFAULTS.limits);
      t.equal(answer.json, JSON.stringify(answer.response), `${type}, round ${round}`);
      t.equal(answer.jsonBytes, Buffer.byteLength(answer.json), `${type}, round ${round}: bytes`);
      t.same(answer.response, evaluate(state, engine, request(type, 'y'), DEFAULTS.limits), `${type}: the same answer as evaluate`);
      t.equal(answer.response.matchingRuleIds.length, ODD_IDS.length);
    }
  }
  const contexts = evaluateWithJson(state, engine, request('context', 'y'), DEFAULTS.limits).response.entities;
  t.equal(contexts.length, 2 * ODD_IDS.length, 'only the live contexts are linked');
  // 'caf\u00e9' sorts first of the rule ids (ODD_IDS[3]); its links in id order.
  t.same(contexts.slice(0, 2).map((e) => e.entity_id), ['ctx-3-a"', 'ctx-3-b\u00e9']);
});

t.test('no match, and entity data', async (t) => {
  const { engine, state } = setUp();
  const none = evaluateWithJson(state, engine, request('context', 'nothing'), DEFAULTS.limits);
  t.equal(none.json, '{"matchingRuleIds":[],"entities":[]}');
  t.equal(none.jsonBytes, none.json.length);
  const withData = evaluateWithJson(state, engine, request('context', 'y', true), DEFAULTS.limits);
  t.ok(withData.response.entity_data !== undefined && Object.keys(withData.response.entity_data).length === 2 * ODD_IDS.length);
  t.equal(withData.json, JSON.stringify(withData.response));
  t.equal(withData.jsonBytes, Buffer.byteLength(withData.json));
});

t.test('a changed rule record answers with its new links and id', async (t) => {
  const { engine, state, rules } = setUp();
  evaluateWithJson(state, engine, request('context', 'y'), DEFAULTS.limits);
  // The read model replaces a record on change: the new one links one other context.
  const changed = rule('caf\u00e9', [['context', 'ctx-0-a"']]);
  rules.set(changed.id, changed);
  engine.upsert(changed);
  const answer = evaluateWithJson(state, engine, request('context', 'y'), DEFAULTS.limits);
  t.equal(answer.json, JSON.stringify(answer.response));
  t.same(answer.response.entities.filter((e) => e.rule_id === 'caf\u00e9'), [{ rule_id: 'caf\u00e9', entity_type: 'context', entity_id: 'ctx-0-a"', variant: null, reason: 'TARGETING_MATCH' }]);
});
