/**
 * The black-box matrix: which event store (the embedded SQLite file, or an
 * EventStoreDB log) and which HTTP path for the public endpoints (the lean
 * handlers, or the express routes with RULEVAULT_FAST_PATH=0) each HTTP suite
 * runs on. This table is the only place that says so: a suite file calls
 * `forCells(t, '<suite>', body)`, which runs its body once per declared cell,
 * inside a child test named after the cell, with the cell handed to the body
 * (withNode and startTestNode take it explicitly; nothing reads or sets
 * process.env for it). tap runs each file as one process, so a suite's cells
 * run one after another in that process.
 */
import type { Test } from 'tap';

export type Store = 'sqlite' | 'esdb';
export type HttpPath = 'lean' | 'express';

export interface Cell {
  readonly store: Store;
  readonly path: HttpPath;
  /** RULEVAULT_WORKERS: more than 1 runs the service as its own process, a writer and that many HTTP workers. */
  readonly workers?: number;
}

export const SQLITE_LEAN: Cell = { store: 'sqlite', path: 'lean' };
export const SQLITE_EXPRESS: Cell = { store: 'sqlite', path: 'express' };
export const ESDB_LEAN: Cell = { store: 'esdb', path: 'lean' };
/** Two HTTP workers in front of the writer (src/cluster/): every write crosses a process boundary, and answers come from either worker. */
export const SQLITE_WORKERS: Cell = { store: 'sqlite', path: 'lean', workers: 2 };
/** The same on EventStoreDB: each worker follows the log with a catch-up subscription of its own. */
export const ESDB_WORKERS: Cell = { store: 'esdb', path: 'lean', workers: 2 };

/**
 * Suites that answer the public endpoints or the catalog's writes (both have a
 * lean path: src/http/admin-writes.ts) also run on the express path; every
 * suite of test/http that a store can change also runs on EventStoreDB; the
 * suites of the contract's reads and writes also run with two workers.
 */
export const MATRIX = {
  'admin-writes': [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS],
  auth: [SQLITE_LEAN, ESDB_LEAN, SQLITE_WORKERS],
  'body-parsing': [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN],
  'catalog-admin': [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS],
  // The console is served by express whatever the path setting: both paths show it reaches express.
  console: [SQLITE_LEAN, SQLITE_EXPRESS],
  cors: [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS],
  'dead-links': [SQLITE_LEAN, ESDB_LEAN],
  'error-codes': [SQLITE_LEAN, SQLITE_EXPRESS, SQLITE_WORKERS],
  evaluate: [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS, ESDB_WORKERS],
  'get-secrets': [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS],
  'get-secrets-outcomes': [SQLITE_LEAN, SQLITE_EXPRESS],
  observability: [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN],
  'openlit-prompts': [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS],
  'prompt-labels': [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS],
  restart: [SQLITE_LEAN, ESDB_LEAN],
  // Splits are answered by evaluate, stored in rule events and replayed: both stores (two workers: splits-stability).
  splits: [SQLITE_LEAN, ESDB_LEAN],
  'rules-admin': [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS, ESDB_WORKERS],
  stream: [SQLITE_LEAN, SQLITE_EXPRESS, ESDB_LEAN, SQLITE_WORKERS],
  // The revocation's reach: both HTTP paths serve the stream, and with workers the revocation must reach every one.
  'key-revocation': [SQLITE_LEAN, SQLITE_EXPRESS, SQLITE_WORKERS],
} as const satisfies Record<string, readonly Cell[]>;

export type Suite = keyof typeof MATRIX;

export function cellName(cell: Cell): string {
  return `${cell.store}+${cell.path}${cell.workers === undefined ? '' : `+${cell.workers}workers`}`;
}

/** The node settings a cell fixes (the store is handed to startTestNode apart: it needs a log server, not a setting). */
export function cellEnv(cell: Cell): Record<string, string> {
  return { RULEVAULT_FAST_PATH: cell.path === 'lean' ? '1' : '0', ...(cell.workers === undefined ? {} : { RULEVAULT_WORKERS: String(cell.workers) }) };
}

/** Runs `body` once per cell the matrix declares for `suite`, each in its own child test `[store+path]`. */
export function forCells(t: Test, suite: Suite, body: (t: Test, cell: Cell) => void): void {
  for (const cell of MATRIX[suite]) {
    t.test(`[${cellName(cell)}]`, async (t) => body(t, cell));
  }
}
