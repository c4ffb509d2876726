/**
 * A catch-up subscription to $all that survives server restarts: the client
 * does not resubscribe by itself, so each dropped subscription is reopened
 * after the last delivered position, with exponential backoff.
 */
import type { AllStreamResolvedEvent, Position } from '@eventstore/db-client';
import { fromResolved } from './esdb-events';
import { isUnavailable } from './esdb-errors';
import { decodePosition } from './esdb-position';
import type { RecordedEvent, Subscription, SubscriptionHandlers } from './port';

/** What one attempt needs from the client: a readable of events plus the caught-up signal. */
export interface ClientSubscription extends AsyncIterable<AllStreamResolvedEvent | typeof CAUGHT_UP> {
  on(event: 'caughtUp', listener: () => void): unknown;
  push(chunk: unknown): boolean;
  unsubscribe(): Promise<void>;
  destroy(): unknown;
}

export interface ResumeOptions {
  /** Opens one attempt after `from` (exclusive), or from the start. */
  readonly open: (from: Position | undefined) => ClientSubscription;
  readonly isOwnStream: (stream: string) => boolean;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Told about each drop before the retry, e.g. to log it. */
  readonly onResubscribe?: (error: unknown, delayMs: number) => void;
}

/**
 * Marks the caught-up point in the event sequence. The client emits
 * `caughtUp` while transforming the server message, after every earlier event
 * was pushed and before any later one is; pushing a marker right there keeps
 * onCaughtUp in order with onEvent even though events are buffered.
 */
export const CAUGHT_UP: unique symbol = Symbol('caught-up');

/** A handler or conversion failure: never retried, it would fail again. */
class DeliveryFailure {
  constructor(readonly error: Error) {}
}

/** Starts delivering after `after`; close() stops it and releases the gRPC call. */
export function startResumingSubscription(after: bigint | undefined, handlers: SubscriptionHandlers, options: ResumeOptions): Subscription {
  let last = after;
  let closed = false;
  let caughtUp = false;
  let inHandler = false;
  let current: ClientSubscription | undefined;
  let wakeFromBackoff: (() => void) | undefined;
  let delay = options.initialDelayMs;

  const deliver = async (item: AllStreamResolvedEvent | typeof CAUGHT_UP): Promise<void> => {
    if (item === CAUGHT_UP) {
      if (caughtUp) return;
      caughtUp = true;
      try {
        handlers.onCaughtUp?.();
      } catch (error) {
        throw new DeliveryFailure(asError(error));
      }
      return;
    }
    let event: RecordedEvent | undefined;
    try {
      event = fromResolved(item, options.isOwnStream);
    } catch (error) {
      throw new DeliveryFailure(asError(error));
    }
    // After a resubscription the server starts strictly after `last`; the check guards against a server that does not.
    if (event === undefined || (last !== undefined && event.position <= last)) return;
    inHandler = true;
    try {
      await handlers.onEvent(event);
    } catch (error) {
      throw new DeliveryFailure(asError(error));
    } finally {
      inHandler = false;
    }
    last = event.position;
  };

  const attempt = async (): Promise<unknown> => {
    const subscription = options.open(last === undefined ? undefined : decodePosition(last));
    current = subscription;
    subscription.on('caughtUp', () => subscription.push(CAUGHT_UP));
    try {
      for await (const item of subscription) {
        if (closed) return undefined;
        await deliver(item);
        delay = options.initialDelayMs;
      }
      return new Error('the server ended the subscription');
    } catch (error) {
      return error;
    } finally {
      current = undefined;
      await subscription.unsubscribe().catch(() => undefined);
      subscription.destroy();
    }
  };

  const backoff = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeFromBackoff = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const run = async (): Promise<void> => {
    while (!closed) {
      const error = await attempt();
      if (closed) return;
      if (error instanceof DeliveryFailure || !isRetryable(error)) {
        closed = true;
        handlers.onError?.(error instanceof DeliveryFailure ? error.error : asError(error));
        return;
      }
      options.onResubscribe?.(error, delay);
      await backoff(delay);
      delay = Math.min(delay * 2, options.maxDelayMs);
    }
  };
  const running = run();

  return {
    async close() {
      closed = true;
      wakeFromBackoff?.();
      const subscription = current;
      current = undefined;
      if (subscription) {
        await subscription.unsubscribe().catch(() => undefined);
        subscription.destroy();
      }
      // Called from inside onEvent, waiting for the loop would wait for ourselves.
      if (!inHandler) await running;
    },
  };
}

/** Server gone, restarted or slow, or a stream that just ended: worth another try. */
function isRetryable(error: unknown): boolean {
  if (isUnavailable(error)) return true;
  const type = error instanceof Error ? (error as { type?: unknown }).type : undefined;
  // `unknown` covers transport failures the client does not classify; a plain Error is our "server ended the call".
  return type === 'unknown' || type === 'not-leader' || type === undefined;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
