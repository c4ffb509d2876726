/**
 * Black-box: a key file in the data folder that is not a regular file (a
 * FIFO, a directory) stops start-up at once with a message naming the path,
 * for master.key and signing.key, and stops `rulevault rotate-master-key` for
 * master.key.next. A FIFO used to hold start-up for good: its open waits
 * for a writer.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { removeDir, tempDir, testEnv } from '../support/node';
import { childEnv, CLI_SCRIPT, DIST } from '../support/process';

interface Ended {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs a compiled script (the service by default) to its exit. A guard, not
 * a measure: one still running after GIVE_UP_MS is killed and reported as hung.
 */
const GIVE_UP_MS = 60_000;
function runUntilExit(env: Record<string, string>, args: readonly string[] = [path.join(DIST, 'src', 'main.js')]): Promise<Ended | 'hung'> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('hung');
    }, GIVE_UP_MS);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, output });
    });
  });
}

const fifo = (file: string) => execFileSync('mkfifo', ['-m', '600', file]);

for (const [name, label] of [['master.key', 'master key'], ['signing.key', 'signing key']] as const) {
  t.test(`${name} that is a FIFO: start-up stops at once, naming the file`, async (t) => {
    const dir = tempDir();
    t.teardown(() => removeDir(dir));
    fifo(path.join(dir, name));
    const ended = await runUntilExit(testEnv(dir));
    if (ended === 'hung') return t.fail(`start-up still waiting on the FIFO after ${GIVE_UP_MS} ms`);
    t.equal(ended.code, 1, ended.output);
    t.match(ended.output, `${label} file ${path.join(dir, name)} is not a regular file (it is a FIFO); a key file must be a regular file holding the key`);
  });
}

t.test('master.key that is a directory: refused the same way', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  mkdirSync(path.join(dir, 'master.key'), { mode: 0o700 });
  const ended = await runUntilExit(testEnv(dir));
  if (ended === 'hung') return t.fail('start-up hung');
  t.equal(ended.code, 1);
  t.match(ended.output, `master key file ${path.join(dir, 'master.key')} is not a regular file (it is a directory)`);
});

t.test('rotate-master-key with a master.key.next that is a FIFO: refused, naming the file', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir);
  writeFileSync(path.join(dir, 'master.key'), randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  fifo(path.join(dir, 'master.key.next'));
  const rotated = await runUntilExit(env, [CLI_SCRIPT, 'rotate-master-key']);
  if (rotated === 'hung') return t.fail('the rotation hung on the FIFO');
  t.equal(rotated.code, 1, rotated.output);
  t.match(rotated.output, `master key file ${path.join(dir, 'master.key.next')} is not a regular file (it is a FIFO)`);
});
