/**
 * The EventStoreDB adapter of the event-store port, on @eventstore/db-client.
 *
 * - Positions: see esdb-position.ts; revisions and positions stay bigints.
 * - Only our streams are visible (a shared server holds others, and `$`
 *   system events): readAll, headPosition and subscribe skip the rest.
 * - deleteStream tombstones: the events stay in $all until a scavenge
 *   (AdapterTraits.erasesDeletedStreamsAtOnce is false).
 * - appendErasing appends, then sets the stream's truncate-before ($tb) to
 *   the first appended revision: the erasure record stays readable (also
 *   after a scavenge, unlike a tombstone, which would take it away), the
 *   earlier events leave the stream's reads at once and the disk at the next
 *   scavenge (AdapterTraits.erasesInPlace is false).
 * - Every call has a deadline, so an unreachable server fails with
 *   StoreUnavailableError instead of hanging.
 * - The hash chain (chain.ts): the server assigns positions only after an
 *   append, so a link covers the chain sequence, not the position. Before
 *   each append the adapter reads the chain's head (the newest event of our
 *   streams in $all) and, for `any` or `stream_exists`, the stream's
 *   revision, then appends with that exact revision. This node's appends are
 *   serialized; two nodes appending at the same instant can both link to one
 *   head, a fork `audit verify` reports (docs/operations.md#event-stores).
 */
import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  streamNameFilter,
  type AppendExpectedRevision,
  type ExpectedRevision as ClientExpectedRevision,
  type Position,
  type ResolvedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import { crashPoint } from '../base/crash-points';
import { EMPTY_CHAIN, headOf, linkAppend, splitMetadata, type ChainHead } from './chain';
import { isStreamNotFound, mapClientError } from './esdb-errors';
import { fromResolved, toEventData } from './esdb-events';
import { comparePositions, decodePosition, encodePosition } from './esdb-position';
import { startResumingSubscription, type ClientSubscription } from './esdb-subscription';
import {
  ConcurrencyError,
  StoreUnavailableError,
  StreamDeletedError,
  type AdapterTraits,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type Subscription,
} from './port';
import { STREAM_PREFIXES } from './owned-streams';

export interface EsdbStoreOptions {
  /** Milliseconds any one call may take before it fails with StoreUnavailableError (default 10 000). */
  readonly deadlineMs?: number;
  /** Streams this service owns, by name prefix (default STREAM_PREFIXES). */
  readonly streamPrefixes?: readonly string[];
  /** Events per $all read request (default 500). */
  readonly readBatchSize?: number;
  /** Backoff between resubscription attempts in milliseconds (default 100, doubling up to 5 000). */
  readonly resubscribeDelayMs?: { readonly initial: number; readonly max: number };
  /** Told about each dropped subscription before it is reopened, e.g. to log it. */
  readonly onResubscribe?: (error: unknown, delayMs: number) => void;
}

/** Deleted streams stay in $all until a scavenge. */
export const ESDB_TRAITS: AdapterTraits = { erasesDeletedStreamsAtOnce: false, erasesInPlace: false };

/** readAll page size when none is asked for, and the cap (the same as the SQLite adapter's). */
const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 10_000;

/** Connects lazily: the first call opens the gRPC channel. */
export function createEsdbStore(connectionString: string, options: EsdbStoreOptions = {}): EventStore {
  const client = EventStoreDBClient.connectionString(connectionString);
  const deadlineMs = options.deadlineMs ?? 10_000;
  const prefixes = [...(options.streamPrefixes ?? STREAM_PREFIXES)];
  const isOwnStream = (stream: string): boolean => prefixes.some((prefix) => stream.startsWith(prefix));
  const batchSize = options.readBatchSize ?? 500;
  const subscriptions = new Set<Subscription>();
  let closed = false;

  /** Runs one client call under the deadline, with the port's errors. */
  const call = async <T>(what: string, stream: string | undefined, expected: ExpectedRevision | undefined, start: () => Promise<T>, cancel?: () => void): Promise<T> => {
    if (closed) throw new StoreUnavailableError('the EventStoreDB store is closed');
    try {
      return await withDeadline(start(), deadlineMs, what, cancel);
    } catch (error) {
      throw mapClientError(error, stream, expected);
    }
  };

  /**
   * Reads a streaming read until `stop` says so or it ends, under the deadline (cancelled if it
   * outlives it); a read stopped early is cancelled, so the server sends no more of it (the client
   * has decoded at most the few events its stream buffers ahead). Resolves with how many it saw.
   */
  const readUntil = <E>(what: string, stream: string | undefined, open: () => StreamingRead<E>, stop: (item: E) => boolean): Promise<number> => {
    let reading: StreamingRead<E> | undefined;
    const scan = async (): Promise<number> => {
      let seen = 0;
      for await (const item of (reading = open())) {
        seen++;
        if (stop(item)) {
          await reading.cancel();
          break;
        }
      }
      return seen;
    };
    return call(what, stream, undefined, scan, () => void reading?.cancel());
  };

  /** Reads a whole (bounded) streaming read. */
  const read = async <E>(what: string, stream: string | undefined, open: () => StreamingRead<E>): Promise<E[]> => {
    const items: E[] = [];
    await readUntil(what, stream, open, (item) => {
      items.push(item);
      return false;
    });
    return items;
  };

  /** One raw $all page: every event, ours or not, so the caller can move past foreign ones. */
  const readAllRaw = (fromPosition: Position | typeof START | typeof END, direction: typeof FORWARDS | typeof BACKWARDS) =>
    read('readAll', undefined, () => client.readAll({ fromPosition, direction, maxCount: batchSize }));

  /** The newest event of our streams in $all, undefined when there is none. */
  const lastOwnEvent = async (): Promise<RecordedEvent | undefined> => {
    let from: Position | typeof END = END;
    for (;;) {
      const raw = await readAllRaw(from, BACKWARDS);
      for (const resolved of raw) {
        const event = fromResolved(resolved, isOwnStream);
        if (event) return event;
      }
      const oldest = raw[raw.length - 1]?.event?.position;
      if (raw.length < batchSize || oldest === undefined) return undefined;
      from = oldest;
    }
  };

  /** The chain's head; undefined: the log was written before the chain (not upgraded). */
  const chainHead = async (): Promise<ChainHead | undefined> => {
    const last = await lastOwnEvent();
    if (last === undefined) return EMPTY_CHAIN;
    const { link } = splitMetadata(last.metadata);
    return link === undefined ? undefined : headOf(link);
  };

  /** The stream's last revision, undefined when it has none. */
  const streamRevision = async (stream: string): Promise<bigint | undefined> => {
    try {
      const [last] = await read('readStream', stream, () => client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }));
      return last?.event?.revision;
    } catch (error) {
      if (isStreamNotFound(error)) return undefined;
      throw error;
    }
  };

  // One append at a time on this node: each links to the head the previous one left.
  let appending: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = appending.then(work, work);
    appending = next.catch(() => undefined);
    return next;
  };

  const append = (stream: string, events: Parameters<EventStore['append']>[1], expected: ExpectedRevision, erasing = false): Promise<AppendResult> => {
    if (events.length === 0) return Promise.reject(new RangeError(`append to ${stream}: no events given`));
    return serialized(async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await appendLinked(stream, events, expected, erasing);
        } catch (error) {
          // `any` and `stream_exists` were sent as the exact revision read before; another writer moved the stream on.
          if (!(error instanceof ConcurrencyError) || typeof expected === 'bigint' || expected === 'no_stream' || attempt >= 4) throw error;
        }
      }
    });
  };

  const appendLinked = async (stream: string, events: Parameters<EventStore['append']>[1], expected: ExpectedRevision, erasing: boolean): Promise<AppendResult> => {
    const head = await chainHead();
    let sent = expected;
    if (head !== undefined && (expected === 'any' || expected === 'stream_exists')) {
      // The link covers the revision: know it before the write, and make the write hold it.
      const current = await streamRevision(stream);
      if (current !== undefined) sent = current;
      else if (expected === 'any') sent = 'no_stream';
    }
    const first = typeof sent === 'bigint' ? sent + 1n : 0n;
    const linked = linkAppend(head, stream, first, events, erasing, randomUUID);
    const data = linked.events.map((event) =>
      toEventData(stream, { id: event.id, type: event.type, data: event.data, metadata: event.link === undefined ? event.own : { ...event.own, chain: event.link } as never }),
    );
    const result = await call('append', stream, expected, () =>
      client.appendToStream(stream, data, { expectedRevision: toClientExpected(sent), deadline: deadlineMs }),
    );
    // What an append response calls its position differs between server
    // versions; the last event, read back, carries its exact $all position.
    const [last] = await read('readStream', stream, () =>
      client.readStream(stream, { fromRevision: result.nextExpectedRevision, maxCount: 1 }),
    );
    const position = last?.event?.position;
    if (position === undefined) throw new StoreUnavailableError(`append to ${stream}: the written event could not be read back`);
    return { nextRevision: result.nextExpectedRevision, position: encodePosition(position) };
  };

  /** Hides the stream's events before `revision` ($tb), unless already hidden; a tombstoned stream is left alone. */
  const truncateBefore = async (stream: string, revision: bigint): Promise<void> => {
    try {
      const current = await call('getStreamMetadata', stream, undefined, () => client.getStreamMetadata(stream, { deadline: deadlineMs }));
      const truncated = current.metadata?.truncateBefore;
      if (typeof truncated === 'number' && BigInt(truncated) >= revision) return;
      await call('setStreamMetadata', stream, undefined, () =>
        client.setStreamMetadata(stream, { ...current.metadata, truncateBefore: Number(revision) }, { deadline: deadlineMs }),
      );
    } catch (error) {
      if (!(error instanceof StreamDeletedError)) throw error;
    }
  };

  return {
    description: `EventStoreDB ${redactCredentials(connectionString)}`,

    // An append is durable on the server when it is acknowledged: deferring durability changes nothing.
    append: (stream, events, expected) => append(stream, events, expected),

    async durable() {
      if (closed) throw new StoreUnavailableError('the EventStoreDB store is closed');
    },

    async appendErasing(stream, events, expected) {
      const result = await append(stream, events, expected, true);
      crashPoint('erasure:after-commit');
      try {
        await truncateBefore(stream, result.nextRevision - BigInt(events.length) + 1n);
        return result;
      } catch (error) {
        // Appended: the erasure happened. `$tb` is the caller's to retry (eraseBefore).
        return { ...result, unfinished: `the stream's $tb could not be set: ${error instanceof Error ? error.message : String(error)}` };
      }
    },

    eraseBefore: truncateBefore,

    async readStream(stream, readOptions = {}) {
      try {
        const resolved = await read('readStream', stream, () =>
          client.readStream(stream, { fromRevision: readOptions.fromRevision ?? START, direction: FORWARDS }),
        );
        return resolved.flatMap((event) => fromResolved(event, () => true) ?? []);
      } catch (error) {
        // Never written and tombstoned both read as [] in the port.
        if (isStreamNotFound(error) || error instanceof StreamDeletedError) return [];
        throw error;
      }
    },

    async readAll(readOptions = {}) {
      const limit = Math.min(Math.max(1, Math.floor(readOptions.limit ?? DEFAULT_LIMIT)), MAX_LIMIT);
      const maxBytes = readOptions.maxDataBytes === undefined ? undefined : Math.max(1, readOptions.maxDataBytes);
      const page: RecordedEvent[] = [];
      let bytes = 0;
      let full = false;
      // Reads include their start position; `floor` is the exclusive bound.
      let floor = readOptions.after === undefined ? undefined : decodePosition(readOptions.after);
      const take = (resolved: ResolvedEvent): boolean => {
        const position = resolved.event?.position;
        if (position === undefined || (floor !== undefined && comparePositions(position, floor) <= 0)) return false;
        floor = position;
        const event = fromResolved(resolved, isOwnStream);
        if (event === undefined) return false;
        page.push(event);
        // The client has parsed the data already; its JSON text is what the port counts (the embedded store's stored text).
        if (maxBytes !== undefined) bytes += Buffer.byteLength(JSON.stringify(event.data));
        full = page.length === limit || (maxBytes !== undefined && bytes >= maxBytes);
        return full;
      };
      for (;;) {
        const seen = await readUntil('readAll', undefined, () => client.readAll({ fromPosition: floor ?? START, direction: FORWARDS, maxCount: batchSize }), take);
        if (full || seen < batchSize) return page;
      }
    },

    async readAt(position) {
      // A read of $all starts at its position, inclusive: the record there, if it is one.
      const [resolved] = await read('readAll', undefined, () => client.readAll({ fromPosition: decodePosition(position), direction: FORWARDS, maxCount: 1 }));
      const at = resolved?.event?.position;
      if (resolved === undefined || at === undefined || encodePosition(at) !== position) return undefined;
      return fromResolved(resolved, isOwnStream);
    },

    subscribe(after, handlers) {
      if (closed) throw new StoreUnavailableError('the EventStoreDB store is closed');
      const subscription = startResumingSubscription(after, handlers, {
        open: (from) =>
          client.subscribeToAll({ fromPosition: from ?? START, filter: streamNameFilter({ prefixes }) }) as unknown as ClientSubscription,
        isOwnStream,
        initialDelayMs: options.resubscribeDelayMs?.initial ?? 100,
        maxDelayMs: options.resubscribeDelayMs?.max ?? 5_000,
        onResubscribe: options.onResubscribe,
      });
      subscriptions.add(subscription);
      return {
        async close() {
          subscriptions.delete(subscription);
          await subscription.close();
        },
      };
    },

    async deleteStream(stream, expected = 'any') {
      await call('tombstoneStream', stream, expected, () =>
        // The client's type leaves out stream_exists, but its tombstone request carries it like append's does.
        client.tombstoneStream(stream, { expectedRevision: toClientExpected(expected) as ClientExpectedRevision, deadline: deadlineMs }),
      );
    },

    async headPosition() {
      return (await lastOwnEvent())?.position;
    },

    async close() {
      if (closed) return;
      await Promise.all([...subscriptions].map((subscription) => subscription.close()));
      subscriptions.clear();
      closed = true;
      await client.dispose();
    },
  };
}

/** The connection string for logs: `user:password@` removed. */
export function redactCredentials(connectionString: string): string {
  return connectionString.replace(/^([a-z+]+:\/\/)[^@/?]*@/i, '$1');
}

function toClientExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      return expected;
  }
}

/** Rejects with StoreUnavailableError after `ms`; the timer never keeps the process alive past the call. */
async function withDeadline<T>(work: Promise<T>, ms: number, what: string, cancel?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cancel?.();
      reject(new StoreUnavailableError(`EventStoreDB ${what} timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
