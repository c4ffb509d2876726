/**
 * What the lean path's front doors share (public-endpoints.ts, admin-writes.ts):
 * the answer a request gets from its headers alone, and an error's answer,
 * mapped through the one error catalog (errors.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AppError, type ErrorCode } from '../base/errors';
import { jsonAnswer, type Answer } from './answer';
import type { HttpDeps, RequestLocals } from './deps';
import { NOT_READY_MESSAGE, errorBody, errorText, toErrorAnswer } from './errors';
import { declaresTooLarge, payloadTooLarge, type BodyRead } from './request-body';
import { pathOf } from './route-table';

/** A front door as the shared steps see it. */
export interface FrontDoor {
  /** The method it answers: another one is a 404, as an unknown route. */
  readonly method: string;
  /** Its route pattern: the label of its log line and metrics, and the `route` of a logged failure. */
  readonly pattern: string;
  /**
   * contract §1.2: every answer past the CORS check is 200, a failure `{err, code, res: null}`;
   * and no cache may keep one (get-secrets' carry plaintext, get-compiled's depend on the key).
   */
  readonly alwaysOk: boolean;
  /** Called once with the code of an error answer, before it is sent. */
  failed?(deps: HttpDeps, code: ErrorCode, locals: RequestLocals): void;
}

/** Reads a request's body, then calls `done` once (request-body.ts `createBodyReader`). */
export type BodyReader = (done: (body: BodyRead) => void) => void;

const NO_STORE = { 'cache-control': 'no-store' } as const;
const CLOSE = { connection: 'close' } as const;
const NO_STORE_CLOSE = { ...NO_STORE, ...CLOSE } as const;

/**
 * The answer a request gets from its headers alone, before its body is read,
 * or undefined to read the body: not ready (503), another method (404), a
 * declared length over the limit (413, and the connection is closed: the
 * body is never read).
 */
export function answerBeforeBody(
  deps: HttpDeps, door: FrontDoor, method: string | undefined, url: string | undefined, headers: IncomingHttpHeaders, locals: RequestLocals,
): Answer | undefined {
  if (!deps.readModel.caughtUp) return failedAnswer(deps, door, new AppError('unavailable', NOT_READY_MESSAGE), locals);
  if (method !== door.method) return failedAnswer(deps, door, new AppError('not_found', `no route for ${method} ${pathOf(url)}`), locals);
  const limit = deps.config.limits.maxBodyBytes;
  if (declaresTooLarge(headers, limit)) return failedAnswer(deps, door, payloadTooLarge(limit), locals, true);
  return undefined;
}

/** A success of `door`: `value` as JSON with `status`, and `extra` headers. */
export function okAnswer(door: FrontDoor, status: number, value: unknown, extra?: Readonly<Record<string, string>>): Answer {
  if (!door.alwaysOk) return jsonAnswer(status, value, extra);
  return jsonAnswer(status, value, extra === undefined ? NO_STORE : { ...NO_STORE, ...extra });
}

/** What anything thrown on the way to `door`'s answer is answered with; an unexpected error is logged (without its stack). */
export function failedAnswer(deps: HttpDeps, door: FrontDoor, error: unknown, locals: RequestLocals, close = false): Answer {
  const mapped = toErrorAnswer(error, deps.config.limits.maxBodyBytes);
  if (mapped.unexpected) {
    deps.logger.error('request failed', { request_id: locals.requestId, route: door.pattern, error: errorText(error) });
  }
  door.failed?.(deps, mapped.code, locals);
  if (!door.alwaysOk) return jsonAnswer(mapped.status, errorBody(mapped.code, mapped.message), close ? CLOSE : undefined);
  locals.answerCode = mapped.code;
  return jsonAnswer(200, { ...errorBody(mapped.code, mapped.message), res: null }, close ? NO_STORE_CLOSE : NO_STORE);
}
