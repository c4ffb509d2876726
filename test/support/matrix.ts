/**
 * The black-box matrix: which event store (the embedded SQLite file, or an
 * EventStoreDB log) and how many processes (one node, or a writer with HTTP
 * workers) each HTTP suite runs on. This table is the only place that says
 * so: a suite file calls `forCells(t, '<suite>', body)`, which runs its body
 * once per declared cell, inside a child test named after the cell, with the
 * cell handed to the body (withNode and startTestNode take it explicitly;
 * nothing reads or sets process.env for it). tap runs each file as one
 * process, so a suite's cells run one after another in that process.
 *
 * Every route has one HTTP path (docs/decisions/0051-one-implementation-per-route.md),
 * so no cell chooses one.
 */
import type { Test } from 'tap';

export type Store = 'sqlite' | 'esdb';

export interface Cell {
  readonly store: Store;
  /** RULEVAULT_WORKERS: more than 1 runs the service as its own process, a writer and that many HTTP workers. */
  readonly workers?: number;
}

export const SQLITE: Cell = { store: 'sqlite' };
export const ESDB: Cell = { store: 'esdb' };
/** Two HTTP workers in front of the writer (src/cluster/): every write crosses a process boundary, and answers come from either worker. */
export const SQLITE_WORKERS: Cell = { store: 'sqlite', workers: 2 };
/** The same on EventStoreDB: each worker follows the log with a catch-up subscription of its own. */
export const ESDB_WORKERS: Cell = { store: 'esdb', workers: 2 };

/**
 * Every suite of test/http (and the client's local evaluation) that a store can change also runs on
 * EventStoreDB; the suites of the contract's reads and writes also run with
 * two workers.
 */
export const MATRIX = {
  'admin-writes': [SQLITE, ESDB, SQLITE_WORKERS],
  auth: [SQLITE, ESDB, SQLITE_WORKERS],
  'body-parsing': [SQLITE, ESDB],
  'catalog-admin': [SQLITE, ESDB, SQLITE_WORKERS],
  // Protection and change requests: apply is one transaction on SQLite, a plan finished forward on EventStoreDB.
  'change-requests': [SQLITE, ESDB, SQLITE_WORKERS],
  // A request's impact report and test cases: the test-case set is a stream of its own, applied as the rest.
  'change-request-impact': [SQLITE, ESDB],
  console: [SQLITE],
  cors: [SQLITE, ESDB, SQLITE_WORKERS],
  'dead-links': [SQLITE, ESDB],
  'error-codes': [SQLITE, SQLITE_WORKERS],
  evaluate: [SQLITE, ESDB, SQLITE_WORKERS, ESDB_WORKERS],
  'get-secrets': [SQLITE, ESDB, SQLITE_WORKERS],
  'get-secrets-outcomes': [SQLITE],
  observability: [SQLITE, ESDB],
  // Flags are rules answered by evaluate, and their keys are indexed from rule events: both stores.
  ofrep: [SQLITE, ESDB],
  'openlit-prompts': [SQLITE, ESDB, SQLITE_WORKERS],
  // OpenLIT's published SDK reading split answers.
  'openlit-sdk': [SQLITE, ESDB],
  'prompt-labels': [SQLITE, ESDB, SQLITE_WORKERS],
  restart: [SQLITE, ESDB],
  // Splits are answered by evaluate, stored in rule events and replayed: both stores (two workers: splits-stability).
  splits: [SQLITE, ESDB],
  // A split's entities switched off or deleted, and an audit export and import of its rules.
  'splits-lifecycle': [SQLITE, ESDB],
  'rules-admin': [SQLITE, ESDB, SQLITE_WORKERS, ESDB_WORKERS],
  stream: [SQLITE, ESDB, SQLITE_WORKERS],
  // The revocation's reach: with workers it must reach every one.
  'key-revocation': [SQLITE, SQLITE_WORKERS],
  // test/client/local.test.ts: the local evaluator follows the change stream, which each store serves.
  local: [SQLITE, ESDB],
  // test/client/openfeature-differential.test.ts: the provider follows the stream, OFREP answers from the node.
  'openfeature-differential': [SQLITE, ESDB],
} as const satisfies Record<string, readonly Cell[]>;

export type Suite = keyof typeof MATRIX;

export function cellName(cell: Cell): string {
  return `${cell.store}${cell.workers === undefined ? '' : `+${cell.workers}workers`}`;
}

/** The node settings a cell fixes (the store is handed to startTestNode apart: it needs a log server, not a setting). */
export function cellEnv(cell: Cell): Record<string, string> {
  return cell.workers === undefined ? {} : { RULEVAULT_WORKERS: String(cell.workers) };
}

/** Runs `body` once per cell the matrix declares for `suite`, each in its own child test `[store]` or `[store+Nworkers]`. */
export function forCells(t: Test, suite: Suite, body: (t: Test, cell: Cell) => void): void {
  for (const cell of MATRIX[suite]) {
    t.test(`[${cellName(cell)}]`, async (t) => body(t, cell));
  }
}
