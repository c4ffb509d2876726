/** Catch-up-then-live subscriptions over a log that can be read page by page. */
import type { RecordedEvent, SubscriptionHandlers } from './port';
import type { ReadAhead } from './sqlite-read-ahead';

/** A page of the log; `more` unless it reached the end of the log as it was read. */
export interface LogPage {
  readonly events: RecordedEvent[];
  /** The page stopped at its bound (rows or bytes), so the log may go on after it. */
  readonly more: boolean;
}

/** What a subscription needs from the store: synchronous reads. */
export interface PagedLog {
  /** The next page of the log after `after` (exclusive), in position order. */
  readPage(after: bigint | undefined): LogPage;
  headPosition(): bigint | undefined;
  /**
   * Pages after `after` up to `head`, read ahead off this thread; undefined
   * when the stretch is too short to be worth it.
   */
  readAhead?(after: bigint | undefined, head: bigint): ReadAhead | undefined;
}

/**
 * Live events delivered between two turns of the event loop (a page is
 * up to 5,000): at 100k rules an import's pages applied whole held evaluate up to
 * ~0.8 s, 1,000 events at a time 0.35 to 0.58 s, 250 at a time 0.16 to 0.41 s,
 * 100 at a time 0.12 to 0.28 s, the import as fast (bench/import-stall.ts).
 */
export const TURN_EVERY = 100;

export interface LogFollower {
  /** Tells the follower the log may have grown. */
  wake(): void;
  /** Stops delivery: no `onEvent` call starts after this returns. */
  stop(): void;
}

/**
 * Starts following `log` after `after`. A single cursor drives both the
 * catch-up and the live phase, so nothing is lost or repeated at the seam:
 * the phase only decides when `onCaughtUp` fires (once the head as of the
 * start has been delivered). `onStopped` runs once when delivery ends for any
 * reason, so the store can forget the follower.
 */
export function followLog(log: PagedLog, after: bigint | undefined, handlers: SubscriptionHandlers, onStopped: () => void): LogFollower {
  // Read synchronously so that "what was in the log when it started" is exact.
  const head = log.headPosition();
  let stopped = false;
  let woken = false;
  let sleeper: (() => void) | undefined;
  let ahead: ReadAhead | undefined;

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    ahead?.cancel();
    sleeper?.();
    onStopped();
  };
  const sleep = (): Promise<void> =>
    new Promise((resolve) => {
      sleeper = resolve;
    });

  const run = async (): Promise<void> => {
    // Deliver nothing before subscribe() has returned its handle to the caller.
    await Promise.resolve();
    let cursor = after;
    let caughtUp = false;
    const reached = (): boolean => head === undefined || (cursor !== undefined && cursor >= head);
    const signalCaughtUp = (): void => {
      caughtUp = true;
      handlers.onCaughtUp?.();
    };
    if (reached()) signalCaughtUp();
    /** Hands a page to the handlers; false once stopped. */
    const deliver = async (page: readonly RecordedEvent[]): Promise<boolean> => {
      let sinceTurn = 0;
      for (const event of page) {
        if (stopped) return false;
        // Live only: a catch-up is a start-up's, when nothing is answered from the read models yet.
        if (caughtUp && ++sinceTurn > TURN_EVERY) {
          sinceTurn = 1;
          await new Promise((resolve) => setImmediate(resolve));
          if (stopped) return false;
        }
        // Await only handlers that return a promise: a microtask per event is a
        // measurable share of a 1M-event replay (bench: replay).
        const handled = handlers.onEvent(event);
        if (handled !== undefined) await handled;
        cursor = event.position;
        if (!caughtUp && reached()) signalCaughtUp();
      }
      // Let I/O run between pages: a long catch-up must not starve the server.
      if (page.length > 0) await new Promise((resolve) => setImmediate(resolve));
      return !stopped;
    };
    if (head !== undefined && !reached()) ahead = log.readAhead?.(cursor, head);
    if (ahead !== undefined) {
      try {
        for (let page = await ahead.next(); page !== undefined; page = await ahead.next()) {
          if (!(await deliver(page))) return;
        }
      } finally {
        ahead.cancel();
      }
      if (stopped) return;
    }
    // The synchronous reader takes over where the read-ahead stopped (at
    // `head`): one cursor, so nothing is lost or repeated at the seam.
    while (!stopped) {
      woken = false;
      const page = log.readPage(cursor);
      if (!(await deliver(page.events))) return;
      // A page that read to the end of the log: a commit since then has woken us (`woken`), so
      // reading again now would find nothing, one empty read per write under a write load (bench: http-writes).
      if (page.more) continue;
      // Everything up to the end was delivered (history past `head` may have been erased: deleted streams).
      if (!caughtUp) signalCaughtUp();
      if (!woken) await sleep();
      sleeper = undefined;
    }
  };

  run().then(stop, (error: unknown) => {
    if (stopped) return;
    stop();
    handlers.onError?.(error instanceof Error ? error : new Error(String(error)));
  });

  return {
    wake() {
      woken = true;
      sleeper?.();
    },
    stop,
  };
}
