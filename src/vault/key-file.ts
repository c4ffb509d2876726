/**
 * Key files in the data folder (the master key, the chain's signing key):
 * standard base64 of a fixed number of random bytes, owner-only permissions,
 * created atomically. Messages name the key and the file, never its bytes.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { link, mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Sodium } from './sodium';

/** Which key a file holds: for messages and its length. */
export interface KeyKind {
  readonly label: string;
  readonly bytes: number;
  /** How to make one, for the bad-base64 message. */
  readonly hint: string;
}

export interface LoadedKey {
  readonly key: Uint8Array;
  /** `created`: a new key file was written; start-up should tell the operator to back it up. */
  readonly source: 'env' | 'file' | 'created';
  /** The key file, for `file` and `created`. */
  readonly path?: string;
}

/**
 * The key from the environment value when given, else from `path`, creating
 * the file (0600, folder 0700) when absent. Throws an Error naming `envName`
 * or the file; never echoes key material.
 */
export async function loadKey(sodium: Sodium, kind: KeyKind, opts: { envValue: string | undefined; envName: string; path: string }): Promise<LoadedKey> {
  if (opts.envValue !== undefined) return { key: decodeKey(sodium, kind, opts.envValue, opts.envName), source: 'env' };
  const existing = await readKeyFile(sodium, kind, opts.path);
  if (existing !== undefined) return { key: existing, source: 'file', path: opts.path };
  await mkdir(dirname(opts.path), { recursive: true, mode: 0o700 });
  const created = await createKeyFile(sodium, kind, opts.path);
  return { key: created.key, source: created.won ? 'created' : 'file', path: opts.path };
}

export function decodeKey(sodium: Sodium, kind: KeyKind, text: string, source: string): Uint8Array {
  let key: Uint8Array;
  try {
    key = sodium.from_base64(text.trim(), sodium.base64_variants.ORIGINAL);
  } catch {
    throw new Error(`${source} is not valid base64; it must be standard base64 of ${kind.bytes} random bytes (${kind.hint})`);
  }
  if (key.length !== kind.bytes) {
    const length = key.length;
    sodium.memzero(key);
    throw new Error(`${source} decodes to ${length} bytes; a ${kind.label} must be exactly ${kind.bytes} bytes`);
  }
  return key;
}

/**
 * The key in an existing file, or undefined when there is no file. Only a
 * regular file is read: the file is opened without blocking and checked
 * before any read, so a FIFO (whose open waits for a writer, and whose read
 * waits for data) or a device is refused at once instead of holding start-up.
 */
export async function readKeyFile(sodium: Sodium, kind: KeyKind, path: string): Promise<Uint8Array | undefined> {
  let handle;
  try {
    // O_NONBLOCK: changes nothing for a regular file; a FIFO opens at once, to be refused below.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw new Error(`cannot read ${kind.label} file ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new Error(`${kind.label} file ${path} is not a regular file (it is ${fileKind(stat)}); a key file must be a regular file holding the key`);
    }
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
      throw new Error(`${kind.label} file ${path} is readable or writable by group or others (mode ${mode}); run \`chmod 600 ${path}\``);
    }
    const text = await handle.readFile({ encoding: 'utf8' });
    return decodeKey(sodium, kind, text, `${kind.label} file ${path}`);
  } finally {
    await handle.close();
  }
}

/**
 * Writes a new key to a private temporary file, then links it into place: the
 * key file appears complete or not at all, and when two processes start at
 * once the first link wins and the other adopts the winner's key.
 */
export async function createKeyFile(sodium: Sodium, kind: KeyKind, path: string): Promise<{ key: Uint8Array; won: boolean }> {
  const key = sodium.randombytes_buf(kind.bytes);
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
    if (!isErrno(error, 'EEXIST')) throw new Error(`cannot create ${kind.label} file ${path}: ${(error as Error).message}`);
    sodium.memzero(key);
    const existing = await readKeyFile(sodium, kind, path);
    if (existing === undefined) throw new Error(`${kind.label} file ${path} vanished while being created`);
    return { key: existing, won: false };
  } finally {
    await unlink(temporary);
  }
  await syncDirectory(path);
  return { key, won: true };
}

// The new directory entry must survive a crash: what was sealed or signed under the key needs it.
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(dirname(path), constants.O_RDONLY);
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function fileKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  return 'not a file';
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}
