/**
 * Turns decided events into appended, applied facts: adds metadata, appends
 * with optimistic concurrency, then waits until this node's read model has
 * applied the write, so the response is only sent once the write is visible
 * (read-your-writes on the node that wrote), and once it is durable.
 *
 * Group commit (issue 18 item 4): decisions run one at a time (`withRetry`'s
 * section), but a decision's appends only wait for their commit to be
 * applied; the section is then handed to the next decision, and durability
 * (`EventStore.durable`, one sync of the disk shared by every commit before
 * it) is awaited after the section, before the command answers. So writers
 * queue on the disk together, not one after another.
 */
import type { IfMatch } from '../domain/input';
import { AppError } from '../base/errors';
import { encodeEventData, SCHEMA_VERSION, type DomainEvent } from '../events';
import type { ReadModel } from '../read-model/read-model';
import {
  ConcurrencyError, StoreUnavailableError, StreamDeletedError,
  type AppendResult, type ErasureResult, type EventStore, type ExpectedRevision, type NewEvent, type StreamAppend,
} from '../store/port';

/** Who asked, and which request; travels into every event's metadata. */
export interface Actor {
  readonly id: string;
  readonly requestId: string;
  /**
   * The reason of a direct write to a protected resource, from RuleVault-Break-Glass, set only for a key
   * holding the break-glass scope (src/domain/protection.ts).
   */
  readonly breakGlass?: string;
  /** The change request an apply writes for: every event it appends carries it as metadata.change_request. */
  readonly changeRequest?: string;
}

/** A decided event whose id is fixed in advance (an apply's plan), so an append repeated is recognised as done. */
export type IdentifiedEvent = DomainEvent & { readonly id?: string };

export interface Runtime {
  now(): Date;
  newId(): string;
  /** `now` in ms since the epoch, for the evaluate path (no Date per request); absent: now().getTime(). */
  readonly clock?: () => number;
}

/** A runtime's time in ms, read without a Date where it can be. */
export function clockOf(runtime: Runtime): () => number {
  return runtime.clock ?? (() => runtime.now().getTime());
}

export interface AppendOptions {
  /** The events record an erasure: the stream's earlier events lose their content in the same write (`EventStore.appendErasing`). */
  readonly erasing?: boolean;
}

/** One stream's decided events in an `appendBatch`. */
export interface DecidedAppend {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly events: readonly IdentifiedEvent[];
}

export interface CommandBus {
  /**
   * Appends several streams' events (an import) and waits until the read model
   * applied the last. One atomic write where the store has one (SQLite);
   * elsewhere one append per stream in order (EventStoreDB): a failure part
   * way is a 503 saying how many were written, all under the actor's request id.
   */
  appendBatch(appends: readonly DecidedAppend[], actor: Actor): Promise<AppendResult>;
  /**
   * Appends one stream's events and waits until the read model applied them.
   * Belongs inside a `withRetry` attempt: there it resolves once applied, and
   * `withRetry` resolves only once the section's appends are durable. Called
   * outside one, it takes its own turn in the section and resolves once durable.
   * An erasing append's result may say what it left unfinished (`ErasureResult`).
   */
  append(stream: string, expected: ExpectedRevision, events: readonly DomainEvent[], actor: Actor, options?: AppendOptions): Promise<ErasureResult>;
  /**
   * Runs `attempt` (read model -> decide -> append) in this node's one-at-a-time
   * section; when another writer moved the stream on and the caller named no
   * revision in If-Match (none, or `*`), waits for the read model to catch up
   * and decides again. Settles once whatever the attempts appended is durable
   * (an error answers only after that too; a failed sync is a 503).
   */
  withRetry<T>(ifMatch: IfMatch | undefined, attempt: () => Promise<T>): Promise<T>;
}

/** Decided events as the store takes them: with the actor's who, when and why (and change request) as metadata. */
export function toNewEvents(events: readonly IdentifiedEvent[], actor: Actor, at: string): NewEvent[] {
  return events.map((event) => ({
    ...(event.id === undefined ? {} : { id: event.id }),
    type: event.type,
    data: encodeEventData(event),
    metadata: {
      actor: actor.id, at, request_id: actor.requestId, schema: SCHEMA_VERSION,
      ...(actor.changeRequest === undefined ? {} : { change_request: actor.changeRequest }),
    },
  }));
}

const MAX_ATTEMPTS = 3;
/** Appends inside a section commit without waiting for the disk: the section's end awaits `store.durable()`. */
const deferred = { deferDurability: true } as const;

export function createCommandBus(store: EventStore, readModel: ReadModel, runtime: Runtime): CommandBus {
  let tail: Promise<unknown> = Promise.resolve();
  /** True while a section's work runs (one at a time): its appends leave durability to the section's end. */
  let inSection = false;
  /** Set by an append inside the running section. */
  let appendedInSection = false;
  /**
   * Runs `work` once every earlier section has ended, then, outside the
   * section (the next one may already run), waits until what it appended is
   * durable; settles as `work` did, or with a 503 when the sync failed.
   */
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const section = async (): Promise<{ value?: T; error?: unknown; failed: boolean; appended: boolean }> => {
      inSection = true;
      appendedInSection = false;
      try {
        return { value: await work(), failed: false, appended: appendedInSection };
      } catch (error) {
        return { error, failed: true, appended: appendedInSection };
      } finally {
        inSection = false;
      }
    };
    const run = tail.then(section);
    tail = run;
    return run.then(async ({ value, error, failed, appended }) => {
      if (appended) await mapped(() => store.durable());
      if (failed) throw error;
      return value as T;
    });
  }
  /** Inside the section: appended when applied (durable later). Outside: a section of its own, settled once durable. */
  function inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (!inSection) return serialized(() => inTurn(work));
    appendedInSection = true;
    return work();
  }
  const toRecords = toNewEvents;
  return {
    append(stream, expected, events, actor, options = {}) {
      return inTurn(async () => {
        const records = toRecords(events, actor, runtime.now().toISOString());
        const result = await appendMapped(store, stream, records, expected, options.erasing === true);
        await readModel.waitFor(result.position);
        return result;
      });
    },
    appendBatch(appends, actor) {
      if (appends.length === 0) return Promise.reject(new RangeError('appendBatch: nothing to append'));
      return inTurn(async () => {
        const at = runtime.now().toISOString();
        const records = appends.map(({ stream, expected, events }) => ({ stream, expected, events: toRecords(events, actor, at) }));
        const results = store.appendAtomically !== undefined
          ? await mapped(() => store.appendAtomically!(records, deferred))
          : await appendOneByOne(store, records, actor);
        const last = results[results.length - 1]!;
        await readModel.waitFor(last.position);
        return last;
      });
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

/**
 * The stream whose expected revision refused an append, when `error` is that
 * refusal (thrown inside a `withRetry` attempt, before it is mapped to 409).
 */
export function refusedStream(error: unknown): string | undefined {
  return error instanceof StaleWriteError ? error.cause.stream : undefined;
}

/** An append lost an optimistic-concurrency race; mapped to 409 unless retried. */
class StaleWriteError extends Error {
  constructor(override readonly cause: ConcurrencyError) {
    super(cause.message);
  }
}

function appendMapped(store: EventStore, stream: string, events: NewEvent[], expected: ExpectedRevision, erasing: boolean): Promise<ErasureResult> {
  return mapped(() => (erasing ? store.appendErasing(stream, events, expected) : store.append(stream, events, expected, deferred)));
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
      results.push(await mapped(() => store.append(stream, events, expected, deferred)));
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
