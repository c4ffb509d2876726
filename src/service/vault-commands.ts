/**
 * Secret writes and the keyring. Values are sealed here, before a decision is
 * made, so no plaintext reaches an event. The unique-key check and the append
 * cannot interleave with another write on this node: the command bus runs
 * decisions one at a time. An update's answer is read inside that section:
 * once it ends, later writes may move the secret on.
 */
import {
  decideCreateSecret, decideDeleteSecret, decideUpdateSecret, parseSecretCreate, parseSecretPatch,
} from '../domain/secrets';
import { crashPoint } from '../crash-points';
import type { IfMatch } from '../domain/input';
import { KEYRING_STREAM, streams } from '../events';
import type { ReadModel } from '../read-model';
import type { EventStore } from '../store/port';
import type { Sealer } from '../vault/seal';
import { appendDecided, type Actor, type CommandBus, type Runtime } from './command-bus';
import { secretView } from './views';

export interface VaultDeps {
  readonly bus: CommandBus;
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly runtime: Runtime;
  readonly sealer: Sealer;
  /** Called after secrets are erased: copies elsewhere (snapshots) must follow. */
  readonly onErased?: () => Promise<void>;
}

export class MasterKeyMismatchError extends Error {
  override readonly name = 'MasterKeyMismatchError';
}

export function createVaultCommands({ bus, store, readModel, runtime, sealer, onErased }: VaultDeps) {
  const vault = readModel.state.vault;

  /**
   * The last steps of erasures whose SecretDeleted is in the log: the store's
   * part again when `inStore` (idempotent: it finishes an erasure a crash cut
   * short), then the snapshot, so no copy on disk keeps a sealed value.
   */
  async function finishErasures(ids: readonly string[], inStore: boolean): Promise<void> {
    for (const id of ids) {
      if (inStore) {
        const stream = streams.secret(id);
        const deletion = (await store.readStream(stream)).find((event) => event.type === 'SecretDeleted');
        if (deletion !== undefined) await store.eraseBefore(stream, deletion.revision);
      }
      vault.erasurePending.delete(id);
    }
    crashPoint('erasure:before-snapshot');
    await onErased?.();
    crashPoint('erasure:after-snapshot');
  }

  return {
    async createSecret(body: unknown, actor: Actor) {
      const input = parseSecretCreate(body);
      const id = runtime.newId();
      await bus.withRetry(undefined, () => {
        const sealed = sealer.seal(id, 1, input.value);
        const events = decideCreateSecret(id, input, sealed, vault.idsByKey.get(input.key));
        return bus.append(streams.secret(id), 'no_stream', events, actor);
      });
      return secretView(vault.secrets.get(id)!);
    },

    async updateSecret(id: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor) {
      const patch = parseSecretPatch(body);
      return bus.withRetry(ifMatch, async () => {
        const current = vault.secrets.get(id);
        const version = (current?.version ?? 0) + 1;
        const sealed = current !== undefined && patch.value !== undefined ? sealer.seal(id, version, patch.value) : undefined;
        const owner = patch.key === undefined ? undefined : vault.idsByKey.get(patch.key);
        const events = decideUpdateSecret(id, current, patch, sealed, owner, ifMatch);
        await appendDecided(bus, streams.secret(id), current!.revision, events, actor);
        return secretView(vault.secrets.get(id)!);
      });
    },

    /**
     * SecretDeleted is appended and the secret's earlier (sealed) events are
     * erased in the same write; the secret leaves the vault when the event is
     * applied; then the snapshot is rewritten.
     */
    async deleteSecret(id: string, actor: Actor, ifMatch?: IfMatch) {
      await bus.withRetry(ifMatch, () => {
        const current = vault.secrets.get(id);
        const events = decideDeleteSecret(id, current, ifMatch);
        crashPoint('erasure:before-append');
        return bus.append(streams.secret(id), current?.revision ?? 'any', events, actor, { erasing: true });
      });
      await finishErasures([id], false);
    },

    /** Finishes erasures interrupted by a crash; run once the read model has caught up. */
    async eraseDeletedSecrets(): Promise<number> {
      const pending = [...vault.erasurePending];
      if (pending.length > 0) await finishErasures(pending, true);
      return pending.length;
    },

    /**
     * Start-up check of the master key against the keyring's sealed canary;
     * enrols the key (writes its canary) on first start.
     */
    async verifyOrEnrollMasterKey(actor: Actor): Promise<'verified' | 'enrolled'> {
      const canary = vault.keyring.canary;
      if (canary !== undefined) {
        if (!sealer.checkCanary(canary)) {
          throw new MasterKeyMismatchError(
            `the master key (id ${sealer.masterKeyId}) is not the key this store's secrets are sealed with (id ${canary.master_key_id}); ` +
              'set RULEVAULT_MASTER_KEY (or data/master.key) to the right key',
          );
        }
        return 'verified';
      }
      await bus.withRetry(undefined, () =>
        bus.append(KEYRING_STREAM, 'no_stream', [{ type: 'MasterKeyEnrolled', data: { canary: sealer.makeCanary() } }], actor));
      return 'enrolled';
    },
  };
}

export type VaultCommands = ReturnType<typeof createVaultCommands>;
