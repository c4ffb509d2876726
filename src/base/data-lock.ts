/**
 * One writer per data folder. The service, and every CLI command that writes,
 * holds an exclusive lock on `<data dir>/writer.lock` for as long as it runs,
 * so a second service, or a CLI writer beside a running service, is refused
 * instead of racing it (two creates of one secret key both succeeding, a
 * master key rotated under a live service).
 *
 * Node has no flock(2), so the lock is SQLite's own: an EXCLUSIVE transaction
 * on a tiny SQLite file, kept open. SQLite takes it with a POSIX (fcntl)
 * record lock, which the kernel drops when the process dies, so a `kill -9`
 * never leaves a stale lock; and SQLite also makes two connections of one
 * process exclude each other (tests run several nodes in one process).
 *
 * Who holds the lock is written beside it, in `writer.lock.json`, after the
 * lock is taken, so a refused starter can name the holder. That file is only
 * a description: the lock itself is the SQLite lock, never the file.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

export const LOCK_FILE = 'writer.lock';
export const HOLDER_FILE = 'writer.lock.json';

/** Who holds a data folder: written by the holder, read by whoever is refused. */
export interface LockHolder {
  /** `service`, or the CLI command that writes (`cli rotate-master-key`). */
  readonly role: string;
  readonly pid: number;
  readonly host: string;
  /** ISO 8601 time the lock was taken. */
  readonly since: string;
  /** Where the service answers, once it listens. */
  readonly url?: string;
}

export class DataFolderLockedError extends Error {
  override readonly name = 'DataFolderLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(`the data folder ${dataDir} is in use by ${describeHolder(holder)}`);
  }
}

/** A held lock. Release it on a graceful stop; a dying process releases it anyway. */
export interface DataLock {
  readonly holder: LockHolder;
  /** Records the URL the holding service answers on, for whoever is refused next. */
  setUrl(url: string): void;
  release(): void;
}

/**
 * Takes the data folder's lock at once, or throws `DataFolderLockedError`
 * naming the holder. Creates the folder (0700) when it does not exist.
 */
export function acquireDataLock(dataDir: string, role: string, now: Date = new Date()): DataLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockPath = path.join(dataDir, LOCK_FILE);
  // timeout 0: a held lock answers SQLITE_BUSY at once rather than after a wait.
  const db = new Database(lockPath, { timeout: 0 });
  try {
    // EXCLUSIVE locking mode keeps the lock until the connection closes; the open transaction takes it now.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataFolderLockedError(dataDir, readLockHolder(dataDir));
    throw new Error(`cannot lock the data folder ${dataDir} (${lockPath}): ${(error as Error).message}`);
  }
  let holder: LockHolder = { role, pid: process.pid, host: hostname(), since: now.toISOString() };
  const holderPath = path.join(dataDir, HOLDER_FILE);
  writeHolder(holderPath, holder);
  let released = false;
  return {
    get holder() {
      return holder;
    },
    setUrl(url) {
      if (released) return;
      holder = { ...holder, url };
      writeHolder(holderPath, holder);
    },
    release() {
      if (released) return;
      released = true;
      // The description goes first, while the lock still keeps the next holder from writing its own.
      rmSync(holderPath, { force: true });
      db.close();
    },
  };
}

/** The description the current holder wrote, if it is there and readable. */
export function readLockHolder(dataDir: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path.join(dataDir, HOLDER_FILE), 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.role !== 'string' || typeof parsed.pid !== 'number') return undefined;
    return parsed as LockHolder;
  } catch {
    return undefined;
  }
}

export function describeHolder(holder: LockHolder | undefined): string {
  if (holder === undefined) return 'another process (it has not described itself yet)';
  const who = holder.role === 'service' ? 'a RuleVault service' : `\`${holder.role}\``;
  const at = holder.url === undefined ? '' : `, answering on ${holder.url}`;
  return `${who} (pid ${holder.pid} on host ${holder.host}, since ${holder.since}${at})`;
}

/** Written whole, then renamed, so a reader never sees half a description. */
function writeHolder(file: string, holder: LockHolder): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(holder) + '\n', { mode: 0o600 });
  renameSync(temporary, file);
}
