/**
 * The read models as they were at any point of the log, for audit evaluate.
 *
 * Design (fast for repeated queries, memory bounded by configuration, not by
 * the log's length nor by the number of live records):
 * 1. A point is a prefix of the log: every event up to a position, or, for a
 *    time, the longest prefix whose events all have `metadata.at <= time`
 *    (with a clock that never runs backwards: exactly the events at or
 *    before that time).
 * 2. A snapshot is the folded state of a prefix. Folds replace records and
 *    never mutate them, so a snapshot is a shallow copy of the state's maps:
 *    O(live resources), sharing every record with its neighbours.
 * 3. Base checkpoints: while folding, a snapshot is kept every `spacing`
 *    events of the log; when more than `maxCheckpoints` exist, every other
 *    one is dropped and the spacing doubles. They stay evenly spread over
 *    the log, so a query never folds more than about
 *    events / maxCheckpoints * 2 events.
 * 3b. Held records: each snapshot costs the entries of its read models'
 *    maps (copySize). When checkpoints and points together hold more than
 *    `maxHeldRecords`, the least recently used points go first (the last
 *    one stays), then checkpoints thin out as above: with 1M live rules
 *    512 checkpoints would hold 512 copies of 1M entries (a 200k-rule log
 *    took the node from 0.5 to 1.9 GB), so a large catalog gets fewer,
 *    farther checkpoints and a query folds more.
 * 4. Points: an LRU of the last `maxPoints` snapshots that answered a query,
 *    so repeated questions about the same moment read one small page (to see
 *    that nothing lies between) and fold nothing.
 * 5. A query starts from the nearest snapshot at or before its point, clones
 *    it only if there are events to fold, folds forward page by page, and
 *    evaluates with a scan engine (rule-check.ts) over that state's rules:
 *    no index to build, conditions compiled once per rule record.
 * 6. Folding works in slices of a few milliseconds with the event loop free
 *    between them (read-ahead.ts), so evaluate is answered meanwhile: the
 *    embedded store answers a page synchronously, and a 100k-event fold
 *    once held the node for 4 s.
 *
 * Caveat: an erasure rewrites a secret's earlier events in place (their data
 * becomes the erased marker), so in-memory checkpoints taken before an
 * erasure still hold that secret's sealed record until the process restarts.
 * Audit evaluate reads rules, contexts and prompts only, never secrets.
 */
import { copySize, copyStateSteps, evolve, initialState, type CatalogState } from '../../projections';
import { AppError, badRequest } from '../base/errors';
import { foldRoomRefusal } from '../base/memory-room';
import { sliceClock, stepsInSlices, type SliceClock } from '../service/read-ahead';
import { LOG_PAGE_BYTES, type EventStore, type RecordedEvent } from '../store/port';
import { createScanEngine, scanEngineInSlices, type ScanEngine } from './rule-check';

export type AsOf =
  | { readonly kind: 'position'; readonly position: bigint }
  | { readonly kind: 'time'; readonly at: string };

export interface PointInTime {
  readonly state: CatalogState;
  readonly engine: ScanEngine;
  /** Position of the last event in the prefix; undefined for the empty prefix. */
  readonly position: bigint | undefined;
  /** `metadata.at` of that event; undefined for the empty prefix. */
  readonly at: string | undefined;
}

export interface TimeTravelOptions {
  /** Events between base checkpoints at first (it doubles as they thin out). */
  readonly checkpointEvery?: number;
  /** Base checkpoints kept at most. */
  readonly maxCheckpoints?: number;
  /** Queried points kept, least recently used evicted. */
  readonly maxPoints?: number;
  /** Entries (copySize) checkpoints and points may hold together; past it points, then checkpoints, give way. */
  readonly maxHeldRecords?: number;
  /** Milliseconds of folding before the event loop gets a turn (tests: 0 yields after every event). */
  readonly sliceMs?: number;
  /** Events read per store call while folding. */
  readonly pageSize?: number;
  /** Why a fold must stop for memory, asked between slices (default: memory-room.ts foldRoomRefusal on the process's figures). */
  readonly roomRefusal?: () => string | undefined;
}

export interface TimeTravel {
  at(asOf: AsOf): Promise<PointInTime>;
  /** Sizes, for tests and the benchmark: how much is held. */
  stats(): { checkpoints: number; points: number; spacing: number; heldRecords: number };
}

interface Snapshot {
  readonly state: CatalogState;
  readonly position: bigint | undefined;
  readonly at: string | undefined;
  /** Greatest `metadata.at` in the prefix ('' when empty): time queries start below it. */
  readonly maxAt: string;
  /** Events in the prefix. */
  readonly ordinal: number;
  /** copySize(state): what keeping it holds. */
  readonly size: number;
  /** Built when the snapshot is kept (checkpoints) or first asked (points). */
  engine?: ScanEngine;
}

/** The id of the rule an event changes, if it is a rule event (projections key rules by `data.id`). */
function ruleIdOf(event: RecordedEvent): string | undefined {
  if (!event.type.startsWith('Rule')) return undefined;
  const id = (event.data as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

const DEFAULTS = { checkpointEvery: 1000, maxCheckpoints: 512, maxPoints: 32, maxHeldRecords: 8_000_000, pageSize: 1000 } as const;
/**
 * Reads after a snapshot start small and grow 4x up to `pageSize`: a nearby
 * point is usually a few events away, and each event read costs a JSON parse
 * (bench: audit-as-of, repeated points), so reading far past it is waste.
 */
const FIRST_PAGE = 16;

/**
 * Parses `as_of`: a log position (a whole number, or its decimal string) or
 * an ISO 8601 time with a time zone. Throws a 400 naming `as_of`.
 */
export function parseAsOf(value: unknown): AsOf {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return { kind: 'position', position: BigInt(value) };
    throw badRequest('as_of must be a log position (a whole number) or an ISO 8601 time');
  }
  if (typeof value !== 'string' || value === '') {
    throw badRequest('as_of is required: a log position (a whole number) or an ISO 8601 time');
  }
  if (/^[0-9]+$/.test(value)) {
    if (value.length > 20) throw badRequest('as_of is too large for a log position');
    return { kind: 'position', position: BigInt(value) };
  }
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const ms = Date.parse(value);
  if (!ISO.test(value) || !Number.isFinite(ms)) {
    throw badRequest('as_of must be a log position (a whole number) or an ISO 8601 time with a zone, like 2026-01-31T12:00:00Z');
  }
  return { kind: 'time', at: new Date(ms).toISOString() };
}

/** Orders snapshots by position, the empty prefix first. */
function before(a: bigint | undefined, b: bigint | undefined): boolean {
  if (a === undefined) return b !== undefined;
  return b !== undefined && a < b;
}

/** Time travel over `store`; see the header for the design. */
export function createTimeTravel(store: EventStore, options: TimeTravelOptions = {}): TimeTravel {
  const maxCheckpoints = Math.max(2, options.maxCheckpoints ?? DEFAULTS.maxCheckpoints);
  const maxPoints = Math.max(1, options.maxPoints ?? DEFAULTS.maxPoints);
  const maxHeld = Math.max(0, options.maxHeldRecords ?? DEFAULTS.maxHeldRecords);
  const pageSize = options.pageSize ?? DEFAULTS.pageSize;
  const roomRefusal = options.roomRefusal ?? (() => foldRoomRefusal());
  let spacing = Math.max(1, options.checkpointEvery ?? DEFAULTS.checkpointEvery);
  const empty: Snapshot = { state: initialState(), position: undefined, at: undefined, maxAt: '', ordinal: 0, size: 0 };
  /** Base checkpoints by ordinal. */
  const checkpoints = new Map<number, Snapshot>();
  /** Queried points by position, in recency order (Map keeps insertion order). */
  const points = new Map<string, Snapshot>();
  /** The sizes of every snapshot in `checkpoints` and `points`. */
  let held = 0;

  // Every change to the two maps goes through these, so `held` stays their sum. A key held again goes last (most recent).
  function hold<K>(map: Map<K, Snapshot>, key: K, snapshot: Snapshot): void {
    drop(map, key);
    map.set(key, snapshot);
    held += snapshot.size;
  }
  function drop<K>(map: Map<K, Snapshot>, key: K): void {
    const gone = map.get(key);
    if (gone === undefined) return;
    map.delete(key);
    held -= gone.size;
  }

  /** Doubles the spacing and drops the checkpoints off it. */
  function thin(): void {
    spacing *= 2;
    for (const ordinal of [...checkpoints.keys()]) if (ordinal % spacing !== 0) drop(checkpoints, ordinal);
  }

  /** Back within `maxHeld`: older points first, then checkpoints; the last of each stays. */
  function trim(): void {
    while (held > maxHeld) {
      if (points.size > 1) drop(points, points.keys().next().value!);
      else if (checkpoints.size > 1) thin();
      else return;
    }
  }

  function keepCheckpoint(snapshot: Snapshot): void {
    hold(checkpoints, snapshot.ordinal, snapshot);
    if (checkpoints.size > maxCheckpoints) thin();
    trim();
  }

  function keepPoint(snapshot: Snapshot): void {
    const key = String(snapshot.position);
    hold(points, key, snapshot);
    if (points.size > maxPoints) drop(points, points.keys().next().value!);
    trim();
  }

  /** The latest snapshot whose prefix lies inside the point asked for. */
  function start(asOf: AsOf): Snapshot {
    let best = empty;
    const consider = (s: Snapshot) => {
      const inside = asOf.kind === 'position' ? s.position === undefined || s.position <= asOf.position : s.maxAt <= asOf.at;
      if (inside && before(best.position, s.position)) best = s;
    };
    for (const s of checkpoints.values()) consider(s);
    for (const s of points.values()) consider(s);
    return best;
  }

  const beyond = (asOf: AsOf, event: RecordedEvent) =>
    asOf.kind === 'position' ? event.position > asOf.position : event.metadata.at > asOf.at;

  /**
   * Folds forward from `from` to the point. Each checkpoint laid on the way,
   * and the point itself, gets a scan engine derived from the previous one
   * and the rules changed in between: a checkpoint's engine is an array of
   * references (tens of KB), and a query then rescans only what its stretch
   * of the log changed.
   */
  async function fold(from: Snapshot, asOf: AsOf): Promise<Snapshot> {
    const laid: number[] = [];
    try {
      return await foldLaying(from, asOf, laid);
    } catch (error) {
      // Stopped (for memory, or the store failed): the checkpoints it laid go too, so what it decoded can be collected.
      for (const ordinal of laid) drop(checkpoints, ordinal);
      throw error;
    }
  }

  /** Between slices of a fold: a 503 once memory is short (the node keeps serving; the query is refused). */
  async function turn(clock: SliceClock): Promise<void> {
    await clock.turn();
    const refusal = roomRefusal();
    if (refusal !== undefined) throw new AppError('unavailable', refusal);
  }

  async function foldLaying(from: Snapshot, asOf: AsOf, laid: number[]): Promise<Snapshot> {
    let working: CatalogState | undefined;
    let { position, at, maxAt, ordinal } = from;
    let engine = (from.engine ??= createScanEngine(from.state.rules));
    let changed = new Set<string>();
    let limit = FIRST_PAGE;
    const clock = sliceClock(options.sliceMs);
    for (;;) {
      // A position query never reads past its point: the log has no more than that many events before it.
      if (asOf.kind === 'position' && position !== undefined && position >= asOf.position) return finish();
      const wanted = asOf.kind === 'position' ? Math.max(1, Math.min(limit, Number(asOf.position - (position ?? 0n)))) : limit;
      // A page is decoded whole, between two of the fold's memory checks: its data is held to
      // LOG_PAGE_BYTES (rules with 400 KB descriptions, in pages of 256, were 100 MB at once).
      const page = await store.readAll({ after: position, limit: wanted, maxDataBytes: LOG_PAGE_BYTES });
      if (page.length === 0) return finish();
      for (const event of page) {
        if (clock.due()) await turn(clock);
        if (beyond(asOf, event)) return finish();
        // Copies and scan engines in slices too: at 1M rules each held the node 0.2-0.45 s at once (bench: audit-stall).
        working ??= await stepsInSlices(copyStateSteps(from.state), clock);
        evolve(working, event);
        const ruleId = ruleIdOf(event);
        if (ruleId !== undefined) changed.add(ruleId);
        position = event.position;
        at = event.metadata.at;
        if (at > maxAt) maxAt = at;
        ordinal += 1;
        if (ordinal % spacing === 0 && !checkpoints.has(ordinal)) {
          engine = await scanEngineInSlices(working.rules, { engine, changed }, clock);
          changed = new Set();
          keepCheckpoint({ state: await stepsInSlices(copyStateSteps(working), clock), position, at, maxAt, ordinal, engine, size: copySize(working) });
          laid.push(ordinal);
        }
      }
      limit = Math.min(pageSize, limit * 4);
    }

    async function finish(): Promise<Snapshot> {
      if (working === undefined) return from;
      const snapshot = { state: working, position, at, maxAt, ordinal, engine: await scanEngineInSlices(working.rules, { engine, changed }, clock), size: copySize(working) };
      keepPoint(snapshot);
      return snapshot;
    }
  }

  return {
    async at(asOf) {
      const from = start(asOf);
      // A position asked before is answered without reading the store.
      const exact = asOf.kind === 'position' && from.position === asOf.position;
      const snapshot = exact ? from : await fold(from, asOf);
      if (snapshot === from && from !== empty) keepPoint(from);
      snapshot.engine ??= createScanEngine(snapshot.state.rules);
      return { state: snapshot.state, engine: snapshot.engine, position: snapshot.position, at: snapshot.at };
    },
    stats: () => ({ checkpoints: checkpoints.size, points: points.size, spacing, heldRecords: held }),
  };
}
