/**
 * Black-box: splits over HTTP on both stores (issue 65; docs/splits.md).
 * A rule's split gives each matching request exactly one of its weighted
 * links, by the request's bucketing value: within 0.5% of the weights over
 * 100,000 keys, the variant `@openfeature/flagd-core` gives on ASCII keys,
 * every link answered with its variant and reason, and every bad split a
 * 400 naming the member. A rollout schedule moves each key at most once and
 * only forward, and what the live service answered inside the window is
 * what a replay of its decision record and an as-of evaluate at its time
 * answer.
 */
import t, { type Test } from 'tap';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/base/log';
import { SNAPSHOT_FILE } from '../../src/snapshots';
import { cellEnv, forCells } from '../support/matrix';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../support/node';
import { withNode, type LiveNode } from '../support/with-node';
import type { Client } from '../support/http';
import { flagdFractional, sampleKeys, type Weighted } from '../support/flagd';
import { loadConfig } from '../../src/base/config';
import { evaluate, parseEvaluateRequest } from '../../src/service/evaluate';
import { runAudit } from '../audit/support/run-audit';

const EVALUATE = '/api/rule-engine/evaluate';
const HEADER = 'rulevault-decision-id';

/** Runs `task` over `items`, `width` at a time, answers in the items' order. */
async function pooled<T, R>(items: readonly T[], width: number, task: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      answers[i] = await task(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return answers;
}

interface Setup {
  readonly app: Client;
  /** Context ids by name. */
  readonly contexts: Record<string, string>;
}

async function setUp(live: LiveNode, names: readonly string[]): Promise<Setup> {
  const contexts: Record<string, string> = {};
  for (const name of names) {
    const created = await live.admin.post('/api/contexts', { name, content: `the ${name} context` });
    if (created.status !== 201) throw new Error(created.text);
    contexts[name] = created.json.id;
  }
  const key = await live.admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] });
  return { app: live.clientFor(key.json.key), contexts };
}

/** A rule matching `suite: <suite>` with one context split over `weights` (variant name = context name), key `key`. */
function splitRule(setup: Setup, suite: string, key: string, weights: readonly Weighted[], extra: Record<string, unknown> = {}) {
  return {
    name: `split ${suite}`,
    key,
    condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: suite }] }],
    entities: weights.map(([name]) => ({ entity_type: 'context', entity_id: setup.contexts[name] })),
    splits: [{ entity_type: 'context', variants: weights.map(([name, weight]) => ({ name, entity_id: setup.contexts[name], weight })), ...extra }],
  };
}

/** The variant each key gets for rule `suite` over HTTP (one entity per answer, asserted). */
async function variantsOf(t: Test, app: Client, suite: string, keys: readonly string[], width = 16): Promise<string[]> {
  let bad = 0;
  const answers = await pooled(keys, width, async (key) => {
    const answer = await app.post(EVALUATE, { entity_type: 'context', fields: { suite, targetingKey: key } });
    const entities = answer.json?.entities as { variant: string; reason: string }[] | undefined;
    if (answer.status !== 200 || entities?.length !== 1 || entities[0]!.reason !== 'SPLIT') bad += 1;
    return entities?.[0]?.variant ?? `(${answer.status})`;
  });
  t.equal(bad, 0, `${keys.length} answers: each 200 with exactly one link, reason SPLIT`);
  return answers;
}

forCells(t, 'splits', (t, cell) => {
  const live = withNode(t, { cell });

  t.test('each link carries its variant and reason; without the bucketing field, DEFAULT and the first variant with weight', async (t) => {
    const setup = await setUp(live, ['plain', 'v1', 'v2', 'v3']);
    const body = {
      name: 'mixed',
      condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: 'mixed' }] }],
      entities: ['plain', 'v1', 'v2', 'v3'].map((name) => ({ entity_type: 'context', entity_id: setup.contexts[name] })),
      splits: [{
        entity_type: 'context', bucket_by: 'user.id',
        variants: [{ name: 'off', entity_id: setup.contexts.v1, weight: 0 }, { name: 'a', entity_id: setup.contexts.v2, weight: 1 }, { name: 'b', entity_id: setup.contexts.v3, weight: 1 }],
      }],
    };
    const created = await live.admin.post('/api/rule-engine/rules', body);
    t.equal(created.status, 201, created.text);
    const ruleId = created.json.id as string;
    t.equal(created.json.key, ruleId, 'without a key, the rule id is its key');
    t.same(created.json.splits[0].bucket_by, 'user.id');

    const answer = await setup.app.post(EVALUATE, { entity_type: 'context', include_entity_data: true, fields: { suite: 'mixed', 'user.id': 'u-1' } });
    t.equal(answer.status, 200, answer.text);
    const entities = answer.json.entities as { rule_id: string; entity_id: string; variant: string | null; reason: string }[];
    t.equal(entities.length, 2, 'the plain link and one variant');
    const plain = entities.find((e) => e.entity_id === setup.contexts.plain)!;
    t.same(plain, { rule_id: ruleId, entity_type: 'context', entity_id: setup.contexts.plain, variant: null, reason: 'TARGETING_MATCH' });
    const chosen = entities.find((e) => e.reason === 'SPLIT')!;
    t.ok(['a', 'b'].includes(chosen.variant!), 'a variant with weight');
    t.same(Object.keys(answer.json.entity_data).sort(), [`context:${chosen.entity_id}`, `context:${setup.contexts.plain}`].sort(), 'entity_data holds the chosen variant only');
    t.same(entities.map((e) => e.entity_id), [...entities.map((e) => e.entity_id)].sort(), 'entities in entity id order, as ever');

    for (const fields of [{ suite: 'mixed' }, { suite: 'mixed', 'user.id': null }, { suite: 'mixed', 'user.id': '' }]) {
      const without = await setup.app.post(EVALUATE, { entity_type: 'context', fields });
      const split = (without.json.entities as { variant: string; reason: string; entity_id: string }[]).filter((e) => e.reason !== 'TARGETING_MATCH');
      t.same(split, [{ rule_id: ruleId, entity_type: 'context', entity_id: setup.contexts.v2, variant: 'a', reason: 'DEFAULT' }], `${JSON.stringify(fields)}: bucket 0's variant, the first with weight`);
    }
    const numeric = await setup.app.post(EVALUATE, { entity_type: 'context', fields: { suite: 'mixed', 'user.id': 42 } });
    t.equal(numeric.json.entities.find((e: { reason: string }) => e.reason !== 'TARGETING_MATCH').reason, 'SPLIT', 'a number is bucketed as its text');

    const history = await live.admin.get(`/api/rule-engine/rules/${ruleId}/history`);
    t.equal(history.status, 200, history.text);
    const patched = await live.admin.patch(`/api/rule-engine/rules/${ruleId}`, {
      splits: [{ ...body.splits[0], variants: body.splits[0]!.variants.map((v) => ({ ...v, weight: v.name === 'b' ? 3 : v.weight })) }],
    });
    t.equal(patched.status, 200, patched.text);
    const after = await live.admin.get(`/api/rule-engine/rules/${ruleId}/history`);
    const changes = after.json.events.at(-1).changes;
    t.ok(JSON.stringify(changes).includes('splits'), 'the weight change is in the rule\'s history');
    const unsplit = await live.admin.patch(`/api/rule-engine/rules/${ruleId}`, { splits: [] });
    t.same(unsplit.json.splits, [], 'splits: [] takes the split away');
    const all = await setup.app.post(EVALUATE, { entity_type: 'context', fields: { suite: 'mixed', 'user.id': 'u-1' } });
    t.equal(all.json.entities.length, 4, 'and every link is answered again');
  });

  // 100,000 HTTP requests take minutes on this machine: all of them go through the node's own evaluate over its live
  // read model (what its HTTP handler calls), and the first 5,000 over HTTP too, which must answer the same.
  t.test('the worked example: prompt v2 on 10%, widened to 50%, then 100%; each key only ever moves to v2', async (t) => {
    const prompt = (await live.admin.post('/api/prompts', { name: 'support-reply', prompt: 'v1: Hi {{name}}' })).json;
    t.equal((await live.admin.post(`/api/prompts/${prompt.id}/versions`, { prompt: 'v2: Hello {{name}}' })).status, 201);
    const split = (v1: number, v2: number) => [{
      entity_type: 'prompt', bucket_by: 'user.id',
      variants: [{ name: 'v1', entity_id: 'support-reply', version: '1.0.0', weight: v1 }, { name: 'v2', entity_id: 'support-reply', version: '1.1.0', weight: v2 }],
    }];
    const created = await live.admin.post('/api/rule-engine/rules', {
      name: 'support prompt', key: 'support-prompt', condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: 'prompt' }] }],
      entities: [{ entity_type: 'prompt', entity_id: 'support-reply' }], splits: split(90, 10),
    });
    t.equal(created.status, 201, created.text);
    const app = live.clientFor((await live.admin.post('/api/api-keys', { name: 'p', scopes: ['evaluate'] })).json.key);
    const keys = sampleKeys(400);
    const ask = () => pooled(keys, 16, async (key) => {
      const answer = await app.post(EVALUATE, {
        entity_type: 'prompt', include_entity_data: true, fields: { suite: 'prompt', 'user.id': key }, entity_inputs: { variables: { name: 'Ada' } },
      });
      const variant = answer.json.entities[0].variant as string;
      const compiled = answer.json.entity_data[`prompt:${prompt.id}`].compiled_prompt as string;
      return compiled === `${variant}: ${variant === 'v1' ? 'Hi' : 'Hello'} Ada` ? variant : `mismatch ${variant} ${compiled}`;
    });
    const shares: number[] = [];
    let previous: string[] | undefined;
    for (const [v1, v2] of [[90, 10], [50, 50], [0, 100]] as const) {
      if (previous !== undefined) t.equal((await live.admin.patch(`/api/rule-engine/rules/${created.json.id}`, { splits: split(v1, v2) })).status, 200);
      const now = await ask();
      t.same(now.filter((v) => v !== 'v1' && v !== 'v2'), [], `${v1}/${v2}: each answer renders its variant's version`);
      if (previous !== undefined) t.same(keys.filter((_, i) => previous![i] === 'v2' && now[i] !== 'v2'), [], `${v1}/${v2}: no key left v2`);
      shares.push(now.filter((v) => v === 'v2').length / keys.length);
      previous = now;
    }
    t.ok(Math.abs(shares[0]! - 0.1) < 0.05 && Math.abs(shares[1]! - 0.5) < 0.08 && shares[2] === 1, `v2's shares: ${shares.join(', ')}`);
  });

  t.test('100,000 distinct keys land within 0.5% of a 90/10 split', async (t) => {
    const setup = await setUp(live, ['ninety', 'ten']);
    const created = await live.admin.post('/api/rule-engine/rules', splitRule(setup, 'dist', 'dist-90-10', [['ninety', 90], ['ten', 10]]));
    t.equal(created.status, 201, created.text);
    const keys = sampleKeys(100_000);
    t.equal(new Set(keys).size, keys.length, 'the keys are distinct');
    const { readModel } = live.node.node;
    const limits = loadConfig(live.node.env).limits;
    const variants = keys.map((key) => {
      const request = parseEvaluateRequest({ entity_type: 'context', fields: { suite: 'dist', targetingKey: key } }, limits, Date.now());
      return evaluate(readModel.state, readModel.engine, request, limits).entities[0]?.variant ?? '(none)';
    });
    const overHttp = await variantsOf(t, setup.app, 'dist', keys.slice(0, 5_000), 16);
    t.same(overHttp.filter((v, i) => v !== variants[i]), [], 'the first 5,000 answer the same over HTTP');
    const ten = variants.filter((v) => v === 'ten').length / keys.length;
    const ninety = variants.filter((v) => v === 'ninety').length / keys.length;
    t.ok(Math.abs(ten - 0.1) <= 0.005, `10% within 0.5 points (got ${(ten * 100).toFixed(3)}%)`);
    t.ok(Math.abs(ninety - 0.9) <= 0.005, `90% within 0.5 points (got ${(ninety * 100).toFixed(3)}%)`);
    t.equal(ten + ninety, 1, 'every key got one of the two');
  });

  t.test('500 ASCII keys get the variant flagd-core gives them', async (t) => {
    const setup = await setUp(live, ['a', 'b', 'c']);
    const cases: [string, Weighted[]][] = [
      ['flagd-50-50', [['a', 50], ['b', 50]]],
      ['flagd-90-10', [['a', 90], ['b', 10]]],
      ['flagd-99999-1', [['a', 99_999], ['b', 1]]],
      ['flagd-three', [['a', 20], ['b', 30], ['c', 50]]],
    ];
    const keys = sampleKeys(500);
    for (const [key, weights] of cases) {
      const created = await live.admin.post('/api/rule-engine/rules', splitRule(setup, key, key, weights));
      t.equal(created.status, 201, created.text);
      const ours = await variantsOf(t, setup.app, key, keys);
      const flagd = flagdFractional(key, weights);
      const differ = keys.filter((k, i) => ours[i] !== flagd(k));
      t.same(differ, [], `${key}: every key as flagd-core`);
      if (weights.length === 3) t.same(new Set(ours).size, 3, 'all three variants occur');
    }
  });

  t.test('every bad split is a 400 naming the member', async (t) => {
    const setup = await setUp(live, ['x', 'y', 'z']);
    const [x, y, z] = [setup.contexts.x!, setup.contexts.y!, setup.contexts.z!];
    const links = [{ entity_type: 'context', entity_id: x }, { entity_type: 'context', entity_id: y }];
    const rule = (splits: unknown, extra: Record<string, unknown> = {}) => ({
      name: 'bad', condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: 'bad' }] }], entities: links, splits, ...extra,
    });
    const variants = (wx: unknown, wy: unknown) => [{ name: 'x', entity_id: x, weight: wx }, { name: 'y', entity_id: y, weight: wy }];
    const schedule = { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', weights: { x: 0, y: 1 } };
    const cases: [string, unknown, RegExp][] = [
      ['a negative weight', rule([{ entity_type: 'context', variants: variants(-1, 1) }]), /^splits\[0\]\.variants\[0\]\.weight must be 0 or more/],
      ['a fractional weight', rule([{ entity_type: 'context', variants: variants(1, 0.5) }]), /^splits\[0\]\.variants\[1\]\.weight must be a whole number/],
      ['a weight given as text', rule([{ entity_type: 'context', variants: variants('1', 1) }]), /^splits\[0\]\.variants\[0\]\.weight must be a whole number/],
      ['a weight past the bound', rule([{ entity_type: 'context', variants: variants(2_147_483_648, 1) }]), /^splits\[0\]\.variants\[0\]\.weight must be at most 2147483647/],
      ['a total of 0', rule([{ entity_type: 'context', variants: variants(0, 0) }]), /^splits\[0\]\.variants: the weights total 0/],
      ['a total past the bound', rule([{ entity_type: 'context', variants: variants(2_147_483_647, 1) }]), /^splits\[0\]\.variants: the weights total 2147483648, past the bound/],
      ['a variant naming an entity the rule does not link', rule([{ entity_type: 'context', variants: [{ name: 'x', entity_id: x, weight: 1 }, { name: 'z', entity_id: z, weight: 1 }] }]),
        /^splits\[0\]\.variants\[1\]\.entity_id: the rule links no context/],
      ['two splits on one entity type', rule([{ entity_type: 'context', variants: variants(1, 1) }, { entity_type: 'context', variants: variants(1, 1) }]),
        /^splits\[1\]\.entity_type: a rule has one split per entity type/],
      ['a schedule whose end is its start', rule([{ entity_type: 'context', variants: variants(1, 0), schedule: { ...schedule, end: schedule.start } }]),
        /^splits\[0\]\.schedule\.end .* must be after splits\[0\]\.schedule\.start/],
      ['a schedule whose end is before its start', rule([{ entity_type: 'context', variants: variants(1, 0), schedule: { ...schedule, start: schedule.end, end: schedule.start } }]),
        /^splits\[0\]\.schedule\.end .* must be after/],
      ['a schedule without a variant\'s weight', rule([{ entity_type: 'context', variants: variants(1, 0), schedule: { ...schedule, weights: { y: 1 } } }]),
        /^splits\[0\]\.schedule\.weights\.x is required/],
      ['a schedule whose weights total 0', rule([{ entity_type: 'context', variants: variants(1, 0), schedule: { ...schedule, weights: { x: 0, y: 0 } } }]),
        /^splits\[0\]\.schedule\.weights: the weights total 0/],
      ['a schedule time without a zone', rule([{ entity_type: 'context', variants: variants(1, 0), schedule: { ...schedule, start: '2026-01-01T00:00:00' } }]),
        /^splits\[0\]\.schedule\.start must be an ISO 8601 time with a zone/],
      ['an empty bucketing field name', rule([{ entity_type: 'context', bucket_by: '', variants: variants(1, 1) }]), /^splits\[0\]\.bucket_by must not be empty/],
      ['a blank bucketing field name', rule([{ entity_type: 'context', bucket_by: '  ', variants: variants(1, 1) }]), /^splits\[0\]\.bucket_by must not be empty/],
      ['a bucketing field name past a condition field\'s length', rule([{ entity_type: 'context', bucket_by: 'f'.repeat(257), variants: variants(1, 1) }]),
        /^splits\[0\]\.bucket_by must be at most 256 characters/],
      ['a bucketing field that is not a string', rule([{ entity_type: 'context', bucket_by: 7, variants: variants(1, 1) }]), /^splits\[0\]\.bucket_by must be a string/],
      ['no variants', rule([{ entity_type: 'context', variants: [] }]), /^splits\[0\]\.variants must have at least one variant/],
      ['two variants of one name', rule([{ entity_type: 'context', variants: [{ name: 'x', entity_id: x, weight: 1 }, { name: 'x', entity_id: y, weight: 1 }] }]),
        /^splits\[0\]\.variants\[1\]\.name: "x" names two variants/],
      ['a version on a context variant', rule([{ entity_type: 'context', variants: [{ name: 'x', entity_id: x, weight: 1, version: '1.0.0' }] }]),
        /^splits\[0\]\.variants\[0\]: only a prompt variant takes a version or a label/],
      ['an unknown member', rule([{ entity_type: 'context', variants: variants(1, 1), weights: [1, 1] }]), /splits\[0\].*weights/],
      ['a rule key that is not a flag key', rule([{ entity_type: 'context', variants: variants(1, 1) }], { key: 'has space' }), /^key must be 1 to 128 letters/],
    ];
    for (const [what, body, message] of cases) {
      const answer = await live.admin.post('/api/rule-engine/rules', body);
      t.equal(answer.status, 400, `${what}: 400`);
      t.equal(answer.json?.code, 'bad_request', `${what}: bad_request`);
      t.match(answer.json?.err, message, `${what}: ${answer.json?.err}`);
    }
    // A PATCH is read the same way, and a key never changes.
    const id = (await live.admin.post('/api/rule-engine/rules', rule([{ entity_type: 'context', variants: variants(1, 1) }], { key: 'fixed-key' }))).json.id;
    const patch = await live.admin.patch(`/api/rule-engine/rules/${id}`, { splits: [{ entity_type: 'context', variants: variants(0, 0) }] });
    t.equal(patch.status, 400);
    t.match(patch.json.err, /^splits\[0\]\.variants: the weights total 0/);
    const rekey = await live.admin.patch(`/api/rule-engine/rules/${id}`, { key: 'other-key' });
    t.equal(rekey.status, 400);
    t.match(rekey.json.err, /^key cannot change/);
    const unlink = await live.admin.patch(`/api/rule-engine/rules/${id}`, { entities: [links[0]] });
    t.equal(unlink.status, 400, 'dropping a link a variant names, while keeping the variant, is refused');
    t.match(unlink.json.err, /^splits\[0\]\.variants\[1\]\.entity_id: the rule links no context/);
  });

  t.test('an import names a split\'s variants by name, as its links; a dry-run answers and explains a draft split', async (t) => {
    const key = (await live.admin.post('/api/api-keys', { name: 'imp', scopes: ['evaluate'] })).json.key as string;
    const variants = [{ name: 'short', entity_id: 'imp-short', weight: 1 }, { name: 'long', entity_id: 'imp-long', weight: 3 }];
    const text = [
      JSON.stringify({ kind: 'context', name: 'imp-short', content: 'Be brief.' }),
      JSON.stringify({ kind: 'context', name: 'imp-long', content: 'Be thorough.' }),
      JSON.stringify({
        kind: 'rule', name: 'imported split', key: 'imported', condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: 'imported' }] }],
        entities: [{ entity_type: 'context', entity_id: 'imp-short' }, { entity_type: 'context', entity_id: 'imp-long' }],
        splits: [{ entity_type: 'context', variants }],
      }),
    ].join('\n');
    const imported = await live.admin.post('/api/import', undefined, { raw: text, headers: { 'content-type': 'application/x-ndjson' } });
    t.equal(imported.status, 201, imported.text);
    const [shortId, longId, ruleId] = imported.json.items.map((i: { id: string }) => i.id);
    const rule = await live.admin.get(`/api/rule-engine/rules/${ruleId}`);
    t.same(rule.json.splits[0].variants.map((v: { entity_id: string }) => v.entity_id), [shortId, longId], 'the variants hold the ids');
    const keys = sampleKeys(200);
    const got = await variantsOf(t, live.clientFor(key), 'imported', keys);
    t.same(keys.filter((k, i) => got[i] !== flagdFractional('imported', [['short', 1], ['long', 3]])(k)), [], 'and answer as flagd would');

    const draft = { ...JSON.parse(text.split('\n')[2]!), id: ruleId, kind: undefined };
    delete draft.kind;
    delete draft.key;
    draft.entities = [{ entity_type: 'context', entity_id: shortId }, { entity_type: 'context', entity_id: longId }];
    draft.splits = [{ entity_type: 'context', variants: [{ name: 'short', entity_id: shortId, weight: 0 }, { name: 'long', entity_id: longId, weight: 1 }] }];
    const dry = await live.admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields: { suite: 'imported', targetingKey: 'user-1' }, rules: [draft] });
    t.equal(dry.status, 200, dry.text);
    t.match(dry.json.entities, [{ rule_id: ruleId, entity_id: longId, variant: 'long', reason: 'SPLIT' }], 'the draft\'s weights answer');
    t.match(dry.json.explain.find((r: { rule_id: string }) => r.rule_id === ruleId).splits, [{ key: 'imported', variant: 'long', value: 'user-1' }],
      'explained, with the live rule\'s key');
    const bad = await live.admin.post('/api/rule-engine/dry-run', {
      entity_type: 'context', fields: {}, rules: [{ ...draft, splits: [{ entity_type: 'context', variants: [{ name: 'x', entity_id: shortId, weight: -1 }] }] }],
    });
    t.equal(bad.status, 400);
    t.match(bad.json.err, /^rules\[0\]\.splits\[0\]\.variants\[0\]\.weight/);
  });

  t.test('a key keeps its variant across a restart, a snapshot start and two workers', async (t) => {
    const dir = tempDir();
    t.teardown(() => removeDir(dir));
    const env = testEnv(dir, cellEnv(cell));
    const first = await startTestNode(env, undefined, cell.store);
    const admin = client(first.url, first.adminKey);
    const setup = await setUp({ node: first, url: first.url, admin, clientFor: (key) => client(first.url, key) }, ['a', 'b', 'c']);
    const apiKey = (await admin.post('/api/api-keys', { name: 'stable', scopes: ['evaluate'] })).json.key as string;
    t.equal((await admin.post('/api/rule-engine/rules', splitRule(setup, 'stable', 'stable-key', [['a', 5], ['b', 3], ['c', 2]]))).status, 201);
    const keys = sampleKeys(300);
    const live = await variantsOf(t, client(first.url, apiKey), 'stable', keys);
    t.same(new Set(live).size, 3, 'all three variants occur');
    await first.stop();

    const again = async (what: string, node: TestNode, times = 1) => {
      try {
        for (let i = 0; i < times; i++) t.same(await variantsOf(t, client(node.url, apiKey), 'stable', keys), live, `${what}: every key its variant`);
      } finally {
        await node.stop();
      }
    };
    const lines: string[] = [];
    const fromSnapshot = await startTestNode(env, createLogger((line) => lines.push(line)), cell.store);
    t.ok(lines.map((l) => JSON.parse(l)).find((r) => r.msg === 'ready')?.from_snapshot, 'a snapshot start');
    await again('after a snapshot start', fromSnapshot);

    rmSync(path.join(dir, SNAPSHOT_FILE), { force: true });
    lines.length = 0;
    const replayed = await startTestNode(env, createLogger((line) => lines.push(line)), cell.store);
    t.equal(lines.map((l) => JSON.parse(l)).find((r) => r.msg === 'ready')?.from_snapshot, null, 'a restart replaying the whole log');
    await again('after a restart', replayed);

    // Each key asked twice: the answers come from both workers.
    await again('with two workers', await startTestNode({ ...env, RULEVAULT_WORKERS: '2' }, undefined, cell.store), 2);
  });

  t.test('rollouts, with every decision recorded', async (t) => {
    rollout(t, withNode(t, { cell, env: { RULEVAULT_DECISION_LOG: '1' } }));
  });
});

function rollout(t: Test, live: LiveNode): void {
  t.test('a rollout from 100/0 to 0/100 moves each key at most once, forward; replay and as-of agree with the live answers', async (t) => {
    const setup = await setUp(live, ['old', 'new']);
    const start = Date.now() + 1_000;
    const window = { start: new Date(start).toISOString(), end: new Date(start + 4_000).toISOString(), weights: { old: 0, new: 1 } };
    const linear = await live.admin.post('/api/rule-engine/rules', splitRule(setup, 'linear', 'roll-linear', [['old', 1], ['new', 0]], { schedule: window }));
    t.equal(linear.status, 201, linear.text);
    const stepped = await live.admin.post('/api/rule-engine/rules', splitRule(setup, 'steps', 'roll-steps', [['old', 1], ['new', 0]], { schedule: { ...window, steps: 4 } }));
    t.equal(stepped.status, 201, stepped.text);
    t.same(stepped.json.splits[0].schedule, { ...window, steps: 4 }, 'the schedule as written');

    const keys = sampleKeys(100);
    const rounds: { suite: string; variants: string[]; ids: string[] }[] = [];
    const done = start + 4_000 + 300;
    // Rounds until one has begun after the end (by this clock, the server's too: one machine).
    for (let round = 0, late = false; !late || round < 2; round++) {
      late = Date.now() >= done;
      for (const suite of ['linear', 'steps']) {
        const ids: string[] = [];
        const variants = await pooled(keys, 16, async (key, i) => {
          const answer = await setup.app.post(EVALUATE, { entity_type: 'context', fields: { suite, targetingKey: key } });
          ids[i] = answer.headers.get(HEADER)!;
          return answer.json.entities[0].variant as string;
        });
        rounds.push({ suite, variants, ids });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const suite of ['linear', 'steps']) {
      const mine = rounds.filter((r) => r.suite === suite);
      let moves = 0;
      let backwards = 0;
      keys.forEach((_, k) => {
        for (let r = 1; r < mine.length; r++) {
          const [was, is] = [mine[r - 1]!.variants[k], mine[r]!.variants[k]];
          if (was !== is) (was === 'old' && is === 'new' ? moves++ : backwards++);
        }
      });
      t.equal(backwards, 0, `${suite}: no key moved back`);
      t.ok(moves <= keys.length, `${suite}: at most one move per key (${moves} moves)`);
      t.same(new Set(mine.at(-1)!.variants), new Set(['new']), `${suite}: after the end, every key on the new variant`);
    }

    // Decisions recorded inside the window: the replay matches, and as-of evaluate at their time answers the same.
    const inside: { suite: string; key: string; variant: string; id: string; at: string }[] = [];
    for (const round of rounds) {
      for (const k of [0, 1, 2]) {
        const record = await live.admin.get(`/api/audit/decisions/${round.ids[k]}`);
        t.equal(record.status, 200, record.text);
        const at = Date.parse(record.json.at);
        if (at > start && at < start + 4_000) inside.push({ suite: round.suite, key: keys[k]!, variant: round.variants[k]!, id: round.ids[k]!, at: record.json.at });
      }
    }
    t.ok(inside.length > 0, `decisions recorded inside the window (${inside.length})`);
    let mismatched = 0;
    // Ten of them, spread over the window (each replay folds the log to its position).
    const chosen = inside.filter((_, i) => i % Math.max(1, Math.floor(inside.length / 10)) === 0).slice(0, 10);
    for (const decision of chosen) {
      const replay = await live.admin.get(`/api/audit/decisions/${decision.id}/replay`);
      const asOf = await live.admin.post('/api/audit/evaluate', { entity_type: 'context', fields: { suite: decision.suite, targetingKey: decision.key }, as_of: decision.at });
      if (replay.json?.same !== true || asOf.json?.entities?.[0]?.variant !== decision.variant) mismatched += 1;
    }
    t.equal(mismatched, 0, 'every replay matched, and as-of evaluate gave the variant the live service gave');
    // The CLI beside the running service: the same as-of answer, and the decision's replay.
    const first = chosen[0]!;
    const cli = await runAudit(['evaluate', '--as-of', first.at, '--json', '--body',
      JSON.stringify({ entity_type: 'context', fields: { suite: first.suite, targetingKey: first.key } })], live.node.env);
    t.equal(cli.code, 0, cli.stderr);
    t.equal(JSON.parse(cli.stdout).entities[0].variant, first.variant, 'rulevault audit evaluate --as-of: the live variant');
    const replayed = await runAudit(['decision', first.id, '--json'], live.node.env);
    t.equal(replayed.code, 0, replayed.stderr);
    t.equal(JSON.parse(replayed.stdout).replay.same, true, 'rulevault audit decision: the replay matches');
    // A linear one: a stepped rollout's first quarter has progress 0.
    const probe = chosen.find((d) => d.suite === 'linear') ?? inside.find((d) => d.suite === 'linear')!;
    const explained = await live.admin.post('/api/audit/evaluate', {
      entity_type: 'context', fields: { suite: probe.suite, targetingKey: probe.key }, as_of: probe.at, explain: true,
    });
    const split = explained.json.explain.find((r: { splits?: unknown }) => r.splits !== undefined)?.splits[0];
    t.match(split, { bucket_by: 'targetingKey', value: probe.key, key: `roll-${probe.suite}`, variant: probe.variant }, 'explain shows the bucketing inside the window');
    t.ok(split.progress > 0 && split.progress < 1, `and how far into the window (${split.progress})`);
    t.ok(split.ranges.length === 2 && split.bucket >= 0, 'the ranges and the bucket');
  });
}
