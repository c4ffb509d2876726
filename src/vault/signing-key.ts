/**
 * The hash chain's signing key (issue 19): an Ed25519 key of its own, never
 * the master key, that signs the chain's checkpoints. It comes from
 * RULEVAULT_SIGNING_KEY (standard base64 of a 32-byte seed) or from
 * `<dataDir>/signing.key`, created on first use like `master.key` (0600).
 * Only its public half leaves this module: auditors verify with it alone.
 */
import { createHash } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { loadKey, type KeyKind } from './key-file';
import { loadSodium, type Sodium } from './sodium';

export const SIGNING_KEY_FILE = 'signing.key';
const SIGNING: KeyKind = { label: 'signing key', bytes: 32, hint: 'e.g. from `openssl rand -base64 32`' };

export interface SigningKey {
  /** Standard base64 of the 32-byte Ed25519 public key. */
  readonly publicKey: string;
  readonly keyId: string;
  /** Base64 of the detached Ed25519 signature of `message`. */
  sign(message: string): string;
}

export interface LoadedSigningKey {
  readonly key: SigningKey;
  readonly source: 'env' | 'file' | 'created';
  readonly path?: string;
}

/** The signing key from the environment value, else the data folder's file (created when absent). */
export async function loadSigningKey(opts: { envValue: string | undefined; dataDir: string }): Promise<LoadedSigningKey> {
  const sodium = await loadSodium();
  const loaded = await loadKey(sodium, SIGNING, { envValue: opts.envValue, envName: 'RULEVAULT_SIGNING_KEY', path: join(opts.dataDir, SIGNING_KEY_FILE) });
  return { key: fromSeed(sodium, loaded.key), source: loaded.source, ...(loaded.path === undefined ? {} : { path: loaded.path }) };
}

/**
 * Rotation of the file key, step one: the next key, in `signing.key.next`
 * (created when absent, kept when an interrupted rotation left it). With
 * RULEVAULT_SIGNING_KEY the next key comes from `newEnvValue`.
 */
export async function loadNextSigningKey(opts: { newEnvValue: string | undefined; dataDir: string }): Promise<LoadedSigningKey> {
  const sodium = await loadSodium();
  const path = join(opts.dataDir, `${SIGNING_KEY_FILE}.next`);
  const loaded = await loadKey(sodium, SIGNING, { envValue: opts.newEnvValue, envName: 'RULEVAULT_NEW_SIGNING_KEY', path });
  return { key: fromSeed(sodium, loaded.key), source: loaded.source, ...(loaded.path === undefined ? {} : { path: loaded.path }) };
}

/** Rotation, last step: the next key file replaces the current one (the old key is gone). */
export async function retireSigningKey(dataDir: string): Promise<void> {
  await rename(join(dataDir, `${SIGNING_KEY_FILE}.next`), join(dataDir, SIGNING_KEY_FILE));
}

/** A key made now, for tests and benchmarks that need a second key. */
export async function generateSigningKey(): Promise<SigningKey> {
  const sodium = await loadSodium();
  return fromSeed(sodium, sodium.randombytes_buf(SIGNING.bytes));
}

/** Checks detached signatures; false for malformed input, never a throw. */
export type SignatureCheck = (publicKey: string, message: string, signature: string) => boolean;

export async function createSignatureCheck(): Promise<SignatureCheck> {
  const sodium = await loadSodium();
  return (publicKey, message, signature) => {
    try {
      const key = sodium.from_base64(publicKey, sodium.base64_variants.ORIGINAL);
      const sig = sodium.from_base64(signature, sodium.base64_variants.ORIGINAL);
      if (key.length !== sodium.crypto_sign_PUBLICKEYBYTES || sig.length !== sodium.crypto_sign_BYTES) return false;
      return sodium.crypto_sign_verify_detached(sig, sodium.from_string(message), key);
    } catch {
      return false;
    }
  };
}

/** A public key's short id: the first 16 hex digits of SHA-256 over its bytes. */
export function signingKeyId(publicKey: string): string {
  return createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex').slice(0, 16);
}

/** Decodes a public key given by an auditor; undefined when it is not base64 of 32 bytes. */
export function parsePublicKey(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]{43}=$/.test(trimmed)) return undefined;
  return Buffer.from(trimmed, 'base64').length === 32 ? trimmed : undefined;
}

function fromSeed(sodium: Sodium, seed: Uint8Array): SigningKey {
  const pair = sodium.crypto_sign_seed_keypair(seed);
  sodium.memzero(seed);
  const publicKey = sodium.to_base64(pair.publicKey, sodium.base64_variants.ORIGINAL);
  return {
    publicKey,
    keyId: signingKeyId(publicKey),
    sign: (message) => sodium.to_base64(sodium.crypto_sign_detached(sodium.from_string(message), pair.privateKey), sodium.base64_variants.ORIGINAL),
  };
}
