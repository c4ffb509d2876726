/**
 * The live read model: the catalog fold plus the compiled rule engine, fed one
 * event at a time. Used by the service (from its subscription) and by audit
 * replays alike.
 *
 * Each event is applied synchronously, fold and engine together, so a request
 * (which runs between events on the one JS thread) never sees half a change.
 */
import { evolve, initialState, type CatalogState } from '../projections';
import { createEngine } from './engine';
import type { Engine } from './engine/types';
import type { RecordedEvent } from './store/port';

export interface ReadModel {
  readonly state: CatalogState;
  readonly engine: Engine;
  /** Position of the last event applied. */
  readonly position: bigint | undefined;
  /** True once the subscription has delivered the whole log as it was at start. */
  readonly caughtUp: boolean;
  apply(event: RecordedEvent): void;
  markCaughtUp(): void;
  /** Resolves once the event at `position` (or a later one) has been applied. */
  waitFor(position: bigint): Promise<void>;
}

interface Waiter {
  readonly position: bigint;
  readonly resolve: () => void;
}

/** A read model from scratch, or from a snapshot's state (its rules are compiled here). */
export function createReadModel(initial: CatalogState = initialState()): ReadModel {
  const state = initial;
  const engine = createEngine();
  for (const rule of state.rules.values()) engine.upsert(rule);
  let waiters: Waiter[] = [];
  let caughtUp = false;

  function applied(position: bigint): boolean {
    return state.position !== undefined && state.position >= position;
  }

  return {
    state,
    engine,
    get position() {
      return state.position;
    },
    get caughtUp() {
      return caughtUp;
    },
    apply(event) {
      evolve(state, event);
      if (event.type.startsWith('Rule')) syncEngine(engine, state, event);
      if (waiters.length > 0) {
        const ready = waiters.filter((w) => applied(w.position));
        waiters = waiters.filter((w) => !applied(w.position));
        for (const waiter of ready) waiter.resolve();
      }
    },
    markCaughtUp() {
      caughtUp = true;
    },
    waitFor(position) {
      if (applied(position)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ position, resolve }));
    },
  };
}

/** Incremental compile: only the rule this event touched is re-indexed. */
function syncEngine(engine: Engine, state: CatalogState, event: RecordedEvent): void {
  const id = event.data.id;
  if (typeof id !== 'string') return;
  const rule = state.rules.get(id);
  if (rule === undefined) engine.remove(id);
  else engine.upsert(rule);
}
