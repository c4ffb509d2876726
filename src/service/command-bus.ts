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
  type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type StreamAppend,
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

/** One stream's decided events in an `appendBatch`. */
export interface DecidedAppend {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly events: readonly DomainEvent[];
}

export interface CommandBus {
  /**
   * Appends several streams' events (an import) and waits until the read model
   * applied the last. One atomic write where the store has one (SQLite);
   * elsewhere one append per stream in order (EventStoreDB): a failure part
   * way is a 503 saying how many were written, all under the actor's request id.
   */
  appendBatch(appends: readonly DecidedAppend[], actor: Actor): Promise<AppendResult>;
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
  const toRecords = (events: readonly DomainEvent[], actor: Actor, at: string): NewEvent[] => events.map((event) => ({
    type: event.type,
    data: encodeEventData(event),
    metadata: { actor: actor.id, at, request_id: actor.requestId, schema: SCHEMA_VERSION },
  }));
  return {
    async append(stream, expected, events, actor, options = {}) {
      const records = toRecords(events, actor, runtime.now().toISOString());
      const result = await appendMapped(store, stream, records, expected, options.erasing === true);
      await readModel.waitFor(result.position);
      return result;
    },
    async appendBatch(appends, actor) {
      if (appends.length === 0) throw new RangeError('appendBatch: nothing to append');
      const at = runtime.now().toISOString();
      const records = appends.map(({ stream, expected, events }) => ({ stream, expected, events: toRecords(events, actor, at) }));
      const results = store.appendAtomically !== undefined
        ? await mapped(() => store.appendAtomically!(records))
        : await appendOneByOne(store, records, actor);
      const last = results[results.length - 1]!;
      await readModel.waitFor(last.position);
      return last;
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

function appendMapped(store: EventStore, stream: string, events: NewEvent[], expected: ExpectedRevision, erasing: boolean) {
  return mapped(() => (erasing ? store.appendErasing(stream, events, expected) : store.append(stream, events, expected)));
}

/** A store call whose concurrency failures may be retried and whose other failures become AppErrors. */
async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ConcurrencyError) throw new StaleWriteError(error);
    throw toAppError(error);
  }
}

/**
 * A store without atomic multi-stream appends (EventStoreDB): one append per
 * stream, in order. Failing on the first, nothing is written and the error
 * is the usual one; failing later, the caller learns how much was written.
 */
async function appendOneByOne(store: EventStore, appends: readonly StreamAppend[], actor: Actor): Promise<AppendResult[]> {
  const results: AppendResult[] = [];
  for (const { stream, events, expected } of appends) {
    try {
      results.push(await mapped(() => store.append(stream, events, expected)));
    } catch (error) {
      if (results.length === 0) throw error;
      throw new AppError('unavailable', `the write stopped after ${results.length} of ${appends.length} streams: ` +
        `this event store cannot append several streams atomically; the written events carry request_id ${actor.requestId} ` +
        `(${error instanceof Error ? error.message : 'unknown error'})`);
    }
  }
  return results;
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
