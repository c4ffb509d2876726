/**
 * Where the master key comes from (contract §4, 7): RULEVAULT_MASTER_KEY, or
 * `<dataDir>/master.key`, created with owner-only permissions on first start.
 * Both hold standard base64 (with padding) of exactly 32 bytes; surrounding
 * whitespace, such as the newline `openssl rand -base64 32` prints, is ignored.
 */
import { join } from 'node:path';
import { loadKey, type KeyKind, type LoadedKey } from './key-file';
import { loadSodium } from './sodium';

export const MASTER_KEY_FILE = 'master.key';
const MASTER_KEY_BYTES = 32;
const MASTER: KeyKind = { label: 'master key', bytes: MASTER_KEY_BYTES, hint: 'e.g. from `openssl rand -base64 32`' };

export type LoadedMasterKey = LoadedKey;

/**
 * Loads the master key from the environment value when given, else from the
 * data folder, creating the key file (0600, folder 0700) when absent. Throws an
 * Error naming RULEVAULT_MASTER_KEY or the file path; never echoes key material.
 */
export async function loadMasterKey(opts: { envValue: string | undefined; dataDir: string }): Promise<LoadedMasterKey> {
  return loadKey(await loadSodium(), MASTER, { envValue: opts.envValue, envName: 'RULEVAULT_MASTER_KEY', path: join(opts.dataDir, MASTER_KEY_FILE) });
}

/**
 * Rotation, the next key: from `newEnvValue` (RULEVAULT_NEW_MASTER_KEY) when
 * given, else `<dataDir>/master.key.next`, created when absent and kept when
 * an interrupted rotation left it; read as `master.key` is (a regular file,
 * owner-only).
 */
export async function loadNextMasterKey(opts: { newEnvValue: string | undefined; dataDir: string }): Promise<LoadedMasterKey> {
  return loadKey(await loadSodium(), MASTER, { envValue: opts.newEnvValue, envName: 'RULEVAULT_NEW_MASTER_KEY', path: join(opts.dataDir, `${MASTER_KEY_FILE}.next`) });
}

/** Base64 of 32 fresh random bytes: a new master key, for the rotation command. */
export async function generateMasterKey(): Promise<string> {
  const sodium = await loadSodium();
  const key = sodium.randombytes_buf(MASTER_KEY_BYTES);
  const text = sodium.to_base64(key, sodium.base64_variants.ORIGINAL);
  sodium.memzero(key);
  return text;
}

