import t from 'tap';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMasterKey, loadMasterKey, MASTER_KEY_FILE } from '../../src/vault/master-key';

async function tempDir(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rulevault-master-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Loads and expects a rejection; returns its message. */
async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected loadMasterKey to reject');
}

t.test('a valid RULEVAULT_MASTER_KEY is used as is', async (t) => {
  const dataDir = join(await tempDir(t), 'data');
  const bytes = randomBytes(32);
  const loaded = await loadMasterKey({ envValue: bytes.toString('base64'), dataDir });
  t.equal(loaded.source, 'env');
  t.equal(loaded.path, undefined);
  t.same(Buffer.from(loaded.key), bytes);
  await t.rejects(stat(dataDir), { code: 'ENOENT' }, 'no key file is created when the variable is set');
  const padded = await loadMasterKey({ envValue: `  ${bytes.toString('base64')}\n`, dataDir });
  t.same(Buffer.from(padded.key), bytes, 'surrounding whitespace (openssl\'s newline) is ignored');
});

t.test('an invalid RULEVAULT_MASTER_KEY is refused without echoing it', async (t) => {
  const dataDir = await tempDir(t);
  const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['too short', randomBytes(16).toString('base64'), /decodes to 16 bytes; a master key must be exactly 32 bytes/],
    ['too long', randomBytes(48).toString('base64'), /decodes to 48 bytes/],
    ['not base64', 'this is not base64 at all!', /is not valid base64/],
    ['url-safe alphabet', Buffer.from(Array(32).fill(0xfb)).toString('base64url'), /is not valid base64/],
    ['hex instead of base64', randomBytes(32).toString('hex'), /decodes to 48 bytes|is not valid base64/],
  ];
  for (const [name, value, expected] of cases) {
    const message = await rejection(loadMasterKey({ envValue: value, dataDir }));
    t.match(message, /^RULEVAULT_MASTER_KEY /, `${name}: names the variable`);
    t.match(message, expected, `${name}: says what is wrong`);
    t.notMatch(message, value, `${name}: does not echo the value`);
  }
});

t.test('without the variable, a key file is created with owner-only permissions', async (t) => {
  const dataDir = join(await tempDir(t), 'nested', 'data');
  const created = await loadMasterKey({ envValue: undefined, dataDir });
  const path = join(dataDir, MASTER_KEY_FILE);
  t.equal(created.source, 'created');
  t.equal(created.path, path);
  t.equal(created.key.length, 32);
  t.equal((await stat(path)).mode & 0o777, 0o600, 'key file 0600');
  t.equal((await stat(dataDir)).mode & 0o777, 0o700, 'new data folder 0700');
  t.same(Buffer.from((await readFile(path, 'utf8')).trim(), 'base64'), Buffer.from(created.key), 'the file holds the key in base64');
  t.same(await readdir(dataDir), [MASTER_KEY_FILE], 'no temporary files left behind');

  const again = await loadMasterKey({ envValue: undefined, dataDir });
  t.equal(again.source, 'file', 'the next start reads it');
  t.same(Buffer.from(again.key), Buffer.from(created.key));
});

t.test('an existing key file is read', async (t) => {
  const dataDir = await tempDir(t);
  const bytes = randomBytes(32);
  const path = join(dataDir, MASTER_KEY_FILE);
  await writeFile(path, bytes.toString('base64') + '\n', { mode: 0o600 });
  const loaded = await loadMasterKey({ envValue: undefined, dataDir });
  t.same(loaded, { key: new Uint8Array(bytes), source: 'file', path });
  await chmod(path, 0o400);
  t.same(Buffer.from((await loadMasterKey({ envValue: undefined, dataDir })).key), bytes, 'read-only for the owner is fine');
});

t.test('a key file readable by group or others is refused', async (t) => {
  const dataDir = await tempDir(t);
  const key = randomBytes(32).toString('base64');
  const path = join(dataDir, MASTER_KEY_FILE);
  await writeFile(path, key);
  for (const mode of [0o644, 0o640, 0o604, 0o660]) {
    await chmod(path, mode);
    const message = await rejection(loadMasterKey({ envValue: undefined, dataDir }));
    t.match(message, `master key file ${path} is readable or writable by group or others (mode 0${mode.toString(8)})`);
    t.match(message, 'chmod 600');
    t.notMatch(message, key, 'the key is not echoed');
  }
  await chmod(path, 0o644);
  t.equal(await readFile(path, 'utf8'), key, 'the refused file is left untouched');
});

t.test('a malformed key file is refused, naming the path', async (t) => {
  const dataDir = await tempDir(t);
  const path = join(dataDir, MASTER_KEY_FILE);
  for (const [content, expected] of [
    ['', /decodes to 0 bytes/],
    ['not base64!', /is not valid base64/],
    [randomBytes(31).toString('base64'), /decodes to 31 bytes/],
  ] as const) {
    await writeFile(path, content, { mode: 0o600 });
    const message = await rejection(loadMasterKey({ envValue: undefined, dataDir }));
    t.match(message, `master key file ${path}`);
    t.match(message, expected);
  }
  await rm(path);
  await mkdir(path, { mode: 0o700 });
  t.match(await rejection(loadMasterKey({ envValue: undefined, dataDir })), `${path} is not a regular file`);
});

t.test('concurrent first starts agree on one key', async (t) => {
  const dataDir = join(await tempDir(t), 'data');
  const results = await Promise.all(Array.from({ length: 4 }, () => loadMasterKey({ envValue: undefined, dataDir })));
  t.equal(results.filter((r) => r.source === 'created').length, 1, 'exactly one creates it');
  for (const result of results) t.same(Buffer.from(result.key), Buffer.from(results[0]!.key));
  t.same(await readdir(dataDir), [MASTER_KEY_FILE], 'no temporary files left behind');
});

t.test('generateMasterKey', async (t) => {
  const a = await generateMasterKey();
  const b = await generateMasterKey();
  t.equal(Buffer.from(a, 'base64').length, 32);
  t.equal(Buffer.from(a, 'base64').toString('base64'), a, 'standard padded base64');
  t.not(a, b);
  const dataDir = await tempDir(t);
  t.equal((await loadMasterKey({ envValue: a, dataDir })).source, 'env', 'accepted as RULEVAULT_MASTER_KEY');
});
