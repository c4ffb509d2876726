/**
 * Envelope encryption of secret values (contract §4).
 *
 * Each value version gets a fresh random data key. The value is sealed with
 * XChaCha20-Poly1305-IETF under the data key, with additional data binding the
 * secret id and value version; the data key is wrapped the same way under the
 * master key, with additional data binding secret id, value version and master
 * key id. The value's ciphertext does not depend on the master key, so rotation
 * re-wraps 32-byte data keys and never touches values.
 */
import type { SealedCanary, SealedValue } from '../events/secret-events';
import { loadSodium, type Sodium } from './sodium';

/** A sealing failure. Its message never contains plaintext or key bytes. */
export class VaultError extends Error {
  override readonly name = 'VaultError';
}

export interface Sealer {
  /** Short public id of the master key (16 hex chars of a keyed BLAKE2b); reveals nothing about the key. */
  readonly masterKeyId: string;
  /** Seals one value version under a fresh data key. */
  seal(secretId: string, valueVersion: number, plaintext: string): SealedValue;
  /** Opens a value sealed for exactly this secret id and version; throws VaultError otherwise. */
  open(secretId: string, valueVersion: number, sealed: SealedValue): string;
  /** Re-wraps the same data key under `to`'s master key; the value's nonce and ciphertext are kept. */
  rewrap(secretId: string, valueVersion: number, sealed: SealedValue, to: Sealer): SealedValue;
  /** A known plaintext sealed directly under the master key. */
  makeCanary(): SealedCanary;
  /** True when the canary was made with this master key. Never throws on a malformed canary. */
  checkCanary(canary: SealedCanary): boolean;
  /** Zeroes this sealer's copy of the master key; every later call throws VaultError. */
  dispose(): void;
}

const ALG = 'xchacha20poly1305-ietf';
const MASTER_KEY_BYTES = 32;
const KEY_ID_BYTES = 8;
const CANARY_TEXT = 'rulevault master key canary v1';

/** What rewrap needs from the target sealer; never exposed outside this module. */
interface KeyWrapper {
  readonly masterKeyId: string;
  wrap(secretId: string, valueVersion: number, dataKey: Uint8Array): { wrapped_key: string; wrap_nonce: string };
}

// Lets rewrap reach the target's master key without putting it on the public interface.
const wrappers = new WeakMap<Sealer, KeyWrapper>();

/**
 * Creates a sealer holding its own copy of the 32-byte master key (the caller
 * may zero its buffer afterwards).
 */
export async function createSealer(masterKey: Uint8Array): Promise<Sealer> {
  const sodium = await loadSodium();
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== MASTER_KEY_BYTES) {
    throw new VaultError(`the master key must be exactly ${MASTER_KEY_BYTES} bytes`);
  }
  const key = new Uint8Array(masterKey);
  const masterKeyId = sodium.crypto_generichash(KEY_ID_BYTES, 'rulevault/master-key-id/v1', key, 'hex');
  let disposed = false;

  function masterKeyBytes(): Uint8Array {
    if (disposed) throw new VaultError('the sealer has been disposed');
    return key;
  }

  const wrapper: KeyWrapper = {
    masterKeyId,
    wrap(secretId, valueVersion, dataKey) {
      const nonce = sodium.randombytes_buf(sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
      const ad = wrapAdditionalData(secretId, valueVersion, masterKeyId);
      const wrapped = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(dataKey, ad, null, nonce, masterKeyBytes());
      return { wrapped_key: toBase64(sodium, wrapped), wrap_nonce: toBase64(sodium, nonce) };
    },
  };

  /** Steps 1-3 of open and rewrap: check the envelope, then unwrap its data key (caller zeroes it). */
  function unwrapDataKey(secretId: string, valueVersion: number, sealed: SealedValue): Uint8Array {
    masterKeyBytes();
    checkEnvelope(sealed);
    if (sealed.master_key_id !== masterKeyId) {
      throw new VaultError(
        `secret ${secretId} is sealed under master key ${sealed.master_key_id}, not under the current master key ${masterKeyId}`,
      );
    }
    const wrapped = fromBase64(sodium, sealed.wrapped_key, 'wrapped_key');
    const nonce = fromNonce(sodium, sealed.wrap_nonce, 'wrap_nonce');
    try {
      return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
        null,
        wrapped,
        wrapAdditionalData(secretId, valueVersion, masterKeyId),
        nonce,
        masterKeyBytes(),
      );
    } catch {
      throw new VaultError(
        `the data key of secret ${secretId} version ${valueVersion} does not open: it was altered or sealed for another secret or version`,
      );
    }
  }

  /** Decrypts the value bytes with an unwrapped data key; the caller zeroes both. */
  function openValue(secretId: string, valueVersion: number, sealed: SealedValue, dataKey: Uint8Array): Uint8Array {
    const ciphertext = fromBase64(sodium, sealed.ciphertext, 'ciphertext');
    const nonce = fromNonce(sodium, sealed.nonce, 'nonce');
    return decryptValue(secretId, valueVersion, ciphertext, valueAdditionalData(secretId, valueVersion), nonce, dataKey);
  }

  /** The value's AEAD open, from decoded parts (`openValue`, or a kept envelope in `open`). */
  function decryptValue(
    secretId: string, valueVersion: number, ciphertext: Uint8Array, additionalData: Uint8Array | string, nonce: Uint8Array, dataKey: Uint8Array,
  ): Uint8Array {
    try {
      return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, ciphertext, additionalData, nonce, dataKey);
    } catch {
      throw new VaultError(
        `the value of secret ${secretId} version ${valueVersion} does not open: it was altered or sealed for another secret or version`,
      );
    }
  }

  /**
   * Data keys held unwrapped for the life of the process, as the master key
   * is (docs/vault.md#threat-model): one AEAD operation per value on
   * get-secrets instead of two, and no base64 decoding (bench:
   * cpu-per-request --workload secrets; http-secrets). Keyed by the sealed
   * object the read model holds, so an entry lives as long as that value does
   * in the vault: a value updated, rewrapped or deleted drops its object, and
   * its data key is zeroed when the object is collected (or at dispose). An
   * entry answers only for the exact envelope it was made from (every field
   * the same string) and the binding it was checked with; anything else takes
   * the full path, so a tampered or swapped envelope fails exactly as before.
   * Plaintext values are never kept: each open decrypts afresh.
   */
  interface OpenedEnvelope {
    readonly secretId: string;
    readonly valueVersion: number;
    /** False for an envelope opened once and not kept: its data key is zeroed after the open. */
    readonly cached: boolean;
    readonly masterKeyId: string;
    readonly wrappedKey: string;
    readonly wrapNonce: string;
    readonly nonceText: string;
    readonly ciphertextText: string;
    readonly dataKey: Uint8Array;
    readonly nonce: Uint8Array;
    readonly ciphertext: Uint8Array;
    readonly additionalData: Uint8Array;
  }
  const opened = new WeakMap<SealedValue, OpenedEnvelope>();
  const liveDataKeys = new Set<Uint8Array>();
  const collected = new FinalizationRegistry<Uint8Array>((dataKey) => {
    sodium.memzero(dataKey);
    liveDataKeys.delete(dataKey);
  });

  function matches(entry: OpenedEnvelope, secretId: string, valueVersion: number, sealed: SealedValue): boolean {
    return (
      entry.secretId === secretId && entry.valueVersion === valueVersion && sealed.alg === ALG &&
      sealed.master_key_id === entry.masterKeyId && sealed.wrapped_key === entry.wrappedKey &&
      sealed.wrap_nonce === entry.wrapNonce && sealed.nonce === entry.nonceText && sealed.ciphertext === entry.ciphertextText
    );
  }

  /** Steps 1-3 of open, from the cache when this very envelope was opened before. */
  function openedEnvelope(secretId: string, valueVersion: number, sealed: SealedValue): OpenedEnvelope {
    const known = isRecord(sealed) ? opened.get(sealed) : undefined;
    if (known !== undefined && matches(known, secretId, valueVersion, sealed)) return known;
    const dataKey = unwrapDataKey(secretId, valueVersion, sealed);
    let entry: OpenedEnvelope;
    try {
      entry = {
        secretId, valueVersion, cached: known === undefined, masterKeyId: sealed.master_key_id, wrappedKey: sealed.wrapped_key,
        wrapNonce: sealed.wrap_nonce, nonceText: sealed.nonce, ciphertextText: sealed.ciphertext, dataKey,
        nonce: fromNonce(sodium, sealed.nonce, 'nonce'),
        ciphertext: fromBase64(sodium, sealed.ciphertext, 'ciphertext'),
        additionalData: sodium.from_string(valueAdditionalData(secretId, valueVersion)),
      };
    } catch (error) {
      sodium.memzero(dataKey);
      throw error;
    }
    // The first envelope opened for an object is the one kept (a mismatch above is a tamper or a caller's bug).
    if (entry.cached) {
      opened.set(sealed, entry);
      liveDataKeys.add(dataKey);
      collected.register(sealed, dataKey);
    }
    return entry;
  }

  const sealer: Sealer = {
    masterKeyId,

    seal(secretId, valueVersion, plaintext) {
      masterKeyBytes();
      checkBinding(secretId, valueVersion);
      if (typeof plaintext !== 'string') throw new VaultError('a secret value must be a string');
      // TextEncoder would silently turn a lone surrogate into U+FFFD: refuse rather than alter the value.
      if (/[\uD800-\uDFFF]/u.test(plaintext)) throw new VaultError('a secret value must be valid Unicode (it contains a lone surrogate)');
      const dataKey = sodium.crypto_aead_xchacha20poly1305_ietf_keygen();
      const message = sodium.from_string(plaintext);
      try {
        const nonce = sodium.randombytes_buf(sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
        const ciphertext = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
          message,
          valueAdditionalData(secretId, valueVersion),
          null,
          nonce,
          dataKey,
        );
        return {
          alg: ALG,
          master_key_id: masterKeyId,
          ...wrapper.wrap(secretId, valueVersion, dataKey),
          nonce: toBase64(sodium, nonce),
          ciphertext: toBase64(sodium, ciphertext),
        };
      } finally {
        sodium.memzero(dataKey);
        sodium.memzero(message);
      }
    },

    open(secretId, valueVersion, sealed) {
      checkBinding(secretId, valueVersion);
      masterKeyBytes();
      const envelope = openedEnvelope(secretId, valueVersion, sealed);
      let message: Uint8Array;
      try {
        message = decryptValue(secretId, valueVersion, envelope.ciphertext, envelope.additionalData, envelope.nonce, envelope.dataKey);
      } finally {
        if (!envelope.cached) sodium.memzero(envelope.dataKey);
      }
      const text = sodium.to_string(message);
      sodium.memzero(message);
      return text;
    },

    rewrap(secretId, valueVersion, sealed, to) {
      checkBinding(secretId, valueVersion);
      const target = wrappers.get(to);
      if (target === undefined) throw new VaultError('rewrap needs a target sealer made by createSealer');
      const dataKey = unwrapDataKey(secretId, valueVersion, sealed);
      try {
        // Prove the value still opens before the old master key is retired.
        sodium.memzero(openValue(secretId, valueVersion, sealed, dataKey));
        return {
          alg: ALG,
          master_key_id: target.masterKeyId,
          ...target.wrap(secretId, valueVersion, dataKey),
          nonce: sealed.nonce,
          ciphertext: sealed.ciphertext,
        };
      } finally {
        sodium.memzero(dataKey);
      }
    },

    makeCanary() {
      const nonce = sodium.randombytes_buf(sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
      const ciphertext = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
        CANARY_TEXT,
        canaryAdditionalData(masterKeyId),
        null,
        nonce,
        masterKeyBytes(),
      );
      return { master_key_id: masterKeyId, nonce: toBase64(sodium, nonce), ciphertext: toBase64(sodium, ciphertext) };
    },

    checkCanary(canary) {
      const key = masterKeyBytes();
      if (!isRecord(canary) || canary.master_key_id !== masterKeyId) return false;
      try {
        const nonce = fromNonce(sodium, canary.nonce, 'nonce');
        const ciphertext = fromBase64(sodium, canary.ciphertext, 'ciphertext');
        const text = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, ciphertext, canaryAdditionalData(masterKeyId), nonce, key, 'text');
        return text === CANARY_TEXT;
      } catch {
        return false;
      }
    },

    dispose() {
      if (disposed) return;
      sodium.memzero(key);
      for (const dataKey of liveDataKeys) sodium.memzero(dataKey);
      liveDataKeys.clear();
      disposed = true;
    },
  };
  wrappers.set(sealer, wrapper);
  return Object.freeze(sealer);
}

// Additional data is a JSON array: unambiguous whatever characters an id holds,
// and each purpose gets its own label so one ciphertext never passes for another.
function valueAdditionalData(secretId: string, valueVersion: number): string {
  return JSON.stringify(['rulevault/value/v1', secretId, valueVersion]);
}

function wrapAdditionalData(secretId: string, valueVersion: number, masterKeyId: string): string {
  return JSON.stringify(['rulevault/data-key/v1', secretId, valueVersion, masterKeyId]);
}

function canaryAdditionalData(masterKeyId: string): string {
  return JSON.stringify(['rulevault/canary/v1', masterKeyId]);
}

function checkBinding(secretId: string, valueVersion: number): void {
  if (typeof secretId !== 'string' || secretId.length === 0) throw new VaultError('a secret id must be a non-empty string');
  if (!Number.isSafeInteger(valueVersion) || valueVersion < 1) {
    throw new VaultError(`a value version must be a positive integer, got ${String(valueVersion)}`);
  }
}

function checkEnvelope(sealed: SealedValue): void {
  if (!isRecord(sealed)) throw new VaultError('the sealed value is not an object');
  if (sealed.alg !== ALG) throw new VaultError(`the sealed value uses algorithm ${JSON.stringify(sealed.alg)}, expected ${ALG}`);
  for (const field of ['master_key_id', 'wrapped_key', 'wrap_nonce', 'nonce', 'ciphertext'] as const) {
    if (typeof sealed[field] !== 'string') throw new VaultError(`the sealed value's ${field} is not a string`);
  }
}

function toBase64(sodium: Sodium, bytes: Uint8Array): string {
  return sodium.to_base64(bytes, sodium.base64_variants.ORIGINAL);
}

function fromBase64(sodium: Sodium, text: unknown, field: string): Uint8Array {
  try {
    if (typeof text !== 'string') throw new TypeError();
    return sodium.from_base64(text, sodium.base64_variants.ORIGINAL);
  } catch {
    throw new VaultError(`the sealed ${field} is not valid base64`);
  }
}

function fromNonce(sodium: Sodium, text: unknown, field: string): Uint8Array {
  const nonce = fromBase64(sodium, text, field);
  if (nonce.length !== sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES) {
    throw new VaultError(`the sealed ${field} has ${nonce.length} bytes, expected ${sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES}`);
  }
  return nonce;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
