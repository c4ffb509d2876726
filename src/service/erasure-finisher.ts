/**
 * The steps of a secret's erasure after its commit, run until they are done
 * (issue 62 item 1). The commit is the erasure: the secret has left the
 * vault and the log says so. What follows removes other copies of its sealed
 * value: the store's (SQLite: the WAL checkpoint; EventStoreDB: `$tb`) and
 * the snapshot's. A step that cannot run now (another process holds a read
 * transaction on events.db, the disk is full, the server is unreachable) is
 * retried in the background until it runs, and reported meanwhile: in
 * `backlog` (GET /readyz) and in the log. Every step is idempotent, so a
 * retry, or a start that finds work left (vault-commands.ts), does it again
 * safely.
 */
import { crashPoint } from '../base/crash-points';
import { streams } from '../events';
import type { Logger } from '../base/log';
import type { EventStore } from '../store/port';

/** `store`: the copies in the event store beside the log's record; `snapshot`: the snapshot's rewrite (or removal). */
export type ErasureStep = 'store' | 'snapshot';

export interface ErasureBacklog {
  /** When a step was first found undone (ISO 8601 UTC). */
  readonly since: string;
  readonly pending: readonly ErasureStep[];
  /** Why the last attempt did not finish (store and file errors; never secret material). */
  readonly reason: string;
  readonly attempts: number;
}

export interface ErasureFinisher {
  /** Notes the steps owed, runs every owed step now, then retries what is left in the background. Never throws. */
  finish(owed: { readonly store?: boolean; readonly snapshot?: boolean }): Promise<void>;
  /** What is left, or undefined when nothing is. */
  backlog(): ErasureBacklog | undefined;
  /** Stops the retries; resolves once an attempt under way has ended. */
  stop(): Promise<void>;
}

export interface ErasureFinisherDeps {
  readonly store: EventStore;
  /**
   * Secrets whose streams may still hold sealed events: the vault's own set,
   * which snapshots keep, so a restart picks up what is left. An id leaves it
   * once its stream is erased.
   */
  readonly pendingIds: Set<string>;
  /** Rewrites the snapshot, or removes it; throws when it could do neither. */
  readonly snapshot: () => Promise<void>;
  readonly logger: Logger;
  readonly now: () => Date;
}

/**
 * Retries after 1 s, doubling up to every 5 s: a step left undone runs at
 * most 5 s after what kept it from running ends (the bound the docs state).
 * An attempt costs little: a checkpoint that does not wait, a metadata read,
 * or a snapshot write (which, failing, removes the snapshot instead).
 */
export const RETRY_FIRST_MS = 1000;
export const RETRY_MAX_MS = 5000;
/** An unfinished erasure is logged when found, when its reason changes, and at most this often in between. */
const REMIND_MS = 60_000;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Erases what the stream of secret `id` still holds before its SecretDeleted. */
async function eraseSecretStream(store: EventStore, id: string): Promise<void> {
  const stream = streams.secret(id);
  const deletion = (await store.readStream(stream)).find((event) => event.type === 'SecretDeleted');
  if (deletion !== undefined) await store.eraseBefore(stream, deletion.revision);
}

export function createErasureFinisher({ store, pendingIds, snapshot, logger, now }: ErasureFinisherDeps): ErasureFinisher {
  let scrub = false;
  let snapshotOwed = false;
  let since: Date | undefined;
  let reason = '';
  let attempts = 0;
  let remindedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const pending = (): ErasureStep[] => [
    ...(pendingIds.size > 0 || scrub ? ['store' as const] : []),
    ...(snapshotOwed ? ['snapshot' as const] : []),
  ];

  /** One pass over every owed step; each runs whatever the one before it did. */
  async function attempt(): Promise<void> {
    const failures = new Set<string>();
    const step = async (work: () => Promise<void>): Promise<boolean> => {
      try {
        await work();
        return true;
      } catch (error) {
        failures.add(messageOf(error));
        return false;
      }
    };
    for (const id of [...pendingIds]) {
      if (await step(() => eraseSecretStream(store, id))) pendingIds.delete(id);
    }
    if (scrub && (await step(async () => store.scrub?.()))) scrub = false;
    if (snapshotOwed) {
      crashPoint('erasure:before-snapshot');
      if (await step(snapshot)) snapshotOwed = false;
      crashPoint('erasure:after-snapshot');
    }
    attempts++;
    report(pending(), [...failures].join('; '));
  }

  function report(left: readonly ErasureStep[], why: string): void {
    const at = now();
    if (left.length === 0) {
      if (since !== undefined) logger.info('erasure finished', { since: since.toISOString(), attempts });
      since = undefined;
      reason = '';
      attempts = 0;
      return;
    }
    const found = since === undefined;
    since ??= at;
    if (found || why !== reason || at.getTime() - remindedAt >= REMIND_MS) {
      remindedAt = at.getTime();
      logger.warn('erasure unfinished', { pending: left, reason: why, since: since.toISOString(), attempts, retry_in_ms: delay() });
    }
    reason = why;
    schedule();
  }

  const delay = (): number => Math.min(RETRY_FIRST_MS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_MS);

  function schedule(): void {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, delay());
    timer.unref();
  }

  function run(): Promise<void> {
    running = running.then(attempt).catch((error: unknown) => logger.error('erasure step failed', { error: messageOf(error) }));
    return running;
  }

  return {
    finish(owed) {
      if (owed.store === true) scrub = true;
      if (owed.snapshot === true) snapshotOwed = true;
      clearTimeout(timer);
      timer = undefined;
      return run();
    },
    backlog: () => (since === undefined ? undefined : { since: since.toISOString(), pending: pending(), reason, attempts }),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
