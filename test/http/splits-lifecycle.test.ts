/**
 * Black-box: what happens to a split around it (issue 65; docs/splits.md), on
 * both stores. An audit export of a node whose split rules have schedules,
 * imported into a fresh node (`rulevault audit export` and `import`), answers
 * every sample key with the original's variant, and each rule's history
 * still shows its splits' diffs. A chosen variant whose entity is switched
 * off drops out of the answer with no fallback, and comes back when it is
 * switched on; deleting it takes its variant out of the split, and the keys
 * are bucketed over the weights that remain (ADR 0056).
 */
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { MASTER_KEY_FILE } from '../../src/vault/master-key';
import { runAudit } from '../audit/support/run-audit';
import { backendFor } from '../support/backend';
import { flagdFractional, sampleKeys, type Weighted } from '../support/flagd';
import { client, type Client } from '../support/http';
import { forCells, type Store } from '../support/matrix';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import type { ScriptRun } from '../support/process';
import { withNode, type LiveNode } from '../support/with-node';

const EVALUATE = '/api/rule-engine/evaluate';
const HOUR = 3_600_000;

interface Link {
  readonly entity_id: string;
  readonly variant: string | null;
  readonly reason: string;
}

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const variantsOf = (splits: { variants: { name: string; weight: number }[] }[]): Weighted[] => splits[0]!.variants.map((v) => [v.name, v.weight]);

/** The event count a `--json` export or import printed (what it printed instead, if not). */
function eventsOf(run: ScriptRun): number | string {
  try {
    return JSON.parse(run.stdout).events;
  } catch {
    return `no JSON on stdout (exit ${run.code}): ${JSON.stringify(run.stdout)} ${JSON.stringify(run.stderr)}`;
  }
}

/** Context ids by name, created on `admin`. */
async function contextsNamed(admin: Client, names: readonly string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const name of names) {
    const created = await admin.post('/api/contexts', { name, content: `the ${name} context` });
    if (created.status !== 201) throw new Error(created.text);
    ids[name] = created.json.id;
  }
  return ids;
}

async function created(admin: Client, body: Record<string, unknown>): Promise<string> {
  const answer = await admin.post('/api/rule-engine/rules', body);
  if (answer.status !== 201) throw new Error(answer.text);
  return answer.json.id;
}

/** A rule matching `suite: <suite>`, linking `links` (context ids by variant name), split over `weights`. */
function contextSplit(suite: string, links: Record<string, string>, weights: readonly Weighted[], extra: Record<string, unknown> = {}) {
  return {
    name: `lifecycle ${suite}`, key: suite, condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: suite }] }],
    entities: weights.map(([name]) => ({ entity_type: 'context', entity_id: links[name] })),
    splits: [{ entity_type: 'context', variants: weights.map(([name, weight]) => ({ name, entity_id: links[name], weight })), ...extra }],
  };
}

/** Each key's whole answer (status and JSON text) for `suite`, bucketed by `field`; every 7th key sent without it. */
async function answersOf(app: Client, entityType: string, suite: string, keys: readonly string[], field = 'targetingKey'): Promise<string[]> {
  const out: string[] = [];
  for (const [i, key] of keys.entries()) {
    const fields = i % 7 === 6 ? { suite } : { suite, [field]: key };
    const answer = await app.post(EVALUATE, { entity_type: entityType, fields, include_entity_data: true, entity_inputs: { variables: { name: 'Ada' } } });
    out.push(`${answer.status} ${answer.text}`);
  }
  return out;
}

/** The split's link in each answer: its variant, or '-' for none. */
async function chosen(app: Client, suite: string, keys: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const key of keys) {
    const answer = await app.post(EVALUATE, { entity_type: 'context', fields: { suite, targetingKey: key } });
    const links = answer.json.entities as Link[];
    out.push(answer.status !== 200 ? `(${answer.status})` : links.length === 0 ? '-' : links.map((l) => `${l.variant}:${l.reason}`).join(','));
  }
  return out;
}

forCells(t, 'splits-lifecycle', (t, cell) => {
  const live = withNode(t, { cell });
  let appKey: string;
  let app: Client;
  t.before(async () => {
    appKey = (await live.admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key;
    app = live.clientFor(appKey);
  });

  t.test('an audit export and import carries splits and schedules: the imported node answers every key as the original', async (t) => {
    await exportAndImport(t, live, cell.store, appKey);
  });

  t.test("a chosen variant's entity switched off drops out, no fallback; back on, it returns; deleted, its variant goes", async (t) => {
    const ids = await contextsNamed(live.admin, ['on', 'off']);
    const weights: Weighted[] = [['on', 1], ['off', 1]];
    const ruleId = await created(live.admin, contextSplit('two-variants', ids, weights));
    const keys = sampleKeys(200);
    const flagd = flagdFractional('two-variants', weights);
    const before = await chosen(app, 'two-variants', keys);
    t.same(before, keys.map((k) => `${flagd(k)}:SPLIT`), `${keys.length} keys: flagd's variant, one link each`);
    t.same(new Set(before).size, 2, 'both variants occur');

    t.equal((await live.admin.patch(`/api/contexts/${ids.off}`, { status: 'INACTIVE' })).status, 200);
    const switchedOff = await chosen(app, 'two-variants', keys);
    t.same(switchedOff, before.map((v) => (v === 'off:SPLIT' ? '-' : v)),
      "the keys that chose the INACTIVE one get no context (the split does not fall back), the others keep theirs");
    const dropped = await app.post(EVALUATE, { entity_type: 'context', include_entity_data: true, fields: { suite: 'two-variants', targetingKey: keys[before.indexOf('off:SPLIT')] } });
    t.same(dropped.json, { matchingRuleIds: [ruleId], entities: [], entity_data: {} }, 'the rule still matches; no entity, no entity_data');

    t.equal((await live.admin.patch(`/api/contexts/${ids.off}`, { status: 'ACTIVE' })).status, 200);
    t.same(await chosen(app, 'two-variants', keys), before, 'back ACTIVE: every key its variant again');

    const deleted = await live.admin.delete(`/api/contexts/${ids.off}`);
    t.ok(deleted.status < 300, `the context is deleted (${deleted.status})`);
    const rule = (await live.admin.get(`/api/rule-engine/rules/${ruleId}`)).json;
    t.same(rule.entities, [{ entity_type: 'context', entity_id: ids.on }], 'the delete unlinked it');
    t.same(variantsOf(rule.splits), [['on', 1]], 'and took its variant out of the split');
    t.same(await chosen(app, 'two-variants', keys), keys.map(() => 'on:SPLIT'), 'every key is bucketed over what remains: the one variant');
    const history = (await live.admin.get(`/api/rule-engine/rules/${ruleId}/history`)).json.events;
    t.same(history.at(-1).changes.splits.before[0].variants.map((v: { name: string }) => v.name), ['on', 'off'], 'the rule\'s history shows the splits diff');
    t.same(history.at(-1).changes.splits.after[0].variants.map((v: { name: string }) => v.name), ['on']);
  });

  t.test('deleting one of three variants re-buckets every key over the remaining weights, a finished schedule\'s too', async (t) => {
    const ids = await contextsNamed(live.admin, ['x', 'y', 'z']);
    // The schedule ended an hour ago: its weights are the ones in force.
    const schedule = { start: iso(-2 * HOUR), end: iso(-HOUR), weights: { x: 2, y: 3, z: 5 } };
    const ruleId = await created(live.admin, contextSplit('three-variants', ids, [['x', 1], ['y', 1], ['z', 1]], { schedule }));
    const keys = sampleKeys(300);
    const before = await chosen(app, 'three-variants', keys);
    const inForce = flagdFractional('three-variants', [['x', 2], ['y', 3], ['z', 5]]);
    t.same(before, keys.map((k) => `${inForce(k)}:SPLIT`), "the schedule's weights in force, as flagd buckets them");

    t.ok((await live.admin.delete(`/api/contexts/${ids.y}`)).status < 300);
    const rule = (await live.admin.get(`/api/rule-engine/rules/${ruleId}`)).json;
    t.same(variantsOf(rule.splits), [['x', 1], ['z', 1]], 'y left the split');
    t.same(rule.splits[0].schedule, { ...schedule, weights: { x: 2, z: 5 } }, 'and its schedule, which keeps the others\' weights');
    const after = await chosen(app, 'three-variants', keys);
    const remaining = flagdFractional('three-variants', [['x', 2], ['z', 5]]);
    t.same(after, keys.map((k) => `${remaining(k)}:SPLIT`), 'every key: flagd\'s choice over x 2, z 5');
    const fromY = new Set(after.filter((_, i) => before[i] === 'y:SPLIT'));
    t.same([...fromY].sort(), ['x:SPLIT', 'z:SPLIT'], 'the keys that had y spread over both that remain');
  });
});

/**
 * Split rules with schedules before, inside and after their windows (inside, a stepped one whose step in force
 * lasts past the test), exported with `rulevault audit export`, imported into an empty store, and answered by a node on it.
 */
async function exportAndImport(t: Test, live: LiveNode, store: Store, appKey: string): Promise<void> {
  const admin = live.admin;
  const ids = await contextsNamed(admin, ['old', 'new', 'a', 'b', 'c']);
  const inside = await created(admin, contextSplit('inside', ids, [['old', 1], ['new', 0]]));
  // A PATCH that adds the schedule: two steps, the first half an hour ago, so 50/50 for the next half hour.
  const schedule = { start: iso(-1.5 * HOUR), end: iso(HOUR / 2), weights: { old: 0, new: 1 }, steps: 2 };
  t.equal((await admin.patch(`/api/rule-engine/rules/${inside}`, {
    splits: [{ entity_type: 'context', variants: [{ name: 'old', entity_id: ids.old, weight: 1 }, { name: 'new', entity_id: ids.new, weight: 0 }], schedule }],
  })).status, 200);
  const notYet = await created(admin, contextSplit('not-yet', ids, [['a', 2], ['b', 3], ['c', 5]], {
    bucket_by: 'user.id', schedule: { start: iso(HOUR), end: iso(2 * HOUR), weights: { a: 0, b: 0, c: 1 } },
  }));
  const prompt = (await admin.post('/api/prompts', { name: 'exported-reply', prompt: 'v1: Hi {{name}}' })).json.id as string;
  t.equal((await admin.post(`/api/prompts/${prompt}/versions`, { prompt: 'v2: Hello {{name}}' })).status, 201);
  const promptSplit = (w1: number, w2: number, extra: Record<string, unknown> = {}) => [{
    entity_type: 'prompt', variants: [{ name: 'v1', entity_id: prompt, version: '1.0.0', weight: w1 }, { name: 'v2', entity_id: prompt, version: '1.1.0', weight: w2 }], ...extra,
  }];
  const ended = await created(admin, {
    name: 'lifecycle ended', key: 'ended', condition_groups: [{ conditions: [{ field: 'suite', operator: 'equals', value: 'ended' }] }],
    entities: [{ entity_type: 'prompt', entity_id: prompt }], splits: promptSplit(9, 1),
  });
  t.equal((await admin.patch(`/api/rule-engine/rules/${ended}`, { splits: promptSplit(9, 1, { schedule: { start: iso(-2 * HOUR), end: iso(-HOUR), weights: { v1: 1, v2: 3 } } }) })).status, 200);

  const keys = sampleKeys(150);
  const asked: [string, string, string][] = [['context', 'inside', 'targetingKey'], ['context', 'not-yet', 'user.id'], ['prompt', 'ended', 'targetingKey']];
  const original = await Promise.all(asked.map(([type, suite, field]) => answersOf(live.clientFor(appKey), type, suite, keys, field)));
  const variants = original.map((answers) => new Set(answers.map((a) => JSON.parse(a.slice(a.indexOf(' ') + 1)).entities[0]?.variant)));
  t.same(variants.map((v) => [...v].sort()), [['new', 'old'], ['a', 'b', 'c'], ['v1', 'v2']], 'each split answers more than one variant on the original');
  const rules = [inside, notYet, ended];
  const views = await Promise.all(rules.map((id) => admin.get(`/api/rule-engine/rules/${id}`)));
  const histories = await Promise.all(rules.map((id) => admin.get(`/api/rule-engine/rules/${id}/history`)));

  const file = path.join(live.node.dataDir, 'export.ndjson');
  const exported = await runAudit(['export', '--out', file, '--json'], live.node.env);
  t.equal(exported.code, 0, exported.stderr);

  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_EVENTSTORE: (await backendFor(dir, store)) ?? `sqlite:${path.join(dir, 'events.db')}` });
  // The log's sealed vault records need the key they were sealed with, as with any restore.
  if (existsSync(path.join(live.node.dataDir, MASTER_KEY_FILE))) copyFileSync(path.join(live.node.dataDir, MASTER_KEY_FILE), path.join(dir, MASTER_KEY_FILE));
  const imported = await runAudit(['import', '--in', file, '--json'], env);
  t.equal(imported.code, 0, imported.stderr);
  t.equal(eventsOf(imported), eventsOf(exported), 'every event imported');
  const node = await startTestNode(env, undefined, store);
  t.teardown(() => node.stop());
  const copy = client(node.url, node.adminKey);
  // The API key is a record of the log: the original's key answers on the copy.

  const answered = await Promise.all(asked.map(([type, suite, field]) => answersOf(client(node.url, appKey), type, suite, keys, field)));
  asked.forEach(([, suite], i) => {
    const differ = keys.filter((_, k) => answered[i]![k] !== original[i]![k]);
    t.same(differ, [], `${suite}: all ${keys.length} keys answered as on the original (variant, reason, entity_data)`);
  });
  // An import renumbers positions (docs/auditors.md): all else is as it was.
  const strip = ({ position: _, ...rest }: { position: string }) => rest;
  for (const [i, id] of rules.entries()) {
    const view = await copy.get(`/api/rule-engine/rules/${id}`);
    t.same(strip(view.json), strip(views[i]!.json), `${asked[i]![1]}: the rule, its key, splits and schedule as they were`);
    const history = await copy.get(`/api/rule-engine/rules/${id}/history`);
    t.same(history.json.events.map(strip), histories[i]!.json.events.map(strip), `${asked[i]![1]}: the same history, but for positions`);
  }
  const diffs = (await copy.get(`/api/rule-engine/rules/${inside}/history`)).json.events.map((e: { changes: Record<string, { before: unknown; after: any }> }) => e.changes.splits);
  t.equal(diffs.length, 2, 'inside: created, then patched');
  t.same(diffs[1].before[0].schedule, undefined, 'the PATCH\'s splits diff: no schedule before');
  t.same(diffs[1].after[0].schedule, schedule, 'and the schedule after');
}
