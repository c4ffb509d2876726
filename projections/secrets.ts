/**
 * Fold of the `secret-<id>` and `vault-keyring` streams into the sealed
 * vault. Values stay sealed here; only src/vault opens them, per request.
 */
import type { KeyringEvent, SecretEvent, StoredEvent } from '../src/events';
import { isErased } from '../src/store/port';
import { created, touched } from './provenance';
import type { KeyringState, SecretRecord } from './records';

export interface VaultState {
  readonly secrets: Map<string, SecretRecord>;
  /** Secret key -> secret id, for the uniqueness check and lookups by key. */
  readonly idsByKey: Map<string, string>;
  /**
   * Deleted secrets whose sealed events this fold saw unerased, so their
   * stream may still hold them (a crash cut the erasure short, or
   * EventStoreDB before a scavenge): the service finishes their erasure
   * (idempotent) and rewrites the snapshot. A replay of a log erased in
   * place never adds to it.
   */
  readonly erasurePending: Set<string>;
  keyring: KeyringState;
}

export function initialVault(): VaultState {
  return { secrets: new Map(), idsByKey: new Map(), erasurePending: new Set(), keyring: { canary: undefined } };
}

export function evolveVault(state: VaultState, event: StoredEvent<SecretEvent | KeyringEvent>): VaultState {
  // An erased event carries no data; the SecretDeleted that erased it comes
  // later in the same stream, so skipping it ends in "no secret" as it must.
  if (isErased(event)) return state;
  switch (event.type) {
    case 'SecretCreated': {
      const { id, key, tags, version, sealed } = event.data;
      state.secrets.set(id, { id, key, tags, version, value_version: version, sealed, ...created(event) });
      state.idsByKey.set(key, id);
      return state;
    }
    case 'SecretUpdated': {
      const previous = state.secrets.get(event.data.id);
      if (previous === undefined) return state;
      const { version, key = previous.key, tags = previous.tags, sealed } = event.data;
      const value = sealed === undefined ? { value_version: previous.value_version, sealed: previous.sealed } : { value_version: version, sealed };
      state.secrets.set(previous.id, { ...previous, key, tags, version, ...value, ...touched(previous, event) });
      if (key !== previous.key) {
        state.idsByKey.delete(previous.key);
        state.idsByKey.set(key, previous.id);
      }
      return state;
    }
    case 'SecretRewrapped': {
      const previous = state.secrets.get(event.data.id);
      // A re-wrap of a value that was replaced meanwhile is moot.
      if (previous === undefined || previous.value_version !== event.data.value_version) return state;
      state.secrets.set(previous.id, { ...previous, sealed: event.data.sealed, ...touched(previous, event) });
      return state;
    }
    case 'SecretDeleted': {
      const previous = state.secrets.get(event.data.id);
      if (previous !== undefined) {
        state.secrets.delete(previous.id);
        if (state.idsByKey.get(previous.key) === previous.id) state.idsByKey.delete(previous.key);
        state.erasurePending.add(previous.id);
      }
      return state;
    }
    case 'MasterKeyEnrolled':
    case 'MasterKeyRotated':
      state.keyring = { canary: event.data.canary };
      return state;
  }
}
