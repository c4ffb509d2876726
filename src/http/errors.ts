/** Maps anything thrown on the way to an answer into a status and `{ err, code }`. Internals never leak. */
import type { ServerResponse } from 'node:http';
import { AppError, INTERNAL_MESSAGE, type ErrorCode } from '../base/errors';
import { jsonAnswer, type Answer } from './answer';
import { INVALID_JSON, UNSUPPORTED_CHARSET, tooLargeMessage } from './request-body';

/** What any /api request is answered until the read models have caught up with the log. */
export const NOT_READY_MESSAGE = 'not ready: the read models are catching up with the log';
/** A path parameter that does not %-decode. */
export const MALFORMED_PATH = 'the request path has a malformed %-escape';

export interface ErrorAnswer {
  readonly status: number;
  /** The catalog code (src/base/errors.ts) matching `status`. */
  readonly code: ErrorCode;
  readonly message: string;
  /** True when the error is unexpected and worth logging. */
  readonly unexpected: boolean;
}

interface BodyParserError {
  readonly type: string;
  readonly limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string'
    && 'expose' in error;
}

export function toErrorAnswer(error: unknown, maxBodyBytes: number): ErrorAnswer {
  if (error instanceof AppError) return { status: error.status, code: error.code, message: error.message, unexpected: error.code === 'internal' };
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.too.large':
        return { status: 413, code: 'payload_too_large', message: tooLargeMessage(maxBodyBytes), unexpected: false };
      case 'entity.parse.failed':
        return { status: 400, code: 'bad_request', message: INVALID_JSON, unexpected: false };
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return { status: 400, code: 'bad_request', message: UNSUPPORTED_CHARSET, unexpected: false };
      case 'request.aborted':
      case 'request.size.invalid':
        return { status: 400, code: 'bad_request', message: 'request body was incomplete', unexpected: false };
    }
  }
  // A malformed %-escape in a path parameter (express's router throws a URIError with status 400).
  if (error instanceof URIError && clientStatus(error) !== undefined) {
    return { status: 400, code: 'bad_request', message: MALFORMED_PATH, unexpected: false };
  }
  // body-parser wraps a body that does not inflate (zlib error) as a 400 without a `type`.
  if (clientStatus(error) !== undefined) {
    return { status: 400, code: 'bad_request', message: 'request body could not be decoded: it does not match its Content-Encoding', unexpected: false };
  }
  return { status: 500, code: 'internal', message: INTERNAL_MESSAGE, unexpected: true };
}

/** The 4xx status an error from express or body-parser carries, if any. */
function clientStatus(error: unknown): number | undefined {
  const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** An unexpected error as the log names it (name and message; never the stack). */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : typeof error;
}

/** The `{err, code}` answer with `status`: its head and its body, as sendError writes them. */
export function errorAnswer(status: number, code: ErrorCode, message: string): Answer {
  return jsonAnswer(status, errorBody(code, message));
}

/** Answers `{err, code}` with `status` on a node:http response whose head is not yet out. */
export function sendError(res: ServerResponse, status: number, code: ErrorCode, message: string): void {
  const answer = errorAnswer(status, code, message);
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** The body of an error answer: the message for people, the catalog code for programs. */
export function errorBody(code: ErrorCode, message: string): { err: string; code: ErrorCode } {
  return { err: message, code };
}
