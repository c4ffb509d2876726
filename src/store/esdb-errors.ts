/** Turns @eventstore/db-client errors into the port's errors. */
import { ConcurrencyError, StoreUnavailableError, StreamDeletedError, type ExpectedRevision } from './port';

/** gRPC status codes that mean "the server could not be reached or dropped the call". */
const UNAVAILABLE = 14;
const CANCELLED = 1;
const DEADLINE_EXCEEDED = 4;

/** The client's error classes carry a `type` tag (its ErrorType enum). */
interface ClientError {
  readonly type?: unknown;
  readonly code?: unknown;
  readonly actualVersion?: unknown;
}

/**
 * Maps a client error for an operation on `stream` (undefined for $all).
 * Unknown errors pass through unchanged.
 */
export function mapClientError(error: unknown, stream: string | undefined, expected: ExpectedRevision = 'any'): unknown {
  if (!(error instanceof Error) || error instanceof StoreUnavailableError) return error;
  const { type, actualVersion } = error as ClientError;
  if (type === 'wrong-expected-version' && stream !== undefined) {
    return new ConcurrencyError(stream, expected, typeof actualVersion === 'bigint' && actualVersion >= 0n ? actualVersion : undefined);
  }
  if (type === 'stream-deleted' && stream !== undefined) return new StreamDeletedError(stream);
  if (isUnavailable(error)) return new StoreUnavailableError(`EventStoreDB unavailable: ${error.message}`, error);
  return error;
}

/** True for errors after which the same call may succeed later (server down, restarted, slow). */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const { type, code } = error as ClientError;
  return (
    type === 'unavailable' ||
    type === 'cancelled' ||
    type === 'deadline-exceeded' ||
    code === UNAVAILABLE ||
    code === CANCELLED ||
    code === DEADLINE_EXCEEDED
  );
}

/** True when a read found no stream: the port answers [] then. */
export function isStreamNotFound(error: unknown): boolean {
  return error instanceof Error && (error as ClientError).type === 'stream-not-found';
}

export function isStreamDeleted(error: unknown): boolean {
  return error instanceof Error && (error as ClientError).type === 'stream-deleted';
}
