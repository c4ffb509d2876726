/** Chooses the event-store adapter from RULEVAULT_EVENTSTORE. */
import type { Logger } from '../base/log';
import type { EventStore } from './port';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite';

/** What the embedded store takes from the configuration (EventStoreDB ignores it). */
export type EmbeddedStoreOptions = Pick<SqliteStoreOptions, 'groupCommit' | 'onSyncFailure'>;

/** `sqlite:<path>` opens the embedded store; anything else is an EventStoreDB connection string. */
export async function openStore(connection: string, logger?: Logger, embedded: EmbeddedStoreOptions = {}): Promise<EventStore> {
  if (connection.startsWith('sqlite:')) return openSqliteStore(connection.slice('sqlite:'.length), embedded);
  // Loaded on demand: the gRPC client costs start-up time the embedded store does not need.
  const { createEsdbStore } = require('./esdb') as typeof import('./esdb');
  return createEsdbStore(connection, {
    onResubscribe: (error, delayMs) =>
      logger?.warn('log subscription lost; resubscribing', { error: error instanceof Error ? error.message : String(error), delay_ms: delayMs }),
  });
}
