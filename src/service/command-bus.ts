/**
 * Turns decided events into appended, applied facts: adds metadata, appends
 * with optimistic concurrency, then waits until this node's read model has
 * applied the write, so the response is only sent once the write is visible
 * (read-your-writes on the node that wrote).
 */
import type { IfMatch } from '../domain/input';
import { AppError } from '../errors';
import { encodeEventData, SCHEMA_VERSION, type DomainEvent } from '../events';
import type { ReadModel } from '../read-model';
import {
  ConcurrencyError, StoreUnavailableError, StreamDeletedError,
  type AppendResult, type EventStore, type ExpectedRevision, type NewEvent,
} from '../store/port';

/** Who asked, and which request; travels into every event's metadata. */
export interface Actor {
  readonly id: string;
  readonly requestId: string;
}

export interface Runtime {
  now(): Date;
  newId(): string;
}

export interface AppendOptions {
  /** The events record an erasure: the stream's earlier events lose their content in the same write (`EventStore.appendErasing`). */
  readonly erasing?: boolean;
}

export interface CommandBus {
  append(stream: string, expected: ExpectedRevision, events: readonly DomainEvent[], actor: Actor, options?: AppendOptions): Promise<AppendResult>;
  /**
   * Runs `attempt` (read model -> decide -> append); when another writer moved
   * the stream on and the caller named no revision in If-Match (none, or `*`),
   * waits for the read model to catch up and decides again.
   */
  withRetry<T>(ifMatch: IfMatch | undefined, attempt: () => Promise<T>): Promise<T>;
}

const MAX_ATTEMPTS = 3;

export function createCommandBus(store: EventStore, readModel: ReadModel, runtime: Runtime): CommandBus {
  let tail: Promise<unknown> = Promise.resolve();
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  }
  return {
    async append(stream, expected, events, actor, options = {}) {
      const at = runtime.now().toISOString();
      const records: NewEvent[] = events.map((event) => ({
        type: event.type,
        data: encodeEventData(event),
        metadata: { actor: actor.id, at, request_id: actor.requestId, schema: SCHEMA_VERSION },
      }));
      const result = await appendMapped(store, stream, records, expected, options.erasing === true);
      await readModel.waitFor(result.position);
      return result;
    },
    withRetry(ifMatch, attempt) {
      // One decision at a time on this node: its own writers never race each other,
      // so retries are left for races with writers elsewhere (other nodes, the CLI).
      return serialized(async () => {
        for (let n = 1; ; n++) {
          try {
            return await attempt();
          } catch (error) {
            const pinned = ifMatch !== undefined && ifMatch !== '*';
            if (!(error instanceof StaleWriteError) || pinned || n >= MAX_ATTEMPTS) throw toAppError(error);
            const head = await store.headPosition();
            if (head !== undefined) await readModel.waitFor(head);
          }
        }
      });
    },
  };
}

/** Appends what was decided; a decision of no events (a write that changes nothing) appends nothing. */
export async function appendDecided(
  bus: CommandBus, stream: string, expected: ExpectedRevision, events: readonly DomainEvent[], actor: Actor,
): Promise<void> {
  if (events.length > 0) await bus.append(stream, expected, events, actor);
}

/** An append lost an optimistic-concurrency race; mapped to 409 unless retried. */
class StaleWriteError extends Error {
  constructor(override readonly cause: ConcurrencyError) {
    super(cause.message);
  }
}

async function appendMapped(store: EventStore, stream: string, events: NewEvent[], expected: ExpectedRevision, erasing: boolean) {
  try {
    return await (erasing ? store.appendErasing(stream, events, expected) : store.append(stream, events, expected));
  } catch (error) {
    if (error instanceof ConcurrencyError) throw new StaleWriteError(error);
    throw toAppError(error);
  }
}

function toAppError(error: unknown): unknown {
  if (error instanceof StaleWriteError) {
    const actual = error.cause.actual === undefined ? 'deleted' : `at revision ${error.cause.actual}`;
    return new AppError('conflict', `the resource was changed concurrently (now ${actual}); read it again and retry`);
  }
  if (error instanceof StreamDeletedError) return new AppError('not_found', 'the resource has been deleted');
  if (error instanceof StoreUnavailableError) return new AppError('unavailable', 'the event store is unavailable; retry later');
  return error;
}
