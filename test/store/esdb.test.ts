/**
 * The shared store contract against the EventStoreDB adapter: on the
 * in-process stand-in (both append paths the client has), and on a real
 * server when RULEVAULT_TEST_ESDB holds its connection string.
 */
import t from 'tap';
import { STREAM_PREFIXES } from '../../src/events';
import { createEsdbStore, ESDB_TRAITS } from '../../src/store/esdb';
import { createEsdbStandin } from '../support/esdb-standin';
import { runStoreContract } from './contract';

/** The contract writes `contract<uuid>-…` streams; the adapter must count them as ours. */
const streamPrefixes = [...STREAM_PREFIXES, 'contract'];

function openOn(connectionString: () => string) {
  return async () => {
    const store = createEsdbStore(connectionString(), { streamPrefixes });
    return { store, traits: ESDB_TRAITS, cleanup: () => store.close() };
  };
}

for (const batchAppend of [false, true]) {
  const standin = createEsdbStandin({ batchAppend });
  t.before(() => standin.start().then(() => undefined));
  t.teardown(() => standin.stop());
  runStoreContract(t, `esdb stand-in (${batchAppend ? 'BatchAppend' : 'Append'})`, openOn(() => standin.connectionString));
}

const real = process.env['RULEVAULT_TEST_ESDB'];
if (real) runStoreContract(t, 'esdb server', openOn(() => real));
