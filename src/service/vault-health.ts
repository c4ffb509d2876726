/**
 * Whether this process can still open its vault. Start-up refuses a master
 * key the keyring does not recognise; this covers what happens afterwards: a
 * rotation recorded in the log by someone else (another node, or the CLI on
 * another data folder, sharing one EventStoreDB log) leaves a node holding the
 * retired key unable to open any secret. Such a node is not ready: /readyz
 * answers 503 with the reason, and the reason is logged once.
 */
import type { Logger } from '../base/log';
import type { ReadModel } from '../read-model/read-model';
import type { Sealer } from '../vault/seal';

/** Returns undefined while the vault opens, else why it does not (no key material in it). */
export type VaultProblem = () => string | undefined;

export function createVaultHealth(readModel: ReadModel, sealer: Sealer, logger: Logger): VaultProblem {
  // The canary object changes only with a keyring event: check each one once.
  let checked: unknown = undefined;
  let problem: string | undefined;
  return () => {
    const canary = readModel.state.vault.keyring.canary;
    if (canary === checked) return problem;
    checked = canary;
    const before = problem;
    problem = canary === undefined || sealer.checkCanary(canary)
      ? undefined
      : `the vault cannot be opened: the master key was rotated to id ${canary.master_key_id} and this process holds id ${sealer.masterKeyId}; ` +
        'restart it with the new master key';
    if (problem !== undefined && problem !== before) logger.error('vault unavailable', { reason: problem });
    return problem;
  };
}
