/**
 * Snapshots: written on shutdown and after erasure, used at start-up (only
 * the events after them are replayed), ignored with a warning when corrupt,
 * of another format or from another log; never a plaintext secret.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { SNAPSHOT_FILE, SNAPSHOT_FORMAT } from '../../src/snapshots/snapshot';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { runCli } from '../support/process';
import { openStream } from '../support/sse';

// The rules also paged and filtered: after a snapshot start they are read as the listing walks them (projections/lazy-rules.ts).
const LISTINGS = [
  '/api/rule-engine/rules', '/api/rule-engine/rules?limit=3', '/api/rule-engine/rules?field=n&operator=lte&limit=2',
  '/api/contexts', '/api/prompts', '/api/vault/secrets', '/api/api-keys',
];

async function start(env: Record<string, string>) {
  const lines: string[] = [];
  const node = await startTestNode(env, createLogger((line) => lines.push(line)));
  const ready = lines.map((l) => JSON.parse(l)).find((r) => r.msg === 'ready');
  const warnings = lines.map((l) => JSON.parse(l)).filter((r) => r.level === 'warn');
  return { node, ready, warnings, admin: client(node.url, node.adminKey), lines };
}

async function populate(admin: ReturnType<typeof client>) {
  const context = await admin.post('/api/contexts', { name: 'c', content: 'x' });
  const prompt = await admin.post('/api/prompts', { name: 'p', prompt: 'Hi {{who}}' });
  await admin.post(`/api/prompts/${prompt.json.id}/versions`, { prompt: 'Hello {{who}}' });
  for (let i = 0; i < 10; i++) {
    await admin.post('/api/rule-engine/rules', {
      name: `r${i}`, condition_groups: [{ conditions: [{ field: 'n', operator: 'lte', value: String(i), data_type: 'number' }] }],
      entities: [{ entity_type: 'prompt', entity_id: prompt.json.id }, { entity_type: 'context', entity_id: context.json.id }],
    });
  }
  await admin.post('/api/vault/secrets', { key: 'SNAP_SECRET', value: 'snapshot-plaintext-value', tags: ['s'] });
  return (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate', 'secrets:read'] })).json.key as string;
}

/** What the change stream's first snapshot shows. First in `answers`: after a snapshot start it reads the unread records (in slices) itself. */
async function streamView(url: string, key: string) {
  const stream = await openStream(url, key);
  const { rules, contexts, prompts } = JSON.parse((await stream.next((e) => e.event === 'snapshot')).data);
  stream.close();
  return { rules, contexts, prompts };
}

async function answers(url: string, admin: ReturnType<typeof client>, key: string) {
  const view = await streamView(url, key);
  const listings = await Promise.all(LISTINGS.map(async (p) => (await admin.get(p)).json));
  const evaluated = (await client(url, key).post('/api/rule-engine/evaluate', {
    entity_type: 'prompt', fields: { n: 3 }, include_entity_data: true, entity_inputs: { variables: { who: 'Ada' } },
  })).json;
  const secrets = (await client(url, key).post('/api/vault/get-secrets', {})).json;
  return { view, listings, evaluated, secrets };
}

/** A populated node on a fresh folder, stopped (so its shutdown snapshot is on disk), and what it answered live. */
async function populatedThenStopped(t: tap.Test) {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const first = await start(env);
  const key = await populate(first.admin);
  const live = await answers(first.node.url, first.admin, key);
  await first.node.stop();
  return { dir, env, key, live };
}

t.test('a snapshot round trip: start from it, replay only what follows, answer the same', async (t) => {
  const { dir, env, key, live } = await populatedThenStopped(t);

  const file = path.join(dir, SNAPSHOT_FILE);
  t.equal(statSync(file).mode & 0o777, 0o600, 'owner-only');
  const text = readFileSync(file, 'utf8');
  t.notOk(text.includes('snapshot-plaintext-value'), 'no plaintext secret in the snapshot');
  t.notOk(text.includes(Buffer.from('snapshot-plaintext-value').toString('base64')), 'not even base64');
  // One JSON value per line (no string need hold a whole snapshot of 1M rules): each parses alone.
  const lines = text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  t.match(lines[0], { format: SNAPSHOT_FORMAT, sha256: /^[0-9a-f]{64}$/ }, 'the header line');
  t.match(lines[1], { format: SNAPSHOT_FORMAT, log_id: String }, 'the envelope line');
  const rules = lines.findIndex((line) => line.member === 'rules');
  t.equal(lines[rules].items, 10, 'the rules member counts its items');
  t.same(lines.slice(rules + 1, rules + 11).map((rule) => rule.name).sort(), Array.from({ length: 10 }, (_, i) => `r${i}`).sort(), 'one rule a line');

  // Writes made after the snapshot (by the CLI, while no node runs) are replayed on top of it.
  const cliKey = await runCli(['api-keys', 'create', '--name', 'after-snapshot', '--scopes', 'evaluate'], env);
  t.equal(cliKey.code, 0, cliKey.stderr);

  const second = await start(env);
  t.teardown(() => second.node.stop());
  t.ok(second.ready.from_snapshot, 'started from the snapshot');
  t.equal(second.ready.replayed_events, 1, 'only the event after the snapshot was replayed');
  t.same(second.warnings, []);
  const restored = await answers(second.node.url, second.admin, key);
  t.same(restored.view, live.view, 'the change stream shows the same rules and entities');
  t.equal(restored.view.rules.length, 10);
  t.same(restored.evaluated, live.evaluated, 'evaluate answers the same, compiled prompts included');
  t.same(restored.secrets, live.secrets, 'sealed secrets open after a snapshot start');
  LISTINGS.forEach((p, i) => {
    if (p !== '/api/api-keys') t.same(restored.listings[i], live.listings[i], `${p} after a snapshot start`);
  });
  const keys = (await second.admin.get('/api/api-keys')).json.api_keys.map((k: { name: string }) => k.name);
  t.ok(keys.includes('after-snapshot'));
  // Deleting a context unlinks it from every rule, records unread since the snapshot included.
  const contextId = (await second.admin.get('/api/contexts')).json.contexts[0].id as string;
  t.equal((await second.admin.delete(`/api/contexts/${contextId}`)).status, 204);
  const unlinked = (await second.admin.get('/api/rule-engine/rules')).json.rules as { entities: { entity_type: string }[] }[];
  t.equal(unlinked.length, 10);
  t.ok(unlinked.every((r) => r.entities.length === 1 && r.entities[0]!.entity_type === 'prompt'), 'every rule lost the context\'s link, kept the prompt\'s');
});

for (const [name, damage, reason] of [
  // A flipped character inside the body: still JSON, but no longer what was written.
  ['corrupt', (text: string) => text.replace('r5', 'r6'), /checksum/],
  ['truncated', (text: string) => text.slice(0, Math.floor(text.length / 2)), /checksum/],
  ['garbled', (text: string) => `#${text}`, /not valid JSON/],
  ['another format', (text: string) => text.replace(/^\{"format":\d+,/, '{"format":999,'), /format 999/],
  ['format 2', (text: string) => text.replace(/^\{"format":\d+,/, '{"format":2,'), new RegExp(`format 2, this version reads ${SNAPSHOT_FORMAT}`)],
  ['format 1', (text: string) => {
    const body = text.slice(text.indexOf('\n') + 1);
    const { createHash } = require('node:crypto') as typeof import('node:crypto');
    return JSON.stringify({ sha256: createHash('sha256').update(body).digest('hex'), body });
  }, new RegExp(`format 1, this version reads ${SNAPSHOT_FORMAT}`)],
] as const) {
  t.test(`a ${name} snapshot is ignored with a warning and the log replayed`, async (t) => {
    const { dir, env, key, live } = await populatedThenStopped(t);
    const file = path.join(dir, SNAPSHOT_FILE);
    writeFileSync(file, damage(readFileSync(file, 'utf8')));
    const second = await start(env);
    t.teardown(() => second.node.stop());
    t.equal(second.ready.from_snapshot, null);
    t.match(second.warnings, [{ msg: 'snapshot ignored; replaying the whole log', reason }]);
    t.same((await answers(second.node.url, second.admin, key)).evaluated, live.evaluated);
  });
}

t.test('a snapshot from another log is ignored', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const first = await start(env);
  await populate(first.admin);
  await first.node.stop();
  for (const suffix of ['', '-wal', '-shm']) rmSync(path.join(dir, `events.db${suffix}`), { force: true });
  const fresh = await start(env);
  t.teardown(() => fresh.node.stop());
  t.match(fresh.warnings, [{ reason: /another log/ }]);
  t.same((await fresh.admin.get('/api/rule-engine/rules')).json.rules, [], 'nothing from the old log');
});

t.test('erasing a secret rewrites the snapshot at once', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const first = await start(env);
  const secret = await first.admin.post('/api/vault/secrets', { key: 'DOOMED', value: 'doomed-value' });
  await first.node.stop();
  const file = path.join(dir, SNAPSHOT_FILE);
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const sealed = JSON.parse(lines[lines.findIndex((line) => line.startsWith('{"member":"secrets"')) + 1]).sealed;
  t.ok(readFileSync(file, 'utf8').includes(sealed.ciphertext), 'the snapshot held the sealed value');
  const second = await start(env);
  t.teardown(() => second.node.stop());
  t.equal((await second.admin.delete(`/api/vault/secrets/${secret.json.id}`)).status, 204);
  t.notOk(readFileSync(file, 'utf8').includes(sealed.ciphertext), 'no snapshot keeps the erased value');
});
