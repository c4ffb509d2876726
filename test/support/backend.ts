/**
 * Which event store black-box tests run on. Default: the embedded SQLite file.
 * With RULEVAULT_TEST_BACKEND=esdb: an in-process EventStoreDB stand-in per data
 * folder (so a restarted node finds its log again), or the real server named by
 * RULEVAULT_TEST_ESDB when that is set (it must start empty).
 */
import t from 'tap';
import { createEsdbStandin, type EsdbStandin } from './esdb-standin';

const standins = new Map<string, EsdbStandin>();

/** `undefined` for the default store; otherwise the connection string to use for this data folder. */
export async function backendFor(dataDir: string): Promise<string | undefined> {
  if (process.env.RULEVAULT_TEST_BACKEND !== 'esdb') return undefined;
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
