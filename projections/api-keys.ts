/** Fold of the `apikey-<id>` streams: the active keys, by id and by hash. */
import type { ApiKeyEvent, StoredEvent } from '../src/events';
import type { ApiKeyRecord } from './records';

export interface ApiKeysState {
  readonly byId: Map<string, ApiKeyRecord>;
  /** SHA-256 hex of the key -> record; the authentication lookup. */
  readonly byHash: Map<string, ApiKeyRecord>;
}

export function initialApiKeys(): ApiKeysState {
  return { byId: new Map(), byHash: new Map() };
}

export function evolveApiKeys(state: ApiKeysState, event: StoredEvent<ApiKeyEvent>): ApiKeysState {
  switch (event.type) {
    case 'ApiKeyCreated': {
      const { id, name, scopes, secret_tags, key_hash } = event.data;
      const record: ApiKeyRecord = {
        id, name, scopes, secret_tags, key_hash,
        created_by: event.metadata.actor,
        created_at: event.metadata.at,
        revision: event.revision,
      };
      state.byId.set(id, record);
      state.byHash.set(key_hash, record);
      return state;
    }
    case 'ApiKeyRevoked': {
      const record = state.byId.get(event.data.id);
      if (record !== undefined) {
        state.byId.delete(record.id);
        state.byHash.delete(record.key_hash);
      }
      return state;
    }
  }
}
