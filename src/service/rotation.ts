/**
 * Master-key rotation: re-wraps every live secret's data key under the new
 * master key (one SecretRewrapped event each), then records the new key's
 * canary. Idempotent: a run interrupted half-way is finished by running it
 * again with the same two keys.
 */
import { decideMasterKeyRotated, decideRewrapSecret } from '../domain/secrets';
import { KEYRING_STREAM, streams } from '../events';
import type { ReadModel } from '../read-model/read-model';
import type { Sealer } from '../vault/seal';
import type { Actor, CommandBus } from './command-bus';
import { MasterKeyMismatchError } from './vault-commands';

export interface RotationResult {
  readonly rewrapped: number;
  /** Secrets already under the new key (from an interrupted run). */
  readonly alreadyRotated: number;
}

export async function rotateMasterKey(
  bus: CommandBus,
  readModel: ReadModel,
  from: Sealer,
  to: Sealer,
  actor: Actor,
): Promise<RotationResult> {
  const vault = readModel.state.vault;
  const canary = vault.keyring.canary;
  if (canary !== undefined && !from.checkCanary(canary) && !to.checkCanary(canary)) {
    throw new MasterKeyMismatchError(
      `neither the current key (id ${from.masterKeyId}) nor the new key (id ${to.masterKeyId}) is the key this store is sealed with (id ${canary.master_key_id})`,
    );
  }
  let rewrapped = 0;
  let alreadyRotated = 0;
  for (const id of [...vault.secrets.keys()]) {
    await bus.withRetry(undefined, async () => {
      const current = vault.secrets.get(id);
      if (current === undefined) return; // deleted meanwhile
      if (current.sealed.master_key_id === to.masterKeyId) {
        alreadyRotated++;
        return;
      }
      const sealed = from.rewrap(id, current.value_version, current.sealed, to);
      await bus.append(streams.secret(id), current.revision, decideRewrapSecret(id, current, sealed), actor);
      rewrapped++;
    });
  }
  if (canary === undefined || !to.checkCanary(canary)) {
    await bus.withRetry(undefined, () => bus.append(KEYRING_STREAM, 'any', decideMasterKeyRotated(from.masterKeyId, to.makeCanary()), actor));
  }
  return { rewrapped, alreadyRotated };
}
