/**
 * The lean path: the two public endpoints answered on node:http directly, in
 * front of express, because express's per-request machinery (router, response
 * helpers, pino-http's child loggers) cost more than the evaluation itself
 * (bench: http-evaluate). Everything else, and any request this path does not
 * take (another method, a compressed body, a charset other than UTF-8), goes
 * to express, which answers it the same way.
 *
 * Same behaviour as the express routes: request id, origin policy (the same
 * `cors`-based policy), readiness, body limit, JSON whatever the Content-Type,
 * errors as `{err}` (get-secrets: always 200), one log line and one metrics
 * observation per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { AppError } from '../errors';
import { PUBLIC_SURFACE, createOriginPolicy } from './cors';
import type { HttpDeps, RequestLocals } from './deps';
import { toErrorAnswer } from './errors';
import { requestIdFor } from './request-id';
import { EVALUATE_PATH, GET_SECRETS_PATH, answerEvaluate, answerGetSecrets } from './routes/public';

type Endpoint = typeof answerEvaluate | typeof answerGetSecrets;

const NOT_READY = 'not ready: the read models are catching up with the log';

/** Returns a handler that answers the request and returns true, or returns false to leave it to express. */
export function createFastPath(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const policy = createOriginPolicy(deps.config.corsOrigins, PUBLIC_SURFACE);
  const limit = deps.config.limits.maxBodyBytes;
  const logger = deps.logger.pino;

  return (req, res) => {
    if (req.method !== 'POST') return false;
    const path = pathOf(req.url);
    const endpoint: Endpoint | undefined = path === EVALUATE_PATH ? answerEvaluate : path === GET_SECRETS_PATH ? answerGetSecrets : undefined;
    if (endpoint === undefined || !isPlainUtf8(req)) return false;

    const started = performance.now();
    const locals: RequestLocals = { requestId: requestIdFor(req.headers['x-request-id']) };
    res.setHeader('X-Request-Id', locals.requestId!);
    res.once('finish', () => {
      const ms = performance.now() - started;
      deps.metrics.observeRequest('POST', path, res.statusCode, ms / 1000);
      if (logger.isLevelEnabled('info')) {
        logger.info(
          { request_id: locals.requestId, method: 'POST', route: path, status: res.statusCode, duration_ms: Math.round(ms), key_id: locals.keyId ?? null },
          'request',
        );
      }
    });

    policy(req, res, () => {
      readBody(req, limit, (failure, text) => {
        const secrets = endpoint === answerGetSecrets;
        let status = 200;
        let answer: unknown;
        try {
          if (failure !== undefined) throw failure;
          if (!deps.readModel.caughtUp) throw new AppError('unavailable', NOT_READY);
          answer = endpoint(deps, req.headers.authorization, parseBody(text), locals);
        } catch (error) {
          const mapped = toErrorAnswer(error, limit);
          if (mapped.unexpected) logger.error({ request_id: locals.requestId, route: path, error: errorName(error) }, 'request failed');
          // SPEC 1.2: get-secrets answers 200 with `err` for anything past the CORS check.
          status = secrets ? 200 : mapped.status;
          answer = secrets ? { err: mapped.message, res: null } : { err: mapped.message };
        }
        const json = JSON.stringify(answer);
        const headers: Record<string, string | number> = {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(json),
        };
        if (secrets) headers['cache-control'] = 'no-store';
        res.writeHead(status, headers);
        res.end(json);
      });
    });
    return true;
  };
}

function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Bodies this path reads itself: not compressed, and UTF-8 (or no charset named). */
function isPlainUtf8(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

class BodyError extends AppError {}

/** Reads the whole body up to `limit` bytes; over the limit the rest is drained and a 413 reported. */
function readBody(req: IncomingMessage, limit: number, done: (failure: AppError | undefined, text: string) => void): void {
  const declared = Number(req.headers['content-length']);
  // Made only when needed: an error captures a stack trace (bench: http-evaluate, --cpu-prof).
  const tooLarge = (): AppError => new BodyError('payload_too_large', `request body is larger than the limit of ${limit} bytes`);
  if (declared > limit) {
    req.resume();
    req.once('end', () => done(tooLarge(), ''));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  });
  req.once('end', () => done(size > limit ? tooLarge() : undefined, size > limit ? '' : Buffer.concat(chunks, size).toString('utf8')));
  req.once('error', () => undefined); // an aborted request has no one to answer
}

/** JSON whatever the Content-Type says (SPEC 1); an empty body is no body. */
function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('bad_request', 'request body is not valid JSON');
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : typeof error;
}
