/**
 * Group commit's durability step (issue 18 item 4): commits are made without
 * waiting for the disk, and one sync of the log file (fdatasync of the WAL)
 * makes every commit made before it started durable. Writers that need
 * durability join a list; when no sync is in flight one starts for the whole
 * list; when it ends that list is released and the next sync starts for
 * whoever joined meanwhile. A waiter that joins while a sync is in flight waits
 * for the next one: the sync under way may have started before its commit.
 *
 * A failed sync is final. The commits it covered are visible but may not be on
 * disk, and no later sync can say which survived (the kernel may have dropped
 * the dirty pages it failed to write), so every waiter is rejected, every
 * later `durable()` too, and `onFailure` is called once: the owner stops the
 * process rather than go on acknowledging writes (as PostgreSQL does on an
 * fsync failure).
 */
import { StoreUnavailableError } from './port';

export interface GroupSync {
  /** Resolves once a sync that started after this call has finished; rejects with `StoreUnavailableError` when that sync (or an earlier one) failed. */
  durable(): Promise<void>;
  /** The sync failure, once one happened: writes must not be committed after it. */
  readonly failure: StoreUnavailableError | undefined;
  /** Syncs started so far. */
  readonly syncs: number;
  /** Waits for the sync in flight (and the one its waiters queued); later `durable()` calls reject. */
  close(): Promise<void>;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export function createGroupSync(sync: () => Promise<void>, onFailure: (error: StoreUnavailableError) => void): GroupSync {
  let joined: Waiter[] = [];
  let inFlight: Promise<void> | undefined;
  let failure: StoreUnavailableError | undefined;
  let closed = false;
  let syncs = 0;

  const fail = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    failure = new StoreUnavailableError(`the event store could not make writes durable (sync failed: ${message}); the service must stop`, error);
    const waiting = joined;
    joined = [];
    for (const waiter of waiting) waiter.reject(failure);
    onFailure(failure);
  };

  const start = (): void => {
    const batch = joined;
    joined = [];
    syncs++;
    inFlight = sync().then(
      () => {
        for (const waiter of batch) waiter.resolve();
        inFlight = undefined;
        if (joined.length > 0) start();
      },
      (error: unknown) => {
        inFlight = undefined;
        joined = [...batch, ...joined];
        fail(error);
      },
    );
  };

  return {
    durable() {
      if (failure !== undefined) return Promise.reject(failure);
      if (closed) return Promise.reject(new StoreUnavailableError('the event store is closed'));
      return new Promise<void>((resolve, reject) => {
        joined.push({ resolve, reject });
        if (inFlight === undefined) start();
      });
    },
    get failure() {
      return failure;
    },
    get syncs() {
      return syncs;
    },
    async close() {
      closed = true;
      // A sync's success handler may start the next one for its late joiners: wait until none is left.
      while (inFlight !== undefined) await inFlight;
    },
  };
}
