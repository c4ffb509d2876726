/**
 * Black-box: local evaluation in the client (issue 16 item 4,
 * docs/client.md#local-evaluation). A differential test: the same seeded requests through the
 * client (in-process, from the change stream) and through the real service
 * over HTTP, with seeded rule, context and prompt changes in between, must
 * answer identically once the client holds the change's position (the
 * RuleVault-Position header of the admin write). Then: the client keeps
 * answering while the service is down, says how stale it is, and resumes.
 */
import t, { type Test } from 'tap';
import { checkConditionGroups } from '../../src/engine';
import { createLocalEvaluator, type LocalEvaluateRequest, type LocalEvaluator } from '../../src/client/local';
import { randomFields, randomRule, pick, seededRandom, type Random } from '../engine/random-rules';
import { client, type Answer, type Client } from '../support/http';
import { freePort } from '../support/process';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { startSlowProxy } from '../support/slow-proxy';
import { perSeed, replayHint, testSeeds } from '../support/seeds';
import { forCells, type Cell } from '../support/matrix';
import { withNode } from '../support/with-node';

async function evaluateKey(admin: Client): Promise<string> {
  const answer = await admin.post('/api/api-keys', { name: 'local evaluation', scopes: ['evaluate'] });
  return answer.json.key;
}

/** The HTTP answer in the client's shape. */
function asLocal(answer: Answer): unknown {
  return answer.status === 200 ? { err: null, ...answer.json } : { err: answer.json.err, status: answer.status, code: answer.json.code };
}

// On both stores: the change stream the client follows is read from each (issue 65: split rules too).
t.test('differential: the client answers as the service does, once it holds the change', async (t) => forCells(t, 'local', differential));

function differential(t: Test, cell: Cell): void {
  const live = withNode(t, { cell });
  const admin = live.admin;
  let local: LocalEvaluator;
  let evaluator: Client;
  t.before(async () => {
    const key = await evaluateKey(admin);
    evaluator = live.clientFor(key);
    local = createLocalEvaluator({ url: live.url, apiKey: key, reconnectMs: 50 });
    await local.ready();
  });
  t.teardown(() => local.close());

  const contexts: string[] = [];
  const prompts: string[] = [];
  const rules: string[] = [];
  let compared = 0;
  let matched = 0;
  let linked = 0;
  let split = 0;
  // The splits' own stream: the seeded scenario of the other changes and requests stays what it was without them.
  let splitting: Random = seededRandom(0);

  const links = (random: Random) => {
    const out: { entity_type: string; entity_id: string }[] = [];
    if (contexts.length > 0 && random() < 0.7) out.push({ entity_type: 'context', entity_id: pick(random, contexts) });
    if (prompts.length > 0 && random() < 0.6) out.push({ entity_type: 'prompt', entity_id: pick(random, prompts) });
    if (random() < 0.3) out.push({ entity_type: 'evaluation', entity_id: `evaluation-${Math.floor(random() * 3)}` });
    return out;
  };

  /** A seeded rule the service accepts (the engine's own write-time check), short enough to match often. */
  function validRule(random: Random) {
    for (;;) {
      const rule = randomRule(random, 'unused');
      const groups = rule.condition_groups.slice(0, 1 + Math.floor(random() * 2))
        .map((group) => ({ ...group, conditions: group.conditions.slice(0, 2) }));
      if (checkConditionGroups(groups).length === 0) return { ...rule, condition_groups: groups };
    }
  }

  /** One seeded admin write; its RuleVault-Position, or undefined when the service refused it (a random rule may be invalid). */
  async function change(random: Random, step: number): Promise<string | undefined> {
    const kind = pick(random, ['rule', 'rule', 'rule', 'patch-rule', 'delete-rule', 'context', 'patch-context', 'prompt', 'prompt-version', 'patch-prompt']);
    let answer: Answer;
    switch (kind) {
      case 'rule':
      case 'patch-rule': {
        const { status, group_operator, condition_groups } = validRule(random);
        const entities = links(random);
        const body = { name: `rule ${step}`, status, group_operator, condition_groups, entities, ...(splitting() < 0.6 ? withSplit(splitting, entities) : {}) };
        if (kind === 'patch-rule' && rules.length > 0) {
          answer = await admin.patch(`/api/rule-engine/rules/${pick(random, rules)}`, random() < 0.5 ? body : { status: random() < 0.5 ? 'ACTIVE' : 'INACTIVE' });
        } else {
          answer = await admin.post('/api/rule-engine/rules', body);
          if (answer.status === 201) rules.push(answer.json.id);
        }
        break;
      }
      case 'delete-rule': {
        if (rules.length === 0) return undefined;
        const id = rules.splice(Math.floor(random() * rules.length), 1)[0];
        answer = await admin.delete(`/api/rule-engine/rules/${id}`);
        break;
      }
      case 'context':
        answer = await admin.post('/api/contexts', { name: `context ${step}`, content: `content ${step}`, tags: ['t'], meta_properties: { step: String(step) } });
        if (answer.status === 201) contexts.push(answer.json.id);
        break;
      case 'patch-context':
        if (contexts.length === 0) return undefined;
        answer = await admin.patch(`/api/contexts/${pick(random, contexts)}`, random() < 0.5 ? { status: random() < 0.5 ? 'ACTIVE' : 'INACTIVE' } : { content: `changed at ${step}` });
        break;
      case 'prompt':
        answer = await admin.post('/api/prompts', { name: `prompt ${step}`, prompt: 'Hello {{name}}{{#if vip}}, welcome back{{/if}} ({{step}})' });
        if (answer.status === 201) prompts.push(answer.json.id);
        break;
      case 'prompt-version':
        if (prompts.length === 0) return undefined;
        answer = await admin.post(`/api/prompts/${pick(random, prompts)}/versions`, { prompt: `Version at ${step} for {{name}}` });
        break;
      default:
        if (prompts.length === 0) return undefined;
        answer = await admin.patch(`/api/prompts/${pick(random, prompts)}`, { status: random() < 0.5 ? 'ACTIVE' : 'INACTIVE' });
    }
    return answer.status < 300 ? answer.headers.get('rulevault-position') ?? undefined : undefined;
  }

  /**
   * A split over a second link of the type of one the rule has (issue 65): seeded weights, a bucketing field the
   * requests may carry, and now and then a prompt variant's version or a stepped schedule whose step in force
   * lasts the whole run (the client reads a schedule at its own clock, the service at its own).
   */
  function withSplit(random: Random, entities: { entity_type: string; entity_id: string }[]) {
    const link = entities.find((l) => l.entity_type !== 'evaluation' && (l.entity_type === 'context' ? contexts : prompts).length > 1);
    if (link === undefined) return {};
    const pool = link.entity_type === 'context' ? contexts : prompts;
    const other = pool.find((id) => id !== link.entity_id)!;
    entities.push({ entity_type: link.entity_type, entity_id: other });
    const weights = [Math.floor(random() * 10), 1 + Math.floor(random() * 10)];
    const variants = [link.entity_id, other].map((entity_id, i) => ({
      name: `v${i}`, entity_id, weight: weights[i]!, ...(link.entity_type === 'prompt' && random() < 0.5 ? { version: '1.0.0' } : {}),
    }));
    const hour = 3_600_000;
    const schedule = random() < 0.3
      ? { schedule: { start: new Date(Date.now() - hour).toISOString(), end: new Date(Date.now() + hour).toISOString(), weights: { v0: 1, v1: 0 }, steps: 2 } }
      : {};
    return { splits: [{ entity_type: link.entity_type, bucket_by: pick(random, ['targetingKey', 'user.id']), variants, ...schedule }] };
  }

  function request(random: Random): LocalEvaluateRequest | Record<string, unknown> {
    if (random() < 0.05) return { entity_type: 'dataset', fields: {} };
    if (random() < 0.05) return { entity_type: 'context', fields: { bad: [1] } };
    const inputs: Record<string, unknown> = {};
    if (random() < 0.5) inputs.variables = random() < 0.5 ? { name: 'Ada', vip: true, step: 7 } : { name: 'Bob' };
    if (random() < 0.3) inputs.version = pick(random, ['1.0.0', '1.1.0', '1.2.0', '9.9.9']);
    if (random() < 0.3) inputs.shouldCompile = random() < 0.5;
    return {
      entity_type: pick(random, ['context', 'prompt', 'evaluation'] as const),
      fields: { ...randomFields(random), ...(splitting() < 0.8 ? { [pick(splitting, ['targetingKey', 'user.id'])]: `user-${Math.floor(splitting() * 40)}` } : {}) },
      include_entity_data: random() < 0.6,
      ...(Object.keys(inputs).length > 0 ? { entity_inputs: inputs } : {}),
    };
  }

  t.test('seeded changes and requests', async (t) => {
    for (const seed of testSeeds()) {
      const random = seededRandom(seed);
      splitting = seededRandom(seed ^ 0x65);
      for (let step = 0; step < perSeed(90); step++) {
        const position = await change(random, step);
        if (position !== undefined) await local.waitFor(position);
        for (let k = 0; k < 4; k++) {
          const body = request(random);
          const remote = asLocal(await evaluator.post('/api/rule-engine/evaluate', body));
          const answer = local.evaluate(body as LocalEvaluateRequest);
          compared++;
          if ('entities' in answer && answer.entities.length > 0) linked++;
          if ('entities' in answer && answer.entities.some((e) => e.reason !== 'TARGETING_MATCH')) split++;
          if (JSON.stringify(answer) === JSON.stringify(remote)) matched++;
          else t.same(answer, remote, `${replayHint(seed)}, step ${step}: ${JSON.stringify(body)}`);
        }
      }
    }
    t.equal(matched, compared, `all ${compared} answers identical`);
    t.ok(rules.length > 10 && contexts.length > 3 && prompts.length > 3, `the scenario built a rule set worth comparing (${rules.length} rules, ${contexts.length} contexts, ${prompts.length} prompts)`);
    t.ok(linked > compared / 10, `answers with linked entities: ${linked} of ${compared}`);
    t.ok(split > compared / 20, `answers with a split's choice: ${split} of ${compared}`);
  });
}

t.test('a null field is an absent one, locally as on the service: its conditions are false, negations too', async (t) => {
  const env = testEnv(tempDir());
  const node = await startTestNode(env);
  t.teardown(async () => {
    await node.stop();
    removeDir(env.RULEVAULT_DATA_DIR!);
  });
  const live = { url: node.url, admin: client(node.url, node.adminKey), clientFor: (k: string) => client(node.url, k) };
  const key = await evaluateKey(live.admin);
  const not = await live.admin.post('/api/rule-engine/rules', { name: 'not gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'not_equals', value: 'gold' }] }] });
  const either = await live.admin.post('/api/rule-engine/rules', {
    name: 'not gold or EU', group_operator: 'OR',
    condition_groups: [{ conditions: [{ field: 'tier', operator: 'not_in', value: 'gold,silver' }] }, { conditions: [{ field: 'region', operator: 'equals', value: 'EU' }] }],
  });
  const local = createLocalEvaluator({ url: live.url, apiKey: key, reconnectMs: 50 });
  t.teardown(() => local.close());
  await local.waitFor(either.headers.get('rulevault-position')!);
  const cases: [LocalEvaluateRequest['fields'], string[]][] = [
    [{ tier: null }, []],
    [{ tier: null, region: 'EU' }, [either.json.id]],
    [{ tier: 'bronze' }, [not.json.id, either.json.id].sort()],
  ];
  for (const [fields, expected] of cases) {
    const body: LocalEvaluateRequest = { entity_type: 'context', fields };
    const remote = await live.clientFor(key).post('/api/rule-engine/evaluate', body);
    t.equal(remote.status, 200, JSON.stringify(fields));
    t.same(remote.json.matchingRuleIds, expected, `the service: ${JSON.stringify(fields)}`);
    t.same(local.evaluate(body), asLocal(remote), `the client: ${JSON.stringify(fields)}`);
  }
});

t.test('before its first rule set the client answers 503 unavailable, as the service does before it is ready', async (t) => {
  const local = createLocalEvaluator({ url: `http://127.0.0.1:${await freePort()}`, apiKey: 'rv_unused', reconnectMs: 1000 });
  t.teardown(() => local.close());
  t.match(local.evaluate({ entity_type: 'context', fields: {} }), { err: /^no rule set yet from http:\/\/127\.0\.0\.1:\d+/, status: 503, code: 'unavailable' });
});

t.test('settings and positions that cannot work are refused with their names, never taken as a wait of 1 ms or a reconnect loop', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  t.throws(() => createLocalEvaluator({ url, apiKey: 'k', reconnectMs: 0 }), new RangeError('reconnectMs must be a whole number of milliseconds from 1 to 2147483647, not 0'));
  t.throws(() => createLocalEvaluator({ url, apiKey: 'k', idleTimeoutMs: NaN }), { name: 'RangeError', message: /^idleTimeoutMs .* not NaN$/ });
  t.throws(() => createLocalEvaluator({ url, apiKey: 'k', reconnectMs: 500, maxReconnectMs: 100 }), { message: /^maxReconnectMs must be a whole number of milliseconds from 500 to/ });
  const local = createLocalEvaluator({ url, apiKey: 'k', reconnectMs: 1000 });
  t.teardown(() => local.close());
  for (const position of ['abc', '', ' 1', '0x1f', '-1', -1n, 1.5]) {
    await t.rejects(local.waitFor(position as string, 10), { name: 'TypeError', message: /^position must be a log position/ }, `position ${JSON.stringify(String(position))}`);
  }
  await t.rejects(local.waitFor('5', 2 ** 31), new RangeError('timeoutMs must be a whole number of milliseconds from 0 to 2147483647, not 2147483648'));
  await t.rejects(local.ready(NaN), { name: 'RangeError', message: /^timeoutMs .* not NaN$/ });
  await t.rejects(local.waitFor(7 as unknown as string, 0), { message: /^position 7 not reached within 0 ms \(no rule set yet/ }, 'a plain number is a position');
});

t.test('the service goes away: the client keeps answering, says how stale it is, and resumes', async (t) => {
  const env = testEnv(tempDir(), { RULEVAULT_STREAM_HEARTBEAT_MS: '50' });
  t.teardown(() => removeDir(env.RULEVAULT_DATA_DIR!));
  let node = await startTestNode(env);
  const admin = client(() => node.url, node.adminKey);
  const key = await evaluateKey(admin);
  const ctx = await admin.post('/api/contexts', { name: 'c', content: 'kept' });
  const rule = await admin.post('/api/rule-engine/rules', {
    name: 'r', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }], entities: [{ entity_type: 'context', entity_id: ctx.json.id }],
  });
  const local = createLocalEvaluator({ url: node.url, apiKey: key, reconnectMs: 20, maxReconnectMs: 100 });
  t.teardown(() => local.close());
  await local.waitFor(rule.headers.get('rulevault-position')!);
  const body = { entity_type: 'context', fields: { tier: 'gold' }, include_entity_data: true } as const;
  const before = local.evaluate(body);
  t.same(before, asLocal(await client(node.url, key).post('/api/rule-engine/evaluate', body)));

  const port = new URL(node.url).port;
  await node.stop();
  while (local.connected || local.lastError === undefined || !/unreachable/.test(local.lastError.message)) await new Promise((r) => setTimeout(r, 20));
  t.match(local.lastError!.message, new RegExp(`RuleVault is unreachable at ${node.url}: fetch failed.*ECONNREFUSED`), 'the failure carries its cause');
  t.same(local.evaluate(body), before, 'answers from the last rule set');
  const stale = local.staleness;
  await new Promise((r) => setTimeout(r, 30));
  t.ok(local.staleness >= stale, 'staleness keeps counting while nothing is heard');

  // The service comes back on the same address: the client resumes from its position and sees what changed.
  node = await startTestNode({ ...env, PORT: port });
  const removed = await admin.delete(`/api/rule-engine/rules/${rule.json.id}`);
  await local.waitFor(removed.headers.get('rulevault-position')!);
  t.ok(local.connected);
  t.same(local.evaluate(body), { err: null, matchingRuleIds: [], entities: [], entity_data: {} });
  await node.stop();
});

/** A node whose stream snapshot holds `count` linked contexts of 500 KiB each, and an evaluate key. */
async function nodeWithLargeSnapshot(t: Test, count: number) {
  const env = testEnv(tempDir());
  const node = await startTestNode(env);
  t.teardown(async () => {
    await node.stop();
    removeDir(env.RULEVAULT_DATA_DIR!);
  });
  const admin = client(node.url, node.adminKey);
  const entities: { entity_type: string; entity_id: string }[] = [];
  for (let n = 0; n < count; n++) {
    const context = await admin.post('/api/contexts', { name: `large ${n}`, content: `${n} `.padEnd(500 * 1024, '.') });
    entities.push({ entity_type: 'context', entity_id: context.json.id });
  }
  await admin.post('/api/rule-engine/rules', { name: 'links them', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }], entities });
  return { node, key: await evaluateKey(admin) };
}

t.test('a snapshot that takes longer than idleTimeoutMs to arrive, bytes still flowing, is read to its end, on one connection', async (t) => {
  const { node, key } = await nodeWithLargeSnapshot(t, 2);
  // ~1 MiB in pieces of 16 KiB, 40 ms apart: ~2.6 s for the snapshot, a piece every 40 ms.
  const proxy = await startSlowProxy(node.url, { pieceBytes: 16 * 1024, gapMs: 40 });
  t.teardown(() => proxy.close());
  const local = createLocalEvaluator({ url: proxy.url, apiKey: key, idleTimeoutMs: 1000, reconnectMs: 50 });
  t.teardown(() => local.close());
  await local.ready(60_000);
  t.ok(proxy.pieces > 60, `the snapshot came in ${proxy.pieces} pieces`);
  t.equal(proxy.connections, 1, 'one connection: the bytes kept it alive');
  t.equal(local.lastError, undefined);
  const answer = local.evaluate({ entity_type: 'context', fields: { tier: 'gold' } });
  t.equal(answer.err, null);
  t.equal('entities' in answer ? answer.entities.length : 0, 2, 'and it holds the snapshot');
});

t.test('an 8 MiB snapshot in 1 KiB pieces is read in one pass, on one connection', async (t) => {
  const { node, key } = await nodeWithLargeSnapshot(t, 16);
  const proxy = await startSlowProxy(node.url, { pieceBytes: 1024, gapMs: 0 });
  t.teardown(() => proxy.close());
  const local = createLocalEvaluator({ url: proxy.url, apiKey: key, reconnectMs: 50 });
  t.teardown(() => local.close());
  await local.ready(60_000);
  t.ok(proxy.pieces > 8000, `it came in ${proxy.pieces} pieces`);
  t.equal(proxy.connections, 1);
  const answer = local.evaluate({ entity_type: 'context', fields: { tier: 'gold' }, include_entity_data: true });
  t.equal('entities' in answer ? answer.entities.length : 0, 16);
});
