/** The vault fold over erased events (issue 14): the log alone says a deleted secret is gone. */
import t from 'tap';
import { evolveVault, initialVault } from '../../projections/secrets';
import type { KeyringEvent, SecretEvent, StoredEvent } from '../../src/events';
import { ERASED_DATA } from '../../src/store/port';

const metadata = { actor: 'alice', at: '2026-11-23T00:00:00.000Z', request_id: 'r', schema: 1 };
const sealed = { alg: 'xchacha20poly1305-ietf', master_key_id: 'm', wrapped_key: 'w', wrap_nonce: 'n', nonce: 'n', ciphertext: 'c' } as const;

function stored(type: string, data: object, revision: bigint): StoredEvent<SecretEvent | KeyringEvent> {
  return { type, data, metadata, id: `e${revision}`, stream: 'secret-1', revision, position: 10n + revision } as unknown as StoredEvent<SecretEvent | KeyringEvent>;
}

t.test('erased events followed by their SecretDeleted end in no secret and no erasure to finish', async (t) => {
  const vault = initialVault();
  evolveVault(vault, stored('SecretCreated', ERASED_DATA, 0n));
  evolveVault(vault, stored('SecretUpdated', ERASED_DATA, 1n));
  evolveVault(vault, stored('SecretRewrapped', ERASED_DATA, 2n));
  t.equal(vault.secrets.size, 0, 'an erased event builds nothing');
  evolveVault(vault, stored('SecretDeleted', { id: '1' }, 3n));
  t.equal(vault.secrets.size, 0);
  t.equal(vault.idsByKey.size, 0);
  t.same([...vault.erasurePending], [], 'nothing sealed was seen, so nothing is left to erase');
});

t.test('a SecretDeleted after sealed events this fold saw marks the erasure to finish', async (t) => {
  const vault = initialVault();
  evolveVault(vault, stored('SecretCreated', { id: '1', key: 'K', tags: [], version: 1, sealed }, 0n));
  t.equal(vault.secrets.size, 1);
  evolveVault(vault, stored('SecretDeleted', { id: '1' }, 1n));
  t.equal(vault.secrets.size, 0);
  t.equal(vault.idsByKey.size, 0);
  t.same([...vault.erasurePending], ['1']);
});
