/**
 * The engine image saved beside the snapshot (src/snapshots/engine-image-file.ts): a
 * start from the snapshot restores the engine instead of compiling the rules
 * and answers as the node did live, and stays live (writes after the start
 * change its answers); an image with a byte flipped in any of its sections,
 * a truncated one, or one of another snapshot is refused with its reason,
 * and the start compiles the rules instead, answering the same. The image
 * holds no secret.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { IMAGE_SECTIONS } from '../../src/engine';
import { ENGINE_IMAGE_FILE } from '../../src/snapshots/engine-image-file';
import { createLogger } from '../../src/base/log';
import { SNAPSHOT_FILE } from '../../src/snapshots/snapshot';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';

type Client = ReturnType<typeof client>;

async function start(env: Record<string, string>) {
  const lines: string[] = [];
  const node = await startTestNode(env, createLogger((line) => lines.push(line)));
  const logs = () => lines.map((l) => JSON.parse(l) as { level: string; msg: string; reason?: string; rules?: number });
  // What it logged by ready; logs() for what it logged since.
  return { node, logged: logs(), logs, admin: client(node.url, node.adminKey) };
}

const RULES = 12;

/** Rules on text, number, regex, prefix and in conditions, some inactive, one removed, so the image has every kind of section content. */
async function populate(admin: Client): Promise<string> {
  const context = await admin.post('/api/contexts', { name: 'c', content: 'x' });
  const link = [{ entity_type: 'context', entity_id: context.json.id }];
  for (let i = 0; i < RULES; i++) {
    const conditions = [
      { field: 'n', operator: 'lte', value: String(i), data_type: 'number' },
      i % 3 === 0
        ? { field: 'who', operator: 'regex', value: `^a.*${i % 5}$`, data_type: 'string' }
        : i % 3 === 1
          ? { field: 'who', operator: 'starts_with', value: `a${i % 4}`, data_type: 'string' }
          : { field: 'tier', operator: 'in', value: 'gold,silver', data_type: 'string' },
    ];
    const created = await admin.post('/api/rule-engine/rules', {
      name: `r${i}`, status: i % 5 === 4 ? 'INACTIVE' : 'ACTIVE', group_operator: i % 2 === 0 ? 'AND' : 'OR',
      condition_groups: [{ conditions }], entities: link,
    });
    if (i === 7) await admin.delete(`/api/rule-engine/rules/${created.json.id}`);
  }
  await admin.post('/api/vault/secrets', { key: 'IMAGE_SECRET', value: 'engine-image-plaintext', tags: [] });
  return (await admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] })).json.key as string;
}

const REQUESTS = [
  { n: 3, who: 'a3', tier: 'gold' }, { n: 0, who: 'ab0' }, { n: 11, tier: 'silver' }, { n: 5, who: 'a1x', tier: 'bronze' }, { who: 'a0' },
];

async function answers(url: string, key: string): Promise<unknown[]> {
  const evaluator = client(url, key);
  const out: unknown[] = [];
  for (const fields of REQUESTS) out.push((await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields })).json);
  return out;
}

async function populatedThenStopped(t: tap.Test, beforeStop: (dir: string) => void = () => undefined) {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  const first = await start(env);
  const key = await populate(first.admin);
  const live = await answers(first.node.url, key);
  beforeStop(dir);
  await first.node.stop();
  return { dir, env, key, live, first, file: path.join(dir, ENGINE_IMAGE_FILE) };
}

t.test('a start restores the engine from its image, answers as before and stays live', async (t) => {
  const { env, key, live, file } = await populatedThenStopped(t);
  t.equal(statSync(file).mode & 0o777, 0o600, 'owner-only');
  const bytes = readFileSync(file);
  t.notOk(bytes.includes('engine-image-plaintext'), 'no plaintext secret in the image');
  t.notOk(bytes.includes(Buffer.from('engine-image-plaintext').toString('base64')), 'not even base64');

  const second = await start(env);
  t.teardown(() => second.node.stop());
  const restored = second.logged.find((l) => l.msg === 'engine image restored');
  t.ok(restored, 'the engine came from its image');
  t.same(second.logged.filter((l) => l.level === 'warn'), []);
  t.same(await answers(second.node.url, key), live, 'the same answers');

  // Live after the restore: a new rule matches, a removed one no longer does.
  const created = await second.admin.post('/api/rule-engine/rules', {
    name: 'late', condition_groups: [{ conditions: [{ field: 'late', operator: 'equals', value: 'yes', data_type: 'string' }] }],
  });
  const late = await client(second.node.url, key).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { late: 'yes' } });
  t.same(late.json.matchingRuleIds, [created.json.id], 'a rule created after the restore matches');
  const before = (await client(second.node.url, key).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: REQUESTS[0] })).json.matchingRuleIds as string[];
  t.ok(before.length > 0);
  await second.admin.delete(`/api/rule-engine/rules/${before[0]}`);
  const after = (await client(second.node.url, key).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: REQUESTS[0] })).json.matchingRuleIds as string[];
  t.same(after, before.slice(1), 'a rule removed after the restore no longer matches');
});

/** Where each section's bytes start in the file (the header names them in order, each padded to 8 bytes). */
function sectionStarts(bytes: Buffer): Map<string, { at: number; bytes: number }> {
  const newline = bytes.indexOf(10);
  const header = JSON.parse(bytes.toString('utf8', 0, newline)) as { sections: Array<{ name: string; bytes: number }> };
  const starts = new Map<string, { at: number; bytes: number }>();
  let at = newline + 1;
  for (const s of header.sections) {
    starts.set(s.name, { at, bytes: s.bytes });
    at += s.bytes + ((8 - (s.bytes % 8)) % 8);
  }
  return starts;
}

t.test('a damaged image is refused with its reason, and the start compiles the rules instead', async (t) => {
  const { env, key, live, file } = await populatedThenStopped(t);
  const original = readFileSync(file);
  const snapshotFile = path.join(path.dirname(file), SNAPSHOT_FILE);
  const snapshot = readFileSync(snapshotFile);
  const starts = sectionStarts(original);
  t.same([...starts.keys()], [...IMAGE_SECTIONS], 'every section is in the file');
  const damages: Array<[string, Buffer, RegExp]> = [];
  for (const [name, { at, bytes }] of starts) {
    t.ok(bytes > 0, `${name} is not empty`);
    const flipped = Buffer.from(original);
    flipped[at + Math.floor(bytes / 2)] ^= 0x01;
    damages.push([`a byte flipped in ${name}`, flipped, new RegExp(`section ${name.replace('.', '\\.')} does not match its checksum`)]);
  }
  damages.push(['truncated', original.subarray(0, original.length - 9), /truncated/]);
  const header = original.toString('utf8', 0, original.indexOf(10));
  const other = header.replace(/"snapshot_sha256":"[0-9a-f]{64}"/, `"snapshot_sha256":"${'0'.repeat(64)}"`);
  damages.push(['of another snapshot', Buffer.concat([Buffer.from(other), original.subarray(header.length)]), /another snapshot/]);
  damages.push(['of another format', Buffer.concat([Buffer.from(header.replace('"format":3', '"format":2')), original.subarray(header.length)]), /format 2, this version reads 3/]);
  damages.push(['garbled header', Buffer.concat([Buffer.from('#'), original]), /not valid JSON/]);

  for (const [what, damaged, reason] of damages) {
    writeFileSync(file, damaged);
    const node = await start(env);
    const warned = node.logged.filter((l) => l.level === 'warn');
    t.match(warned, [{ msg: 'engine image ignored; compiling the rules', reason }], `${what}: refused, saying why`);
    t.notOk(node.logged.some((l) => l.msg === 'engine image restored'), `${what}: not restored`);
    t.same(await answers(node.node.url, key), live, `${what}: the compiled rules answer the same`);
    // Stopping rewrites the snapshot and its image: the next case starts from the originals.
    await node.node.stop();
    writeFileSync(snapshotFile, snapshot);
  }
});

t.test('an image that cannot be written leaves the snapshot standing; the next start compiles the rules', async (t) => {
  // A directory where the image's temp file goes: opening it for writing fails.
  const { dir, env, key, live, first } = await populatedThenStopped(t, (dir) => mkdirSync(path.join(dir, `${ENGINE_IMAGE_FILE}.tmp`)));
  t.ok(existsSync(path.join(dir, SNAPSHOT_FILE)), 'the snapshot is written');
  t.notOk(existsSync(path.join(dir, ENGINE_IMAGE_FILE)), 'the image is not');
  t.ok(first.logs().some((l) => l.level === 'warn' && l.msg === 'engine image not written; the next start compiles the rules'), 'it says so');
  t.notOk(first.logs().some((l) => l.msg === 'snapshot failed'), 'the snapshot did not fail');
  rmSync(path.join(dir, `${ENGINE_IMAGE_FILE}.tmp`), { recursive: true });

  const second = await start(env);
  t.teardown(() => second.node.stop());
  t.notOk(second.logged.some((l) => l.msg === 'engine image restored'), 'no image to restore');
  t.same(second.logged.filter((l) => l.level === 'warn'), [], 'a missing image is no warning');
  t.same(await answers(second.node.url, key), live, 'the compiled rules answer the same');
});

/**
 * The line `find` finds, once the node has logged it. No deadline of its own: a periodic snapshot comes
 * every 50 ms, but under a loaded machine a wall-clock bound failed while nothing was wrong; tap's
 * per-test timeout still ends a wait for a line that never comes.
 */
async function untilLogged<T>(find: () => T | undefined): Promise<T> {
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('a periodic snapshot is written without an image and removes the older one; the shutdown snapshot has one', async (t) => {
  const { env, key, file } = await populatedThenStopped(t);
  t.ok(existsSync(file), 'the shutdown snapshot wrote an image');
  const node = await start({ ...env, RULEVAULT_SNAPSHOT_INTERVAL_MS: '50' });
  await node.admin.post('/api/rule-engine/rules', {
    name: 'moved', condition_groups: [{ conditions: [{ field: 'moved', operator: 'equals', value: 'yes', data_type: 'string' }] }],
  });
  t.ok(await untilLogged(() => node.logs().find((l) => l.msg === 'snapshot written')), 'a periodic snapshot was written');
  t.notOk(existsSync(file), 'without an image, and the older image is gone');
  const live = await answers(node.node.url, key);
  await node.node.stop();
  t.ok(existsSync(file), 'the shutdown snapshot has its image again');
  const again = await start(env);
  t.teardown(() => again.node.stop());
  t.ok(again.logged.some((l) => l.msg === 'engine image restored'), 'and a start restores it');
  t.same(await answers(again.node.url, key), live);
});

t.test('with RULEVAULT_SNAPSHOT_ENGINE_IMAGE=every a periodic snapshot has its image; a start after a crash restores it and replays the rest', async (t) => {
  const { dir, env, key, file } = await populatedThenStopped(t);
  const snapshotFile = path.join(dir, SNAPSHOT_FILE);
  const node = await start({ ...env, RULEVAULT_SNAPSHOT_INTERVAL_MS: '50', RULEVAULT_SNAPSHOT_ENGINE_IMAGE: 'every' });
  t.teardown(() => node.node.stop()); // stopped below; stop is idempotent (a failure before it leaves none running)
  const rule = (name: string) => ({ name, condition_groups: [{ conditions: [{ field: name, operator: 'equals', value: 'yes', data_type: 'string' }] }] });
  await node.admin.post('/api/rule-engine/rules', rule('moved'));
  type Written = { msg: string; reason?: string; position?: string };
  const periodic = (): Written | undefined => (node.logs() as Written[]).find((l) => l.msg === 'snapshot written' && l.reason === 'periodic');
  t.ok(await untilLogged(periodic), 'a periodic snapshot was written');
  const image = readFileSync(file);
  const header = JSON.parse(image.toString('utf8', 0, image.indexOf(10))) as { position: string };
  t.equal(header.position, periodic()?.position, 'with its image (the older one replaced)');
  const snapshot = readFileSync(snapshotFile);
  // Changes after the periodic snapshot, then a crash: the files are put back to the periodic snapshot's.
  await node.admin.post('/api/rule-engine/rules', rule('after'));
  const live = await answers(node.node.url, key);
  await node.node.stop();
  writeFileSync(snapshotFile, snapshot);
  writeFileSync(file, image);
  const again = await start(env);
  t.teardown(() => again.node.stop());
  t.ok(again.logged.some((l) => l.msg === 'engine image restored'), 'a start restores the periodic image');
  t.same(again.logged.filter((l) => l.level === 'warn'), [], 'with no warning');
  t.same(await answers(again.node.url, key), live, 'and answers as before the crash, the rule written after it replayed');
});
