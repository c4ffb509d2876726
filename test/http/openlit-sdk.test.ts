/**
 * Black-box: OpenLIT's own TypeScript SDK (`openlit` 1.15.0,
 * `RuleEngine.evaluateRule`, published as `openlit.evaluateRule`) against a
 * real node whose rules have splits (issue 65 item 4; docs/splits.md#answers).
 * The SDK returns evaluate's JSON as it came, so a split's answer reaches the
 * SDK's caller with the chosen variant's entity, and `variant` and `reason`
 * pass through beside the members its types declare; a plain link answers as
 * it always did. The SDK needs no `openlit.init` for this (init sets up the
 * tracer and exporters; evaluateRule reads only its options and two
 * variables), and every request it makes is checked to go to the node.
 */
import t, { type Test } from 'tap';
import openlit from 'openlit';
import { flagdFractional, sampleKeys, type Weighted } from '../support/flagd';
import { call } from '../support/http';
import { forCells } from '../support/matrix';
import { withNode } from '../support/with-node';

// The SDK prefers OPENLIT_URL and OPENLIT_API_KEY to its options: neither may send it elsewhere.
delete process.env.OPENLIT_URL;
delete process.env.OPENLIT_API_KEY;

const EVALUATE = '/api/rule-engine/evaluate';

type SdkOptions = Parameters<typeof openlit.evaluateRule>[0];

interface Link {
  readonly rule_id: string;
  readonly entity_type: string;
  readonly entity_id: string;
  readonly variant: string | null;
  readonly reason: string;
}

/** The SDK's answer to `options`, and every URL it fetched meanwhile (the global fetch, passed through as it is). */
async function viaSdk(options: SdkOptions): Promise<{ answer: any; fetched: string[] }> {
  const fetched: string[] = [];
  const real = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    fetched.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return real(input, init);
  };
  try {
    return { answer: await openlit.evaluateRule(options), fetched };
  } finally {
    globalThis.fetch = real;
  }
}

forCells(t, 'openlit-sdk', (t, cell) => {
  const live = withNode(t, { cell });
  let apiKey: string;
  const contexts: Record<string, string> = {};
  const rules: Record<string, string> = {};
  let promptId: string;
  const weights: Weighted[] = [['a', 3], ['b', 7]];
  /** The SDK's call against this node, with the evaluate key; asserts it fetched the node's evaluate and nothing else. */
  const sdk = async (t: Test, options: Omit<SdkOptions, 'url' | 'apiKey'>) => {
    const { answer, fetched } = await viaSdk({ url: live.url, apiKey, ...options });
    t.same(fetched, [`${live.url}${EVALUATE}`], 'the SDK fetched the node\'s evaluate, once, and nothing else');
    t.notOk('err' in answer, `the SDK reports no error: ${answer.err ?? ''}`);
    return answer;
  };

  t.before(async () => {
    apiKey = (await live.admin.post('/api/api-keys', { name: 'openlit sdk', scopes: ['evaluate'] })).json.key;
    for (const name of ['plain', 'a', 'b']) {
      contexts[name] = (await live.admin.post('/api/contexts', { name: `sdk ${name}`, content: `the ${name} context` })).json.id;
    }
    const created = async (body: Record<string, unknown>) => {
      const answer = await live.admin.post('/api/rule-engine/rules', body);
      if (answer.status !== 201) throw new Error(answer.text);
      return answer.json.id as string;
    };
    rules.split = await created({
      name: 'sdk split', key: 'sdk-context', condition_groups: [{ conditions: [{ field: 'app', operator: 'equals', value: 'sdk' }] }],
      entities: ['plain', 'a', 'b'].map((name) => ({ entity_type: 'context', entity_id: contexts[name] })),
      splits: [{ entity_type: 'context', bucket_by: 'user.id', variants: weights.map(([name, weight]) => ({ name, entity_id: contexts[name], weight })) }],
    });
    rules.plain = await created({
      name: 'sdk plain', condition_groups: [{ conditions: [{ field: 'app', operator: 'equals', value: 'plain' }] }],
      entities: [{ entity_type: 'context', entity_id: contexts.plain }],
    });
    promptId = (await live.admin.post('/api/prompts', { name: 'sdk-reply', prompt: 'v1: Hi {{name}}' })).json.id;
    await live.admin.post(`/api/prompts/${promptId}/versions`, { prompt: 'v2: Hello {{name}}' });
    rules.prompt = await created({
      name: 'sdk prompt', key: 'sdk-prompt', condition_groups: [{ conditions: [{ field: 'app', operator: 'equals', value: 'sdk-prompt' }] }],
      entities: [{ entity_type: 'prompt', entity_id: promptId }],
      splits: [{
        entity_type: 'prompt', bucket_by: 'user.id',
        variants: [{ name: 'v1', entity_id: promptId, version: '1.0.0', weight: 1 }, { name: 'v2', entity_id: promptId, version: '1.1.0', weight: 1 }],
      }],
    });
  });

  t.test("a split's answer through the SDK: the chosen variant's entity, with variant and reason passed through", async (t) => {
    const keys = sampleKeys(60);
    const flagd = flagdFractional('sdk-context', weights);
    const wrong: string[] = [];
    const seen = new Set<string>();
    for (const key of keys) {
      const { answer, fetched } = await viaSdk({ url: live.url, apiKey, entityType: 'context', fields: { app: 'sdk', 'user.id': key }, includeEntityData: true });
      const direct = await call(live.url, 'POST', EVALUATE, { key: apiKey, body: { entity_type: 'context', fields: { app: 'sdk', 'user.id': key }, include_entity_data: true } });
      const variant = flagd(key);
      seen.add(variant);
      const expected: Link[] = [
        { rule_id: rules.split!, entity_type: 'context', entity_id: contexts.plain!, variant: null, reason: 'TARGETING_MATCH' },
        { rule_id: rules.split!, entity_type: 'context', entity_id: contexts[variant]!, variant, reason: 'SPLIT' },
      ].sort((x, y) => (x.entity_id < y.entity_id ? -1 : 1));
      const ok = fetched.length === 1 && !('err' in answer)
        && JSON.stringify(answer) === JSON.stringify(direct.json)
        && JSON.stringify(answer.matchingRuleIds) === JSON.stringify([rules.split])
        && JSON.stringify(answer.entities) === JSON.stringify(expected)
        && JSON.stringify(Object.keys(answer.entity_data).sort()) === JSON.stringify(expected.map((e) => `context:${e.entity_id}`).sort())
        && answer.entity_data[`context:${contexts[variant]}`]?.content === `the ${variant} context`;
      if (!ok) wrong.push(`${key}: ${JSON.stringify(answer).slice(0, 400)}`);
    }
    t.same(wrong, [], `${keys.length} keys: the SDK's answer is the node's, the plain link and flagd's variant with its entity_data`);
    t.same([...seen].sort(), ['a', 'b'], 'both variants occur');

    const answer = await sdk(t, { entityType: 'context', fields: { app: 'sdk', 'user.id': 'user-7' } });
    t.same(Object.keys(answer).sort(), ['entities', 'matchingRuleIds'], 'without includeEntityData the SDK sends false: no entity_data');
    for (const link of answer.entities as Link[]) {
      t.same(Object.keys(link), ['rule_id', 'entity_type', 'entity_id', 'variant', 'reason'], 'the members the SDK declares, then the two it passes through');
    }
    const without = await sdk(t, { entityType: 'context', fields: { app: 'sdk' } });
    t.same((without.entities as Link[]).filter((e) => e.reason !== 'TARGETING_MATCH'),
      [{ rule_id: rules.split, entity_type: 'context', entity_id: contexts.a, variant: 'a', reason: 'DEFAULT' }],
      'no bucketing field: the first variant with weight, reason DEFAULT');
  });

  t.test("a prompt split through the SDK: entity_data renders the chosen variant's version with the SDK's entityInputs", async (t) => {
    const flagd = flagdFractional('sdk-prompt', [['v1', 1], ['v2', 1]]);
    const seen = new Set<string>();
    for (const key of sampleKeys(8)) {
      const answer = await sdk(t, {
        entityType: 'prompt', fields: { app: 'sdk-prompt', 'user.id': key }, includeEntityData: true, entityInputs: { variables: { name: 'Ada' } },
      });
      const variant = flagd(key);
      seen.add(variant);
      t.same(answer.entities, [{ rule_id: rules.prompt, entity_type: 'prompt', entity_id: promptId, variant, reason: 'SPLIT' }], `${key}: flagd's ${variant}`);
      t.match(answer.entity_data[`prompt:${promptId}`], {
        version: variant === 'v1' ? '1.0.0' : '1.1.0', compiled_prompt: variant === 'v1' ? 'v1: Hi Ada' : 'v2: Hello Ada',
      }, `${key}: the version ${variant} names, compiled`);
    }
    t.same([...seen].sort(), ['v1', 'v2'], 'both variants occur');
  });

  t.test('a plain-link rule answers the SDK as before: the members its types declare, variant null, TARGETING_MATCH', async (t) => {
    const answer = await sdk(t, { entityType: 'context', fields: { app: 'plain' }, includeEntityData: true });
    t.same(answer.matchingRuleIds, [rules.plain]);
    t.same(answer.entities, [{ rule_id: rules.plain, entity_type: 'context', entity_id: contexts.plain, variant: null, reason: 'TARGETING_MATCH' }]);
    t.match(answer.entity_data, { [`context:${contexts.plain}`]: { id: contexts.plain, name: 'sdk plain', content: 'the plain context' } });
    const none = await sdk(t, { entityType: 'context', fields: { app: 'nothing' } });
    t.same(none, { matchingRuleIds: [], entities: [] }, 'no match: the empty answer');
  });
});
