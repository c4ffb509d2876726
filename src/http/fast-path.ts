/**
 * The lean path: the two public endpoints (and the change stream, and the catalog's admin writes) answered on node:http directly, in
 * front of express, because express's per-request machinery (router, response
 * helpers, middleware chain) cost more than the evaluation itself (bench:
 * http-evaluate). It reads the body itself and hands it to the same front
 * door express calls (public-endpoints.ts), after the same request record
 * (request-log.ts) and origin policy (cors.ts), so an answer does not depend
 * on the path that gave it (test/http/both-paths.test.ts). Everything else,
 * including a compressed body (express inflates it), goes to express.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_SURFACE, PUBLIC_SURFACE, createOriginPolicy } from './cors';
import { adminWriteAt, serveAdminWrite } from './admin-writes';
import type { HttpDeps, RequestLocals } from './deps';
import { INTERNAL_MESSAGE } from '../base/errors';
import type { Logger } from '../base/log';
import { errorText, sendError } from './errors';
import { pathOf, publicEndpointAt, servePublic } from './public-endpoints';
import { readBodyBytes } from './request-body';
import { recordRequest } from './request-log';
import { isStreamUrl, serveStream } from './stream-endpoint';
import { createTurnWriter } from './turn-writes';

/** Answers the request and returns true, or returns false to leave it to express. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

export function createFastPath(deps: HttpDeps): FastPath {
  const policy = createOriginPolicy(deps.config.corsOrigins, PUBLIC_SURFACE);
  // The policy express gives every /api route that is not a public endpoint (app.ts), the stream and the admin writes included.
  const streamPolicy = createOriginPolicy(deps.config.corsOrigins, ADMIN_SURFACE);
  const limit = deps.config.limits.maxBodyBytes;
  // The public endpoints' answers, computed and then written together at the end of their turn (bench: http-evaluate).
  const send = createTurnWriter(deps.config.answerBatch, deps.logger);
  // The catalog's writes (admin-writes.ts), behind the admin surface's origin policy as on express (bench: http-writes).
  const adminWrite = (req: IncomingMessage, res: ServerResponse, url: string): boolean => {
    const write = adminWriteAt(req.method, url);
    if (write === undefined) return false;
    const locals: RequestLocals = {};
    recordRequest(deps, req, res, locals);
    streamPolicy(req, res, () => serveAdminWrite(deps, write, req, res, locals, (done) => readBodyBytes(req, limit, done)));
    return true;
  };

  const route: FastPath = (req, res) => {
    const url = req.url ?? '';
    if ((req.method === 'GET' || req.method === 'HEAD') && isStreamUrl(url)) {
      const locals: RequestLocals = {};
      recordRequest(deps, req, res, locals);
      streamPolicy(req, res, () => serveStream(deps, req, res, locals));
      return true;
    }
    if (req.method !== 'POST' || isCompressed(req)) return !isCompressed(req) && adminWrite(req, res, url);
    const endpoint = publicEndpointAt(url);
    if (endpoint === undefined) return adminWrite(req, res, url);

    const locals: RequestLocals = {};
    // No Origin: the policy answers nothing itself, so servePublic's one writeHead carries X-Request-Id
    // (no setHeader before it; bench: cpu-per-request --workload evaluate). With one, the policy may refuse: set it now.
    recordRequest(deps, req, res, locals, req.headers.origin !== undefined);
    policy(req, res, () => {
      servePublic(deps, endpoint, req, res, locals, url, (done) => readBodyBytes(req, limit, done), send);
    });
    return true;
  };
  return guarded(route, deps.logger);
}

/**
 * `route`, with a throw that escapes it answered 500 (or the connection cut,
 * once the head is out) and logged: handlers answer their own errors, so one
 * that escapes is a bug, and must cost its request, not the process.
 */
export function guarded(route: FastPath, logger: Logger): FastPath {
  return (req, res) => {
    try {
      return route(req, res);
    } catch (error) {
      logger.error('request failed', { method: req.method, path: pathOf(req.url), error: errorText(error) });
      if (res.headersSent) res.destroy();
      else sendError(res, 500, 'internal', INTERNAL_MESSAGE);
      return true;
    }
  };
}

function isCompressed(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding !== undefined && encoding.toLowerCase() !== 'identity';
}
