/**
 * GET /api/rule-engine/stream (docs/change-stream.md): the
 * change stream as Server-Sent Events, answered on the lean path
 * (fast-path.ts): it reads no body and writes its own head and frames on
 * node:http objects, so it uses nothing of express's.
 * The publisher is src/service/change-feed.ts; this file checks the caller
 * and turns the response into a sink.
 *
 * Scope `evaluate`: the stream carries exactly what decides evaluate answers
 * (src/service/evaluation-view.ts), which an evaluate caller can already
 * learn record by record through evaluate with include_entity_data.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, badRequest } from '../base/errors';
import type { StreamAccess, StreamSink } from '../service/change-feed';
import type { ChangeFormat } from '../service/evaluation-view';
import { authorizeHeader, stillAuthorized, type HttpDeps, type RequestLocals } from './deps';
import { errorText, NOT_READY_MESSAGE, sendError, toErrorAnswer } from './errors';

export const STREAM_PATH = '/api/rule-engine/stream';

const POSITION = /^\d{1,20}$/;
const SHUTTING_DOWN = 'the node is shutting down';
export const REVOKED_WHILE_OPENING = 'the API key was revoked (or lost the evaluate scope) while the stream was opening';

/** The position a subscriber resumes after: its Last-Event-ID, or undefined for a fresh snapshot. */
export function parseLastEventId(header: string | string[] | undefined): bigint | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (!POSITION.test(value.trim())) {
    throw badRequest('Last-Event-ID must be a log position: the id of an event this stream sent (digits only)');
  }
  return BigInt(value.trim());
}

/** How the subscriber takes changes: `?changes=patch`, or `records` (the first format, for clients that do not ask). */
export function parseChangeFormat(url: string | undefined): ChangeFormat {
  const query = url?.includes('?') === true ? url.slice(url.indexOf('?') + 1) : '';
  const given = new URLSearchParams(query).getAll('changes');
  if (given.length === 0) return 'records';
  if (given.length === 1 && (given[0] === 'records' || given[0] === 'patch')) return given[0];
  throw badRequest(given.length > 1 ? 'query parameter "changes" is given more than once' : 'changes must be records or patch');
}

/**
 * Answers a GET of the stream: an error as `{err, code}` JSON, or 200 and the
 * events until either side closes. A HEAD gets the same checks and the 200's
 * head, then ends (the body would never end, so neither would a HEAD that
 * waited for it).
 */
export function serveStream(deps: HttpDeps, req: IncomingMessage, res: ServerResponse, locals: RequestLocals): void {
  let after: bigint | undefined;
  let format: ChangeFormat;
  try {
    if (!deps.readModel.caughtUp) throw new AppError('unavailable', NOT_READY_MESSAGE);
    if (deps.changeFeed.closed) throw new AppError('unavailable', SHUTTING_DOWN);
    authorizeHeader(deps, req.headers.authorization, locals, 'evaluate');
    after = parseLastEventId(req.headers['last-event-id']);
    format = parseChangeFormat(req.url);
  } catch (error) {
    refuse(deps, res, error, locals);
    return;
  }
  if (req.method === 'HEAD') {
    // A GET's head, at once: no frames are prepared for an answer that carries none.
    res.writeHead(200, STREAM_HEADERS);
    res.end();
    return;
  }
  const pending = deps.changeFeed.ready(after, format);
  if (pending === undefined) {
    open(deps, req, res, after, format, locals);
    return;
  }
  // Records read or a snapshot built first, in slices (docs/change-stream.md#bounds).
  pending.then(() => {
    if (res.destroyed) return;
    if (deps.changeFeed.closed) refuse(deps, res, new AppError('unavailable', SHUTTING_DOWN), locals);
    else open(deps, req, res, after, format, locals);
  }, (error: unknown) => {
    if (!res.destroyed) refuse(deps, res, error, locals);
  });
}

function refuse(deps: HttpDeps, res: ServerResponse, error: unknown, locals?: RequestLocals): void {
  const answer = toErrorAnswer(error, deps.config.limits.maxBodyBytes);
  if (answer.unexpected) {
    deps.logger.error('request failed', { request_id: locals?.requestId, route: STREAM_PATH, error: errorText(error) });
  }
  sendError(res, answer.status, answer.code, answer.message);
}

/**
 * 200 and the events, until either side closes; the error's answer instead
 * when the first frames cannot be made (a snapshot too large), or when the key
 * was revoked while they were prepared: checked again here, in the same turn
 * as the subscription, so no revocation applies between the check and the
 * feed's own checks at every API key event (change-feed.ts).
 */
function open(deps: HttpDeps, req: IncomingMessage, res: ServerResponse, after: bigint | undefined, format: ChangeFormat, locals: RequestLocals): void {
  const authorization = req.headers.authorization;
  if (!stillAuthorized(deps, authorization, 'evaluate')) {
    refuse(deps, res, new AppError('unauthorized', REVOKED_WHILE_OPENING), locals);
    return;
  }
  const access: StreamAccess = { allowed: () => stillAuthorized(deps, authorization, 'evaluate') };
  const sink: StreamSink = {
    write: (chunk) => {
      // The head goes with the first frame: until then, a failure can still be answered as JSON.
      if (!res.headersSent) res.writeHead(200, STREAM_HEADERS);
      res.write(chunk);
    },
    get buffered() {
      return res.writableLength;
    },
    end: (chunk) => {
      res.end(chunk);
    },
  };
  let unsubscribe: () => void;
  try {
    unsubscribe = deps.changeFeed.subscribe(after, format, sink, access);
  } catch (error) {
    if (res.headersSent) res.destroy();
    else refuse(deps, res, error, locals);
    return;
  }
  res.once('close', unsubscribe);
}

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // Proxies that buffer responses (nginx) would hold events back.
  'x-accel-buffering': 'no',
  // A stream ends only when it must (cut off, shutdown): its connection goes with it, so a shutdown need not wait on it.
  connection: 'close',
};
