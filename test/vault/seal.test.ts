import t, { type Test } from 'tap';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import type { SealedValue } from '../../src/events/secret-events';
import { createSealer, VaultError, type Sealer } from '../../src/vault/seal';
import { propertyOptions } from '../support/seeds';

const SECRET_ID = '6f0c2a44-2d55-4b4e-9d3b-8f1f7c7a9e01';
const OTHER_ID = '0b7f3e5c-1a2b-4c3d-8e9f-a1b2c3d4e5f6';
const PLAINTEXT = 'sk-live-51H8dQ2eZvKYlo2C-correct-horse-battery-staple';
const BASE64_FIELDS = ['wrapped_key', 'wrap_nonce', 'nonce', 'ciphertext'] as const;

async function newSealer(): Promise<Sealer> {
  return createSealer(new Uint8Array(randomBytes(32)));
}

/** Runs `action`, which must throw a VaultError whose message leaks nothing. */
function failsClosed(t: Test, action: () => unknown, message: string, plaintext = PLAINTEXT): VaultError | undefined {
  try {
    action();
  } catch (error) {
    t.type(error, VaultError, message);
    t.notMatch((error as Error).message, plaintext, `${message}: no plaintext in the message`);
    return error as VaultError;
  }
  t.fail(`${message}: expected a VaultError`);
  return undefined;
}

// Another base64 character at position i (keeps the length, changes the bytes or the encoding).
function replaceChar(text: string, i: number): string {
  const replacement = text[i] === 'A' ? 'B' : 'A';
  return text.slice(0, i) + replacement + text.slice(i + 1);
}

t.test('round trip', async (t) => {
  const sealer = await newSealer();
  const big = Array.from({ length: 65536 / 8 }, (_, i) => `v${String(i % 10_000).padStart(7, '0')}`).join('');
  const values = ['', 'a', PLAINTEXT, 'héllo wörld', '日本語のテキスト', '🔐🗝️ emoji + ZWJ 👩‍👩‍👧', 'e\u0301 combining', '\u0000nul\u0000', big, '€'.repeat(65536)];
  for (const [i, value] of values.entries()) {
    const sealed = sealer.seal(SECRET_ID, i + 1, value);
    t.equal(sealer.open(SECRET_ID, i + 1, sealed), value, `value #${i} (${value.length} chars)`);
  }
  t.equal(big.length, 65536, '64 KiB value');
});

t.test('round trip for arbitrary strings, ids and versions', async (t) => {
  const sealer = await newSealer();
  const roundTrips = fc.property(
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.integer({ min: 1, max: 1_000_000 }),
    (value, id, version) => sealer.open(id, version, sealer.seal(id, version, value)) === value,
  );
  for (const options of propertyOptions(200)) t.doesNotThrow(() => fc.assert(roundTrips, options), `seed ${options.seed}`);
});

t.test('the sealed form', async (t) => {
  const sealer = await newSealer();
  const sealed = sealer.seal(SECRET_ID, 1, PLAINTEXT);
  t.same(Object.keys(sealed).sort(), ['alg', 'ciphertext', 'master_key_id', 'nonce', 'wrap_nonce', 'wrapped_key']);
  t.equal(sealed.alg, 'xchacha20poly1305-ietf');
  t.equal(sealed.master_key_id, sealer.masterKeyId);
  t.equal(Buffer.from(sealed.nonce, 'base64').length, 24);
  t.equal(Buffer.from(sealed.wrap_nonce, 'base64').length, 24);
  t.equal(Buffer.from(sealed.wrapped_key, 'base64').length, 32 + 16, 'a 32-byte data key plus its tag');
  t.equal(Buffer.from(sealed.ciphertext, 'base64').length, Buffer.byteLength(PLAINTEXT) + 16);

  const json = JSON.stringify(sealed);
  t.notMatch(json, PLAINTEXT, 'no plaintext in the JSON');
  t.notMatch(json, Buffer.from(PLAINTEXT).toString('base64').slice(0, 20), 'not even base64-encoded');

  const again = sealer.seal(SECRET_ID, 1, PLAINTEXT);
  for (const field of BASE64_FIELDS) t.not(again[field], sealed[field], `fresh ${field} on every seal`);
});

t.test('every tamper of each base64 field fails closed', async (t) => {
  const sealer = await newSealer();
  const sealed = sealer.seal(SECRET_ID, 3, PLAINTEXT);
  for (const field of BASE64_FIELDS) {
    const original = sealed[field];
    const variants = [
      ...Array.from(original, (_, i) => replaceChar(original, i)),
      '',
      original.slice(0, -4),
      original + 'AAAA',
      original.replace(/.$/, '*'),
      Buffer.from(Buffer.from(original, 'base64').reverse()).toString('base64'),
    ];
    let failures = 0;
    for (const variant of variants) {
      const tampered: SealedValue = { ...sealed, [field]: variant };
      try {
        sealer.open(SECRET_ID, 3, tampered);
      } catch (error) {
        if (error instanceof VaultError && !error.message.includes(PLAINTEXT)) failures++;
      }
    }
    t.equal(failures, variants.length, `${field}: all ${variants.length} tampered variants refused`);
  }
  failsClosed(t, () => sealer.open(SECRET_ID, 3, { ...sealed, alg: 'aes-256-gcm' } as unknown as SealedValue), 'another alg');
  failsClosed(t, () => sealer.open(SECRET_ID, 3, { ...sealed, ciphertext: 42 } as unknown as SealedValue), 'a non-string field');
  failsClosed(t, () => sealer.open(SECRET_ID, 3, null as unknown as SealedValue), 'not an object');
  t.equal(sealer.open(SECRET_ID, 3, sealed), PLAINTEXT, 'the untouched value still opens');
});

t.test('a sealed value moved to another secret or version fails', async (t) => {
  const sealer = await newSealer();
  const sealed = sealer.seal(SECRET_ID, 2, PLAINTEXT);
  const other = sealer.seal(OTHER_ID, 2, 'the other secret');
  failsClosed(t, () => sealer.open(OTHER_ID, 2, sealed), 'another secret id');
  failsClosed(t, () => sealer.open(SECRET_ID, 1, sealed), 'an earlier version');
  failsClosed(t, () => sealer.open(SECRET_ID, 3, sealed), 'a later version');
  failsClosed(t, () => sealer.open(SECRET_ID, 2, { ...sealed, nonce: other.nonce, ciphertext: other.ciphertext }), 'another secret\'s value under this data key', 'the other secret');
  failsClosed(t, () => sealer.open(OTHER_ID, 2, { ...other, wrapped_key: sealed.wrapped_key, wrap_nonce: sealed.wrap_nonce }), 'this data key spliced into another secret');
  failsClosed(t, () => sealer.open(SECRET_ID, 2.5, sealed), 'a fractional version');
  failsClosed(t, () => sealer.seal('', 1, PLAINTEXT), 'sealing for an empty id');
});

t.test('the wrong master key fails with a clear message', async (t) => {
  const right = await newSealer();
  const wrong = await newSealer();
  t.not(wrong.masterKeyId, right.masterKeyId);
  const sealed = right.seal(SECRET_ID, 1, PLAINTEXT);
  const error = failsClosed(t, () => wrong.open(SECRET_ID, 1, sealed), 'another master key');
  t.match(error?.message, `sealed under master key ${right.masterKeyId}`);
  t.match(error?.message, `current master key ${wrong.masterKeyId}`);
  // A forged id gets past the id check, and the AEAD still refuses.
  failsClosed(t, () => wrong.open(SECRET_ID, 1, { ...sealed, master_key_id: wrong.masterKeyId }), 'forged master_key_id');
});

t.test('masterKeyId is short, stable and key-specific', async (t) => {
  const key = new Uint8Array(randomBytes(32));
  const a = await createSealer(key);
  const b = await createSealer(key);
  t.match(a.masterKeyId, /^[0-9a-f]{16}$/);
  t.equal(a.masterKeyId, b.masterKeyId, 'the same key gives the same id');
  t.notMatch(Buffer.from(key).toString('hex'), a.masterKeyId, 'not a slice of the key');
  t.not((await newSealer()).masterKeyId, a.masterKeyId);
});

t.test('rewrap moves the data key to the new master key', async (t) => {
  const oldSealer = await newSealer();
  const newSealerInstance = await newSealer();
  const sealed = oldSealer.seal(SECRET_ID, 4, PLAINTEXT);
  const rewrapped = oldSealer.rewrap(SECRET_ID, 4, sealed, newSealerInstance);
  t.equal(rewrapped.master_key_id, newSealerInstance.masterKeyId);
  t.equal(rewrapped.ciphertext, sealed.ciphertext, 'value ciphertext unchanged');
  t.equal(rewrapped.nonce, sealed.nonce, 'value nonce unchanged');
  t.not(rewrapped.wrapped_key, sealed.wrapped_key);
  t.equal(newSealerInstance.open(SECRET_ID, 4, rewrapped), PLAINTEXT, 'opens with the new key');
  const error = failsClosed(t, () => oldSealer.open(SECRET_ID, 4, rewrapped), 'the old key no longer opens it');
  t.match(error?.message, newSealerInstance.masterKeyId);
  failsClosed(t, () => newSealerInstance.open(SECRET_ID, 5, rewrapped), 'still bound to its version');
  failsClosed(t, () => oldSealer.rewrap(OTHER_ID, 4, sealed, newSealerInstance), 'rewrap under another id');
  failsClosed(t, () => oldSealer.rewrap(SECRET_ID, 4, { ...sealed, ciphertext: replaceChar(sealed.ciphertext, 0) }, newSealerInstance), 'rewrap of a tampered value');
  failsClosed(t, () => newSealerInstance.rewrap(SECRET_ID, 4, sealed, oldSealer), 'rewrap by a sealer that does not hold the key');
  const impostor = { ...newSealerInstance } as Sealer;
  failsClosed(t, () => oldSealer.rewrap(SECRET_ID, 4, sealed, impostor), 'rewrap to an object that is not a sealer');
});

t.test('canary', async (t) => {
  const sealer = await newSealer();
  const other = await newSealer();
  const canary = sealer.makeCanary();
  t.equal(canary.master_key_id, sealer.masterKeyId);
  t.equal(sealer.checkCanary(canary), true, 'the right key');
  t.equal(sealer.checkCanary(sealer.makeCanary()), true, 'any canary from the same key');
  t.equal(other.checkCanary(canary), false, 'the wrong key');
  t.equal(other.checkCanary({ ...canary, master_key_id: other.masterKeyId }), false, 'the wrong key with a forged id');
  t.equal(sealer.checkCanary({ ...canary, ciphertext: replaceChar(canary.ciphertext, 3) }), false, 'tampered ciphertext');
  t.equal(sealer.checkCanary({ ...canary, nonce: replaceChar(canary.nonce, 3) }), false, 'tampered nonce');
  t.equal(sealer.checkCanary({ ...canary, nonce: '***' }), false, 'malformed base64');
  t.equal(sealer.checkCanary(null as never), false, 'not an object');
  t.equal(sealer.checkCanary({ master_key_id: sealer.masterKeyId } as never), false, 'missing fields');
});

t.test('seal refuses values it could not return unchanged', async (t) => {
  const sealer = await newSealer();
  failsClosed(t, () => sealer.seal(SECRET_ID, 1, 'lone \uD800 surrogate'), 'a lone surrogate', 'lone \uD800 surrogate');
  failsClosed(t, () => sealer.seal(SECRET_ID, 1, 42 as unknown as string), 'not a string');
  t.rejects(createSealer(new Uint8Array(16)), VaultError, 'a short master key');
});

t.test('the sealer keeps its own key copy and dispose zeroes it', async (t) => {
  const key = new Uint8Array(randomBytes(32));
  const sealer = await createSealer(key);
  key.fill(0);
  const sealed = sealer.seal(SECRET_ID, 1, PLAINTEXT);
  t.equal(sealer.open(SECRET_ID, 1, sealed), PLAINTEXT, 'zeroing the caller\'s buffer does not affect the sealer');
  sealer.dispose();
  sealer.dispose();
  failsClosed(t, () => sealer.open(SECRET_ID, 1, sealed), 'open after dispose');
  failsClosed(t, () => sealer.seal(SECRET_ID, 2, PLAINTEXT), 'seal after dispose');
  failsClosed(t, () => sealer.makeCanary(), 'makeCanary after dispose');
});

t.test('an envelope opened before (its data key held unwrapped) still fails closed on any change', async (t) => {
  const sealer = await newSealer();
  const sealed: SealedValue = { ...sealer.seal(SECRET_ID, 3, PLAINTEXT) };
  const writable = sealed as unknown as { [k: string]: string };
  const other = sealer.seal(OTHER_ID, 3, 'other value');
  t.equal(sealer.open(SECRET_ID, 3, sealed), PLAINTEXT, 'first open');
  t.equal(sealer.open(SECRET_ID, 3, sealed), PLAINTEXT, 'second open of the same envelope');
  failsClosed(t, () => sealer.open(OTHER_ID, 3, sealed), 'the opened envelope under another secret id');
  failsClosed(t, () => sealer.open(SECRET_ID, 4, sealed), 'the opened envelope under another version');
  // The very object the cache is keyed by, altered in place field by field.
  for (const field of BASE64_FIELDS) {
    const original = sealed[field];
    writable[field] = replaceChar(original, 2);
    failsClosed(t, () => sealer.open(SECRET_ID, 3, sealed), `${field} altered in place after an open`);
    writable[field] = original;
  }
  writable.ciphertext = other.ciphertext;
  writable.nonce = other.nonce;
  failsClosed(t, () => sealer.open(SECRET_ID, 3, sealed), 'another value spliced in place', 'other value');
  writable.ciphertext = sealer.seal(SECRET_ID, 3, PLAINTEXT).ciphertext;
  failsClosed(t, () => sealer.open(SECRET_ID, 3, sealed), 'a ciphertext of the same value under another data key');
  sealer.dispose();
  failsClosed(t, () => sealer.open(SECRET_ID, 3, sealed), 'open after dispose, even of an opened envelope');
});
