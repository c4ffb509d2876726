/**
 * Where the master key comes from (contract §4, 7): RULEVAULT_MASTER_KEY, or
 * `<dataDir>/master.key`, created with owner-only permissions on first start.
 * Both hold standard base64 (with padding) of exactly 32 bytes; surrounding
 * whitespace, such as the newline `openssl rand -base64 32` prints, is ignored.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadSodium, type Sodium } from './sodium';

export const MASTER_KEY_FILE = 'master.key';
const MASTER_KEY_BYTES = 32;

export interface LoadedMasterKey {
  readonly key: Uint8Array;
  /** `created`: a new key file was written; start-up should tell the operator to back it up. */
  readonly source: 'env' | 'file' | 'created';
  /** The key file, for `file` and `created`. */
  readonly path?: string;
}

/**
 * Loads the master key from the environment value when given, else from the
 * data folder, creating the key file (0600, folder 0700) when absent. Throws an
 * Error naming RULEVAULT_MASTER_KEY or the file path; never echoes key material.
 */
export async function loadMasterKey(opts: { envValue: string | undefined; dataDir: string }): Promise<LoadedMasterKey> {
  const sodium = await loadSodium();
  if (opts.envValue !== undefined) {
    return { key: decodeKey(sodium, opts.envValue, 'RULEVAULT_MASTER_KEY'), source: 'env' };
  }
  const path = join(opts.dataDir, MASTER_KEY_FILE);
  const existing = await readKeyFile(sodium, path);
  if (existing !== undefined) return { key: existing, source: 'file', path };
  await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
  const created = await createKeyFile(sodium, path);
  return created.won ? { key: created.key, source: 'created', path } : { key: created.key, source: 'file', path };
}

/** Base64 of 32 fresh random bytes: a new master key, for the rotation command. */
export async function generateMasterKey(): Promise<string> {
  const sodium = await loadSodium();
  const key = sodium.randombytes_buf(MASTER_KEY_BYTES);
  const text = sodium.to_base64(key, sodium.base64_variants.ORIGINAL);
  sodium.memzero(key);
  return text;
}

function decodeKey(sodium: Sodium, text: string, source: string): Uint8Array {
  let key: Uint8Array;
  try {
    key = sodium.from_base64(text.trim(), sodium.base64_variants.ORIGINAL);
  } catch {
    throw new Error(`${source} is not valid base64; it must be standard base64 of 32 random bytes (e.g. from \`openssl rand -base64 32\`)`);
  }
  if (key.length !== MASTER_KEY_BYTES) {
    const length = key.length;
    sodium.memzero(key);
    throw new Error(`${source} decodes to ${length} bytes; a master key must be exactly ${MASTER_KEY_BYTES} bytes`);
  }
  return key;
}

/** The key in an existing file, or undefined when there is no file. */
async function readKeyFile(sodium: Sodium, path: string): Promise<Uint8Array | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw new Error(`cannot read master key file ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`master key file ${path} is not a regular file`);
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
      throw new Error(`master key file ${path} is readable or writable by group or others (mode ${mode}); run \`chmod 600 ${path}\``);
    }
    const text = await handle.readFile({ encoding: 'utf8' });
    return decodeKey(sodium, text, `master key file ${path}`);
  } finally {
    await handle.close();
  }
}

/**
 * Writes a new key to a private temporary file, then links it into place: the
 * key file appears complete or not at all, and when two processes start at
 * once the first link wins and the other adopts the winner's key.
 */
async function createKeyFile(sodium: Sodium, path: string): Promise<{ key: Uint8Array; won: boolean }> {
  const key = sodium.randombytes_buf(MASTER_KEY_BYTES);
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(sodium.to_base64(key, sodium.base64_variants.ORIGINAL) + '\n');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temporary, path);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw new Error(`cannot create master key file ${path}: ${(error as Error).message}`);
    sodium.memzero(key);
    const existing = await readKeyFile(sodium, path);
    if (existing === undefined) throw new Error(`master key file ${path} vanished while being created`);
    return { key: existing, won: false };
  } finally {
    await unlink(temporary);
  }
  await syncDirectory(path);
  return { key, won: true };
}

// The new directory entry must survive a crash: secrets sealed under the key are useless without it.
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(dirname(path), constants.O_RDONLY);
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}
