/** API key writes and the first-start bootstrap of an admin key. */
import { generateApiKey } from './auth';
import { decideCreateApiKey, decideRevokeApiKey, parseApiKeyCreate } from '../domain/api-keys';
import type { IfMatch } from '../domain/input';
import { streams } from '../events';
import type { ReadModel } from '../read-model/read-model';
import type { Actor, CommandBus, Runtime } from './command-bus';
import { apiKeyView } from './views';

export interface ApiKeyDeps {
  readonly bus: CommandBus;
  readonly readModel: ReadModel;
  readonly runtime: Runtime;
  /** True when this node has RULEVAULT_ADMIN_KEY: it counts as an admin key that stays when stored ones are revoked. */
  readonly envAdminKey?: boolean;
}

export function createApiKeyCommands({ bus, readModel, runtime, envAdminKey = false }: ApiKeyDeps) {
  const keys = readModel.state.apiKeys;
  /** Admin keys left usable if `id` is revoked. */
  const otherAdmins = (id: string) => {
    let count = envAdminKey ? 1 : 0;
    for (const key of keys.byId.values()) if (key.id !== id && key.scopes.includes('admin')) count++;
    return count;
  };
  return {
    /** Answers the new key's plaintext once; only its hash is stored. */
    async createApiKey(body: unknown, actor: Actor) {
      const input = parseApiKeyCreate(body);
      const id = runtime.newId();
      const { key, hash } = generateApiKey();
      await bus.withRetry(undefined, () =>
        bus.append(streams.apiKey(id), 'no_stream', decideCreateApiKey(id, input, hash), actor));
      return { ...apiKeyView(keys.byId.get(id)!), key };
    },

    async revokeApiKey(id: string, actor: Actor, ifMatch?: IfMatch) {
      await bus.withRetry(ifMatch, () => {
        const current = keys.byId.get(id);
        return bus.append(streams.apiKey(id), current?.revision ?? 'any', decideRevokeApiKey(id, current, otherAdmins(id), ifMatch), actor);
      });
    },

    /** True when some active stored key has the admin scope. */
    hasAdminKey(): boolean {
      for (const key of keys.byId.values()) if (key.scopes.includes('admin')) return true;
      return false;
    },
  };
}

export type ApiKeyCommands = ReturnType<typeof createApiKeyCommands>;
