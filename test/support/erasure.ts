/**
 * A data folder holding a secret about to be erased, and the check that no
 * copy of its value is left on disk: shared by the erasure suites
 * (test/http/erasure-crash.test.ts, test/http/erasure-finish.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { SNAPSHOT_FILE } from '../../src/snapshots';
import { client, type Client } from './http';
import { removeDir, startTestNode, tempDir, testEnv } from './node';

export const DOOMED_PLAINTEXT = 'erasure-doomed-plaintext-7f3a9c';
export const KEPT = { key: 'KEPT', value: 'kept-value-survives' };

export interface Sealed {
  readonly ciphertext: string;
  readonly wrapped_key: string;
}

export interface DoomedFolder {
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly id: string;
  readonly sealed: Sealed;
  readonly readerKey: string;
}

/** The sealed value of a secret's SecretCreated, as the audit log shows it. */
export async function sealedOf(admin: Client, id: string): Promise<Sealed> {
  const log = await admin.get('/api/audit/events?limit=1000');
  return log.json.events.find((e: { type: string; data: { id?: string } }) => e.type === 'SecretCreated' && e.data.id === id).data.sealed as Sealed;
}

export interface DoomedOptions {
  /** Env for every node on the folder, over `testEnv`'s. */
  readonly env?: Record<string, string>;
  /** The folder to use (the caller removes it); a fresh temp folder, removed at teardown, when absent. */
  readonly dir?: string;
  /** Writes more first, with an admin client. */
  readonly before?: (admin: Client) => Promise<void>;
}

/**
 * A data folder on the embedded store holding the doomed secret (key
 * DOOMED) and a kept one, written by a node that then stopped, so its
 * snapshot (unless snapshots are off) holds the doomed secret's sealed value too.
 */
export async function doomedFolder(t: Test, options: DoomedOptions = {}): Promise<DoomedFolder> {
  const dir = options.dir ?? tempDir();
  if (options.dir === undefined) t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_EVENTSTORE: `sqlite:${path.join(dir, 'events.db')}`, ...options.env });
  const first = await startTestNode(env);
  const admin = client(first.url, first.adminKey);
  await options.before?.(admin);
  const doomed = await writeDoomed(admin);
  await first.stop();
  return { dir, env, ...doomed };
}

/** Writes a reader key, the doomed secret and the kept one through `admin`. */
export async function writeDoomed(admin: Client): Promise<Pick<DoomedFolder, 'id' | 'sealed' | 'readerKey'>> {
  const readerKey = (await admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] })).json.key as string;
  const id = (await admin.post('/api/vault/secrets', { key: 'DOOMED', value: DOOMED_PLAINTEXT, tags: ['t'] })).json.id as string;
  await admin.post('/api/vault/secrets', KEPT);
  return { id, sealed: await sealedOf(admin, id), readerKey };
}

/** Every form in which the erased value could linger on disk. */
function traces(sealed: Sealed): [string, Buffer][] {
  return [
    ['the plaintext', Buffer.from(DOOMED_PLAINTEXT)],
    ['the plaintext in base64', Buffer.from(Buffer.from(DOOMED_PLAINTEXT).toString('base64'))],
    ['the ciphertext (base64)', Buffer.from(sealed.ciphertext)],
    ['the ciphertext (bytes)', Buffer.from(sealed.ciphertext, 'base64')],
    ['the wrapped key (base64)', Buffer.from(sealed.wrapped_key)],
    ['the wrapped key (bytes)', Buffer.from(sealed.wrapped_key, 'base64')],
  ];
}

/** The files of a data folder that may hold a copy of an event's data. */
export const DATA_FILES = ['events.db', 'events.db-wal', 'events.db-shm', SNAPSHOT_FILE, `${SNAPSHOT_FILE}.tmp`];

/** `file holds what` for each copy of the doomed value left in `files` (names in the folder). */
export function tracesLeft(folder: DoomedFolder, files: readonly string[] = DATA_FILES): string[] {
  const left: string[] = [];
  for (const name of files) {
    const file = path.join(folder.dir, name);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (const [what, needle] of traces(folder.sealed)) if (bytes.indexOf(needle) !== -1) left.push(`${name} holds ${what}`);
  }
  return left;
}

export function assertNoTraces(t: Test, folder: DoomedFolder, when: string): void {
  t.same(tracesLeft(folder), [], `${when}: no copy of the plaintext, ciphertext or wrapped key is left in the database, WAL, shm or snapshot`);
}
