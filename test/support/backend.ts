/**
 * The event store a black-box node runs on (its matrix cell's store, see
 * matrix.ts). SQLite: the embedded file in the data folder. EventStoreDB: an
 * in-process stand-in per data folder (so a restarted node finds its log
 * again), or the real server named by RULEVAULT_TEST_ESDB when that is set (it
 * must start empty).
 */
import t from 'tap';
import { createEsdbStandin, type EsdbStandin } from './esdb-standin';
import type { Store } from './matrix';

const standins = new Map<string, EsdbStandin>();

/** `undefined` for the embedded store; otherwise the connection string to use for this data folder. */
export async function backendFor(dataDir: string, store: Store): Promise<string | undefined> {
  if (store !== 'esdb') return undefined;
  const real = process.env.RULEVAULT_TEST_ESDB;
  if (real) return real;
  let standin = standins.get(dataDir);
  if (standin === undefined) {
    if (standins.size === 0) t.teardown(() => Promise.all([...standins.values()].map((s) => s.stop())).then(() => undefined));
    standin = createEsdbStandin({ batchAppend: true });
    await standin.start();
    standins.set(dataDir, standin);
  }
  return standin.connectionString;
}
