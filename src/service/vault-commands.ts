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
import { crashPoint } from '../base/crash-points';
import type { IfMatch } from '../domain/input';
import { KEYRING_STREAM, streams } from '../events';
import type { Logger } from '../base/log';
import type { ReadModel } from '../read-model/read-model';
import type { EventStore } from '../store/port';
import type { Sealer } from '../vault/seal';
import { appendDecided, type Actor, type CommandBus, type Runtime } from './command-bus';
import { createErasureFinisher, type ErasureBacklog } from './erasure-finisher';
import { secretView } from './views';

export interface VaultDeps {
  readonly bus: CommandBus;
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly runtime: Runtime;
  readonly sealer: Sealer;
  readonly logger: Logger;
  /**
   * Called after secrets are erased: copies elsewhere (snapshots) must follow.
   * Throws when the old copy could be neither rewritten nor removed (retried).
   */
  readonly onErased?: () => Promise<void>;
}

export class MasterKeyMismatchError extends Error {
  override readonly name = 'MasterKeyMismatchError';
}

export function createVaultCommands({ bus, store, readModel, runtime, sealer, logger, onErased }: VaultDeps) {
  const vault = readModel.state.vault;
  const finisher = createErasureFinisher({
    store, pendingIds: vault.erasurePending, snapshot: onErased ?? (async () => undefined), logger, now: runtime.now,
  });

  /** True when the log holds the secret's erasure: its stream keeps the SecretDeleted (also on EventStoreDB, past `$tb`). */
  async function erasedInLog(id: string): Promise<boolean> {
    return (await store.readStream(streams.secret(id))).some((event) => event.type === 'SecretDeleted');
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
     * applied; then the snapshot is rewritten. Answered once the erasure is
     * committed: a later step that cannot run now is finished in the
     * background (erasure-finisher.ts). A secret the log has erased already
     * (a retried DELETE whose answer was lost) answers the same, whatever
     * If-Match says: what the caller asked for holds.
     */
    async deleteSecret(id: string, actor: Actor, ifMatch?: IfMatch) {
      const appended = await bus.withRetry(ifMatch, async () => {
        const current = vault.secrets.get(id);
        if (current === undefined && (await erasedInLog(id))) return undefined;
        const events = decideDeleteSecret(id, current, ifMatch);
        crashPoint('erasure:before-append');
        return bus.append(streams.secret(id), current?.revision ?? 'any', events, actor, { erasing: true });
      });
      if (appended === undefined) return;
      // The fold noted the secret as pending erasure; the store's part is done unless it says otherwise.
      if (appended.unfinished === undefined) vault.erasurePending.delete(id);
      await finisher.finish({ snapshot: true });
    },

    /**
     * Finishes what erasures left (a crash cut them short, or a step could not
     * run before a stop); run once the read model has caught up. What cannot
     * run now is retried in the background. Returns how many secrets' streams
     * were left to erase.
     */
    async eraseDeletedSecrets(): Promise<number> {
      const pending = vault.erasurePending.size;
      await finisher.finish({ store: true, snapshot: pending > 0 });
      return pending;
    },

    /** What erasures have left to do, or undefined (GET /readyz); async so that a worker can ask the writer. */
    async erasureBacklog(): Promise<ErasureBacklog | undefined> {
      return finisher.backlog();
    },

    /** Stops finishing erasures in the background (the node stops; a start finishes what is left). */
    close: () => finisher.stop(),

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
