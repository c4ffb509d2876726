/**
 * The lean path: the routes on the hot path answered on node:http directly,
 * in front of express, because express's per-request machinery (router,
 * response helpers, middleware chain) cost more than the evaluation itself
 * (bench: http-evaluate) and about half of a catalog write's CPU (bench:
 * http-writes). Each route is answered by one path: the rows of `LEAN_ROUTES`
 * here, every other route by express (app.ts); test/openapi/route-owners.test.ts
 * lists which path answers each documented route
 * (docs/decisions/0051-one-implementation-per-route.md).
 *
 * A row's handler records the request (request-log.ts), applies the origin
 * policy of its surface (cors.ts) and calls its front door.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { INTERNAL_MESSAGE, type AppError } from '../base/errors';
import type { Logger } from '../base/log';
import { ADMIN_WRITES, serveAdminWrite, writeRequest, type AdminWrite } from './admin-writes';
import { ADMIN_SURFACE, PUBLIC_SURFACE, createOriginPolicy, type OriginPolicy } from './cors';
import type { HttpDeps, RequestLocals } from './deps';
import { errorText, sendError } from './errors';
import { OFREP_ENDPOINTS, OFREP_SURFACE, serveOfrep, type OfrepEndpoint } from './ofrep';
import { PUBLIC_ENDPOINTS, servePublic, type PublicEndpoint } from './public-endpoints';
import { createBodyReader } from './request-body';
import { recordRequest } from './request-log';
import { createRouteTable, pathOf, type Params } from './route-table';
import { serveStream, STREAM_PATH } from './stream-endpoint';
import { createTurnWriter, type AnswerWriter } from './turn-writes';

/** Answers the request and returns true, or returns false to leave it to express. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What a row's handler is given besides its request: this node's parts, built once (createFastPath). */
interface Lean {
  readonly deps: HttpDeps;
  /** The public endpoints' policy: exactly what contract §1.2 names. */
  readonly publicPolicy: OriginPolicy;
  /** The policy of every other /api route, express's ones included (app.ts). */
  readonly adminPolicy: OriginPolicy;
  /** The OFREP routes' policy: the public allowlist with OFREP's headers (ofrep.ts, ADR 0059). */
  readonly ofrepPolicy: OriginPolicy;
  /** The public endpoints' answers, computed and then written together at the end of their turn (bench: http-evaluate). */
  readonly send: AnswerWriter;
  readonly readBody: ReturnType<typeof createBodyReader>;
}

type Handler = (lean: Lean, req: IncomingMessage, res: ServerResponse, params: Params | AppError, locals: RequestLocals) => void;

function publicEndpoint(endpoint: PublicEndpoint): Handler {
  return (lean, req, res, _params, locals) => {
    // No Origin: the policy answers nothing itself, so servePublic's one writeHead carries X-Request-Id
    // (no setHeader before it; bench: cpu-per-request --workload evaluate). With one, the policy may refuse: set it now.
    recordRequest(lean.deps, req, res, locals, req.headers.origin !== undefined);
    lean.publicPolicy(req, res, () => {
      servePublic(lean.deps, endpoint, req, res, locals, (done) => lean.readBody(req, res, done), lean.send);
    });
  };
}

function adminWrite(write: AdminWrite): Handler {
  return (lean, req, res, params, locals) => {
    recordRequest(lean.deps, req, res, locals);
    lean.adminPolicy(req, res, () => {
      serveAdminWrite(lean.deps, writeRequest(write, params, req.url), req, res, locals, (done) => lean.readBody(req, res, done));
    });
  };
}

function ofrep(endpoint: OfrepEndpoint): Handler {
  return (lean, req, res, params, locals) => {
    // As a public endpoint: X-Request-Id goes with the answer's own head when no policy writes one first.
    recordRequest(lean.deps, req, res, locals, req.headers.origin !== undefined);
    lean.ofrepPolicy(req, res, () => {
      serveOfrep(lean.deps, endpoint, req, res, params, locals, (done) => lean.readBody(req, res, done), lean.send);
    });
  };
}

const stream: Handler = (lean, req, res, _params, locals) => {
  recordRequest(lean.deps, req, res, locals);
  lean.adminPolicy(req, res, () => serveStream(lean.deps, req, res, locals));
};

/** The routes the lean path answers, and only these (route-table.ts states the rules they are matched by). */
export const LEAN_ROUTES = createRouteTable<Handler>([
  // Every method: the endpoint answers one other than POST itself (contract §1.2; front-door.ts answerBeforeBody).
  ...PUBLIC_ENDPOINTS.map((endpoint) => ({ method: endpoint.method, pattern: endpoint.pattern, anyMethod: true, handler: publicEndpoint(endpoint) })),
  // Every method, as the public endpoints: a browser's preflight reaches the origin policy, another method OFREP's 404.
  ...OFREP_ENDPOINTS.map((endpoint) => ({ method: 'POST' as const, pattern: endpoint.pattern, anyMethod: true, handler: ofrep(endpoint) })),
  { method: 'GET', pattern: STREAM_PATH, handler: stream },
  ...ADMIN_WRITES.map((write) => ({ method: write.method, pattern: write.pattern, handler: adminWrite(write) })),
]);

export function createFastPath(deps: HttpDeps): FastPath {
  const lean: Lean = {
    deps,
    publicPolicy: createOriginPolicy(deps.config.corsOrigins, PUBLIC_SURFACE),
    adminPolicy: createOriginPolicy(deps.config.corsOrigins, ADMIN_SURFACE),
    ofrepPolicy: createOriginPolicy(deps.config.corsOrigins, OFREP_SURFACE),
    send: createTurnWriter(deps.config.answerBatch, deps.logger),
    readBody: createBodyReader(deps.config.limits.maxBodyBytes),
  };
  return guarded((req, res) => {
    const match = LEAN_ROUTES.match(req.method, req.url);
    if (match === undefined) return false;
    // The row's pattern labels the request's log line and metrics, however it is answered (request-log.ts).
    match.row.handler(lean, req, res, match.params, { route: match.row.pattern });
    return true;
  }, deps.logger);
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
