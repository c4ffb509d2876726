/** Chooses the event-store adapter from RULEVAULT_EVENTSTORE. */
import type { EventStore } from './port';
import { openSqliteStore } from './sqlite';

/** `sqlite:<path>` opens the embedded store; anything else is an EventStoreDB connection string. */
export async function openStore(connection: string): Promise<EventStore> {
  if (connection.startsWith('sqlite:')) return openSqliteStore(connection.slice('sqlite:'.length));
  // Loaded on demand: the gRPC client costs start-up time the embedded store does not need.
  const { createEsdbStore } = require('./esdb') as typeof import('./esdb');
  return createEsdbStore(connection);
}
