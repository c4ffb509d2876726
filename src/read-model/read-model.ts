/**
 * The live read model: the catalog fold plus the compiled rule engine, fed one
 * event at a time. Used by the service (from its subscription) and by audit
 * replays alike.
 *
 * Each event is applied synchronously, fold and engine together, so a request
 * (which runs between events on the one JS thread) never sees half a change.
 */
import { evolve, initialState, type CatalogState, type RuleRecord } from '../../projections';
import { createEngine, type Engine } from '../engine';
import { markOf, type LogMark } from '../store/chain';
import type { EventMetadata, RecordedEvent } from '../store/port';

export interface ReadModel {
  readonly state: CatalogState;
  readonly engine: Engine;
  /** Position of the last event applied. */
  readonly position: bigint | undefined;
  /**
   * What identifies the log at `position`: the last event applied, by id and
   * chain link. Undefined before the first event, and in a model made from a
   * snapshot's state until it applies one (the snapshot holds it then).
   */
  mark(): LogMark | undefined;
  /** True once the subscription has delivered the whole log as it was at start. */
  readonly caughtUp: boolean;
  apply(event: RecordedEvent): void;
  markCaughtUp(): void;
  /** Calls `listener` once the read model is caught up: at markCaughtUp, or at once if it already is. */
  whenCaughtUp(listener: () => void): void;
  /** Resolves once the event at `position` (or a later one) has been applied. */
  waitFor(position: bigint): Promise<void>;
  /**
   * Calls `listener` after each event is applied, before any `waitFor` of it
   * resolves: a write's command answers only after its listeners ran (the
   * change stream publishes from here). Returns the unsubscribe function.
   */
  onApplied(listener: (event: RecordedEvent) => void): () => void;
}

interface Waiter {
  readonly position: bigint;
  readonly resolve: () => void;
}

/**
 * A read model from scratch, or from a snapshot's state. Its rules are
 * compiled here, unless `restored` is given: an engine that already holds
 * exactly `initial.rules` (a snapshot's engine image, snapshots/snapshotter.ts).
 */
export function createReadModel(initial: CatalogState = initialState(), restored?: Engine): ReadModel {
  const state = initial;
  const compiled = restored ?? createEngine();
  let waiters: Waiter[] = [];
  let listeners: ((event: RecordedEvent) => void)[] = [];
  let caughtUp = false;
  let caughtUpListeners: (() => void)[] = [];
  // The last event's id and metadata, not the event: its data (a context of 500 KiB) need not stay in memory for this.
  let lastId: string | undefined;
  let lastMetadata: EventMetadata | undefined;
  // Until caught up, rule changes are only noted and each rule is compiled
  // once, on first use of the engine: a replay of 1M events where rules
  // change many times compiles each final rule once (bench: replay).
  const pending = new Set<string>(restored === undefined ? state.rules.keys() : []);

  function applied(position: bigint): boolean {
    return state.position !== undefined && state.position >= position;
  }
  function sync(id: string): void {
    const rule = state.rules.get(id);
    if (rule === undefined) compiled.remove(id);
    else compiled.upsert(rule);
  }
  /** The noted rules compiled in one bulk build (upsertMany: a snapshot start or a catch-up flushes up to every rule). */
  function flush(): void {
    const upserts: RuleRecord[] = [];
    for (const id of pending) {
      const rule = state.rules.get(id);
      if (rule === undefined) compiled.remove(id);
      else upserts.push(rule);
    }
    pending.clear();
    compiled.upsertMany(upserts);
  }

  return {
    state,
    get engine() {
      if (pending.size > 0) flush();
      return compiled;
    },
    get position() {
      return state.position;
    },
    get caughtUp() {
      return caughtUp;
    },
    mark() {
      return lastId === undefined ? undefined : markOf({ id: lastId, metadata: lastMetadata! });
    },
    apply(event) {
      evolve(state, event);
      lastId = event.id;
      lastMetadata = event.metadata;
      const id = event.type.startsWith('Rule') ? event.data.id : undefined;
      if (typeof id === 'string') {
        // Live: incremental compile of this rule only, in the same synchronous step as the fold.
        if (caughtUp) sync(id);
        else pending.add(id);
      }
      for (const listener of listeners) listener(event);
      if (waiters.length > 0) {
        const ready = waiters.filter((w) => applied(w.position));
        waiters = waiters.filter((w) => !applied(w.position));
        for (const waiter of ready) waiter.resolve();
      }
    },
    markCaughtUp() {
      flush();
      if (caughtUp) return;
      caughtUp = true;
      const waiting = caughtUpListeners;
      caughtUpListeners = [];
      for (const listener of waiting) listener();
    },
    whenCaughtUp(listener) {
      if (caughtUp) listener();
      else caughtUpListeners.push(listener);
    },
    waitFor(position) {
      if (applied(position)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ position, resolve }));
    },
    onApplied(listener) {
      listeners = [...listeners, listener];
      return () => {
        listeners = listeners.filter((l) => l !== listener);
      };
    },
  };
}
