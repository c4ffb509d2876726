/**
 * The read models as they were at any point of the log, for audit evaluate.
 *
 * Design (fast for repeated queries, memory bounded by configuration, not by
 * the log's length):
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
 * 4. Points: an LRU of the last `maxPoints` snapshots that answered a query,
 *    so repeated questions about the same moment read one small page (to see
 *    that nothing lies between) and fold nothing.
 * 5. A query starts from the nearest snapshot at or before its point, clones
 *    it only if there are events to fold, folds forward page by page, and
 *    evaluates with a scan engine (rule-check.ts) over that state's rules:
 *    no index to build, conditions compiled once per rule record.
 *
 * Caveat: an erasure rewrites a secret's earlier events in place (their data
 * becomes the erased marker), so in-memory checkpoints taken before an
 * erasure still hold that secret's sealed record until the process restarts.
 * Audit evaluate reads rules, contexts and prompts only, never secrets.
 */
import { copyState, evolve, initialState, type CatalogState } from '../../projections';
import type { Engine } from '../engine';
import { badRequest } from '../errors';
import type { EventStore, RecordedEvent } from '../store/port';
import { createScanEngine, type ScanEngine } from './rule-check';

export type AsOf =
  | { readonly kind: 'position'; readonly position: bigint }
  | { readonly kind: 'time'; readonly at: string };

export interface PointInTime {
  readonly state: CatalogState;
  readonly engine: Engine;
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
  /** Events read per store call while folding. */
  readonly pageSize?: number;
}

export interface TimeTravel {
  at(asOf: AsOf): Promise<PointInTime>;
  /** Sizes, for tests and the benchmark: how much is held. */
  stats(): { checkpoints: number; points: number; spacing: number };
}

interface Snapshot {
  readonly state: CatalogState;
  readonly position: bigint | undefined;
  readonly at: string | undefined;
  /** Greatest `metadata.at` in the prefix ('' when empty): time queries start below it. */
  readonly maxAt: string;
  /** Events in the prefix. */
  readonly ordinal: number;
  /** Built when the snapshot is kept (checkpoints) or first asked (points). */
  engine?: ScanEngine;
}

/** The id of the rule an event changes, if it is a rule event (projections key rules by `data.id`). */
function ruleIdOf(event: RecordedEvent): string | undefined {
  if (!event.type.startsWith('Rule')) return undefined;
  const id = (event.data as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

const DEFAULTS = { checkpointEvery: 1000, maxCheckpoints: 512, maxPoints: 32, pageSize: 1000 } as const;
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
  const pageSize = options.pageSize ?? DEFAULTS.pageSize;
  let spacing = Math.max(1, options.checkpointEvery ?? DEFAULTS.checkpointEvery);
  const empty: Snapshot = { state: initialState(), position: undefined, at: undefined, maxAt: '', ordinal: 0 };
  /** Base checkpoints by ordinal. */
  const checkpoints = new Map<number, Snapshot>();
  /** Queried points by position, in recency order (Map keeps insertion order). */
  const points = new Map<string, Snapshot>();

  function keepCheckpoint(snapshot: Snapshot): void {
    checkpoints.set(snapshot.ordinal, snapshot);
    if (checkpoints.size <= maxCheckpoints) return;
    spacing *= 2;
    for (const ordinal of checkpoints.keys()) if (ordinal % spacing !== 0) checkpoints.delete(ordinal);
  }

  function keepPoint(snapshot: Snapshot): void {
    const key = String(snapshot.position);
    points.delete(key);
    points.set(key, snapshot);
    if (points.size > maxPoints) points.delete(points.keys().next().value!);
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
    let working: CatalogState | undefined;
    let { position, at, maxAt, ordinal } = from;
    let engine = (from.engine ??= createScanEngine(from.state.rules));
    let changed = new Set<string>();
    let limit = FIRST_PAGE;
    for (;;) {
      // A position query never reads past its point: the log has no more than that many events before it.
      if (asOf.kind === 'position' && position !== undefined && position >= asOf.position) return finish();
      const wanted = asOf.kind === 'position' ? Math.max(1, Math.min(limit, Number(asOf.position - (position ?? 0n)))) : limit;
      const page = await store.readAll({ after: position, limit: wanted });
      for (const event of page) {
        if (beyond(asOf, event)) return finish();
        working ??= copyState(from.state);
        evolve(working, event);
        const ruleId = ruleIdOf(event);
        if (ruleId !== undefined) changed.add(ruleId);
        position = event.position;
        at = event.metadata.at;
        if (at > maxAt) maxAt = at;
        ordinal += 1;
        if (ordinal % spacing === 0 && !checkpoints.has(ordinal)) {
          engine = createScanEngine(working.rules, { engine, changed });
          changed = new Set();
          keepCheckpoint({ state: copyState(working), position, at, maxAt, ordinal, engine });
        }
      }
      if (page.length < wanted) return finish();
      limit = Math.min(pageSize, limit * 4);
    }

    function finish(): Snapshot {
      if (working === undefined) return from;
      const snapshot = { state: working, position, at, maxAt, ordinal, engine: createScanEngine(working.rules, { engine, changed }) };
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
    stats: () => ({ checkpoints: checkpoints.size, points: points.size, spacing }),
  };
}
