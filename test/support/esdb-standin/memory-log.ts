/**
 * The stand-in's log: EventStoreDB's write and read rules over an in-memory
 * array. No gRPC here; server.ts translates messages to and from these calls.
 */

export interface LogPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export interface LogRecord extends LogPosition {
  readonly stream: string;
  readonly revision: bigint;
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
  /** .NET ticks (100 ns) since the Unix epoch, as EventStoreDB sends them. */
  readonly createdTicks: bigint;
}

export interface ProposedRecord {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly customMetadata: Uint8Array;
}

export type Expected =
  | { readonly kind: 'any' }
  | { readonly kind: 'no_stream' }
  | { readonly kind: 'stream_exists' }
  | { readonly kind: 'revision'; readonly revision: bigint };

export type WriteOutcome =
  | { readonly kind: 'ok'; readonly currentRevision: bigint | undefined; readonly position: LogPosition | undefined }
  | { readonly kind: 'wrong_expected_version'; readonly current: bigint | undefined }
  | { readonly kind: 'stream_deleted' };

export type StreamReadOutcome =
  | { readonly kind: 'ok'; readonly records: readonly LogRecord[] }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'deleted' };

/** EventStoreDB numbers a tombstone record long.MaxValue. */
export const TOMBSTONE_REVISION = 2n ** 63n - 1n;
export const TOMBSTONE_TYPE = '$streamDeleted';

interface StreamState {
  /** -1 when the stream has no events. */
  lastRevision: bigint;
  tombstoned: boolean;
  /** Soft delete: revisions below this are hidden, as with $tb metadata. */
  truncateBefore: bigint;
}

/** Header bytes a record costs on top of its payload, so positions have gaps like real ones. */
const RECORD_OVERHEAD = 80n;

export function comparePositions(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export class MemoryLog {
  private readonly records: LogRecord[] = [];
  private readonly streams = new Map<string, StreamState>();
  private nextPosition = 0n;
  private waiters: Array<() => void> = [];

  get length(): number {
    return this.records.length;
  }

  at(index: number): LogRecord {
    const record = this.records[index];
    if (record === undefined) throw new RangeError(`no record at ${index}`);
    return record;
  }

  /** Resolves on the next write (or at once when `wake` is called). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every waiter, e.g. so subscription pumps notice a shutdown. */
  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  append(stream: string, expected: Expected, events: readonly ProposedRecord[], now: Date): WriteOutcome {
    const state = this.streams.get(stream);
    if (state?.tombstoned) return { kind: 'stream_deleted' };
    const current = currentRevision(state);
    if (!expectationHolds(expected, current)) return { kind: 'wrong_expected_version', current };
    if (events.length === 0) return { kind: 'ok', currentRevision: current, position: undefined };
    const next = state ?? { lastRevision: -1n, tombstoned: false, truncateBefore: 0n };
    this.streams.set(stream, next);
    // Every record of one append shares the commit (transaction) position of
    // its first record and has its own prepare position, as in EventStoreDB.
    const commit = this.nextPosition;
    let last: LogRecord | undefined;
    for (const event of events) {
      next.lastRevision += 1n;
      last = this.push({ ...event, stream, revision: next.lastRevision, commit, createdTicks: ticks(now) });
      if (stream.startsWith('$$') && event.type === '$metadata') this.applyMetadata(stream.slice(2), event.data);
    }
    this.wake();
    return { kind: 'ok', currentRevision: next.lastRevision, position: last && { commit: last.commit, prepare: last.prepare } };
  }

  /** Hard delete: a `$streamDeleted` record; the events stay in $all. */
  tombstone(stream: string, expected: Expected, now: Date): WriteOutcome {
    const state = this.streams.get(stream);
    if (state?.tombstoned) return { kind: 'stream_deleted' };
    const current = currentRevision(state);
    if (!expectationHolds(expected, current)) return { kind: 'wrong_expected_version', current };
    const next = state ?? { lastRevision: -1n, tombstoned: false, truncateBefore: 0n };
    next.tombstoned = true;
    this.streams.set(stream, next);
    const record = this.push({
      stream,
      revision: TOMBSTONE_REVISION,
      id: '00000000-0000-0000-0000-000000000000',
      type: TOMBSTONE_TYPE,
      contentType: 'application/octet-stream',
      data: new Uint8Array(),
      customMetadata: new Uint8Array(),
      commit: this.nextPosition,
      createdTicks: ticks(now),
    });
    this.wake();
    return { kind: 'ok', currentRevision: undefined, position: { commit: record.commit, prepare: record.prepare } };
  }

  /** Soft delete: hides the events; a later append continues the revisions. */
  softDelete(stream: string, expected: Expected): WriteOutcome {
    const state = this.streams.get(stream);
    if (state?.tombstoned) return { kind: 'stream_deleted' };
    const current = currentRevision(state);
    if (!expectationHolds(expected, current)) return { kind: 'wrong_expected_version', current };
    if (state) state.truncateBefore = state.lastRevision + 1n;
    return { kind: 'ok', currentRevision: undefined, position: undefined };
  }

  /** Stream metadata as EventStoreDB honours it here: `$tb` (truncate before) hides the revisions below it from stream reads. */
  private applyMetadata(stream: string, data: Uint8Array): void {
    let metadata: { $tb?: unknown };
    try {
      metadata = JSON.parse(Buffer.from(data).toString('utf8')) as { $tb?: unknown };
    } catch {
      return;
    }
    if (typeof metadata.$tb !== 'number') return;
    const state = this.streams.get(stream) ?? { lastRevision: -1n, tombstoned: false, truncateBefore: 0n };
    state.truncateBefore = BigInt(metadata.$tb);
    this.streams.set(stream, state);
  }

  readStream(stream: string, direction: 'forwards' | 'backwards', from: bigint | 'start' | 'end', count: bigint): StreamReadOutcome {
    const state = this.streams.get(stream);
    if (state?.tombstoned) return { kind: 'deleted' };
    if (state === undefined || currentRevision(state) === undefined) return { kind: 'not_found' };
    const visible = this.records.filter(
      (record) => record.stream === stream && record.revision >= state.truncateBefore && record.type !== TOMBSTONE_TYPE,
    );
    const selected =
      direction === 'forwards'
        ? visible.filter((record) => from !== 'end' && (from === 'start' || record.revision >= from))
        : visible.filter((record) => from === 'end' || record.revision <= (from === 'start' ? 0n : from)).reverse();
    return { kind: 'ok', records: selected.slice(0, clampCount(count)) };
  }

  /** Forwards from `from` inclusive, or backwards from `from` exclusive, as $all reads are. */
  readAll(direction: 'forwards' | 'backwards', from: LogPosition | 'start' | 'end', count: bigint): LogRecord[] {
    const limit = clampCount(count);
    if (direction === 'forwards') {
      const start = from === 'start' ? 0 : from === 'end' ? this.records.length : this.firstIndexAtOrAfter(from);
      return this.records.slice(start, start + limit);
    }
    const end = from === 'end' ? this.records.length : from === 'start' ? 0 : this.firstIndexAtOrAfter(from);
    return this.records.slice(Math.max(0, end - limit), end).reverse();
  }

  /** Index of the first record strictly after `position` (subscriptions are exclusive). */
  firstIndexAfter(position: LogPosition): number {
    let index = this.firstIndexAtOrAfter(position);
    while (index < this.records.length && comparePositions(this.at(index), position) === 0) index += 1;
    return index;
  }

  private firstIndexAtOrAfter(position: LogPosition): number {
    let low = 0;
    let high = this.records.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (comparePositions(this.at(middle), position) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private push(fields: Omit<LogRecord, 'prepare'>): LogRecord {
    const record: LogRecord = { ...fields, prepare: this.nextPosition };
    this.records.push(record);
    const size = BigInt(record.data.length + record.customMetadata.length + record.type.length + record.stream.length);
    this.nextPosition += RECORD_OVERHEAD + size;
    return record;
  }
}

function currentRevision(state: StreamState | undefined): bigint | undefined {
  if (state === undefined || state.lastRevision < state.truncateBefore) return undefined;
  return state.lastRevision;
}

function expectationHolds(expected: Expected, current: bigint | undefined): boolean {
  switch (expected.kind) {
    case 'any':
      return true;
    case 'no_stream':
      return current === undefined;
    case 'stream_exists':
      return current !== undefined;
    case 'revision':
      return current === expected.revision;
  }
}

function clampCount(count: bigint): number {
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
}

function ticks(now: Date): bigint {
  return BigInt(now.getTime()) * 10_000n;
}
