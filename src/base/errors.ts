/**
 * The error catalog: every error a caller can see, with a stable code and its
 * HTTP status. Domain code throws `AppError`; the HTTP layer maps it to
 * `{ err: message, code }`. Messages name what is wrong and never carry
 * secrets; the code is the machine-readable part a client branches on, so a
 * code once published is never renamed (docs/api.md#error-codes).
 */
import { lowerCaseHint } from './uuid-text';

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  /** A direct write to a protected resource: it changes only through an approved change request. */
  protected: 409,
  /** A change request's pinned resource moved (or is gone) since it was drafted: it cannot apply. */
  stale: 409,
  payload_too_large: 413,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every code an error body can carry (the OpenAPI document's enum). */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[];

export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string) => new AppError('bad_request', message);
export const notFound = (what: string, id: string) => new AppError('not_found', `${what} ${id} not found${lowerCaseHint(id)}`);
export const conflict = (message: string) => new AppError('conflict', message);

/** The message shown for any error that is not an AppError: internals never leak. */
export const INTERNAL_MESSAGE = 'internal error';
