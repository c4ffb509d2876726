/** Conversions between the port's events and @eventstore/db-client's. */
import { randomUUID } from 'node:crypto';
import type { JSONEventData, ResolvedEvent } from '@eventstore/db-client';
import { encodePosition } from './esdb-position';
import type { EventMetadata, Json, NewEvent, RecordedEvent } from './port';

/**
 * The client stringifies data inside an un-awaited promise executor, so a
 * bigint there would hang the append and crash the process with an unhandled
 * rejection; serialising here first turns that into an ordinary rejection.
 */
export function toEventData(stream: string, event: NewEvent): JSONEventData {
  assertJson(stream, event.type, 'data', event.data);
  assertJson(stream, event.type, 'metadata', event.metadata);
  return {
    id: event.id ?? randomUUID(),
    contentType: 'application/json',
    type: event.type,
    data: event.data as JSONEventData['data'],
    metadata: event.metadata as unknown as JSONEventData['metadata'],
  };
}

function assertJson(stream: string, type: string, part: string, value: unknown): void {
  try {
    JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`event ${type} for ${stream}: ${part} is not JSON (${(error as Error).message})`);
  }
}

/**
 * A recorded event of one of our streams, or undefined for what we skip:
 * other applications' streams, `$` system events (a tombstone is a
 * `$streamDeleted` record in the deleted stream) and link events.
 */
export function fromResolved(resolved: ResolvedEvent, isOwnStream: (stream: string) => boolean): RecordedEvent | undefined {
  const event = resolved.event;
  if (event === undefined || resolved.link !== undefined) return undefined;
  if (!isOwnStream(event.streamId) || event.type.startsWith('$')) return undefined;
  if (event.position === undefined) throw new Error(`event ${event.id} in ${event.streamId} carries no position`);
  if (!event.isJson || !isJsonObject(event.data) || !isJsonObject(event.metadata)) {
    throw new Error(`event ${event.id} in ${event.streamId} is not a JSON event with object data and metadata`);
  }
  return {
    id: event.id,
    stream: event.streamId,
    type: event.type,
    revision: event.revision,
    position: encodePosition(event.position),
    data: event.data,
    metadata: event.metadata as unknown as EventMetadata,
  };
}

function isJsonObject(value: unknown): value is { readonly [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
