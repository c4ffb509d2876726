/**
 * The CLI side of "one writer per data folder" (src/base/data-lock.ts): a command
 * that writes takes the data folder's lock for as long as it runs, so no
 * service can start in its middle, and is refused while a service (or another
 * writing command) holds it, with what to do instead.
 */
import { acquireDataLock, DataFolderLockedError, type DataLock, type LockHolder } from '../base/data-lock';
import { unknownVariableWarning, type Config } from '../base/config';

/** What to do instead, given where the running service answers. */
export type Advice = (serviceUrl: string) => string;

/** Takes the lock for `command`, or throws an Error naming the holder and saying what to do. */
export function lockForWrite(config: Config, command: string, advice: Advice): DataLock {
  try {
    return acquireDataLock(config.dataDir, `cli ${command}`);
  } catch (error) {
    if (!(error instanceof DataFolderLockedError)) throw error;
    throw new Error(`${error.message}.\n\`${command}\` writes, and a data folder has one writer at a time: ${whatToDo(error.holder, config, advice)}`);
  }
}

function whatToDo(holder: LockHolder | undefined, config: Config, advice: Advice): string {
  if (holder !== undefined && holder.role !== 'service') return 'wait for that command to finish, then run this one again.';
  return advice(holder?.url ?? `http://${config.host}:${config.port}`);
}

/** Unknown RULEVAULT_* variables, reported as the service reports them. */
export function warnAboutUnknownVariables(config: Config, warn: (line: string) => void): void {
  for (const unknown of config.unknownVariables) warn(`warning: ${unknownVariableWarning(unknown)}`);
}
