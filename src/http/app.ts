/**
 * Builds the HTTP application (it does not listen: main.ts does). Routes
 * parse, authorize, call one service function and map errors.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { pinoHttp } from 'pino-http';
import { AppError } from '../errors';
import { ADMIN_SURFACE, PUBLIC_SURFACE, createOriginPolicy } from './cors';
import type { HttpDeps } from './deps';
import { toErrorAnswer } from './errors';
import { requestIdFor } from './request-id';
import { auditRouter } from './routes/audit';
import { metricsRouter } from './routes/metrics';
import { contextsRouter } from './routes/contexts';
import { docsRouter } from './routes/docs';
import { promptsRouter } from './routes/prompts';
import { EVALUATE_PATH, GET_SECRETS_PATH, publicRouter } from './routes/public';
import { rulesRouter } from './routes/rules';
import { vaultAdminRouter } from './routes/vault-admin';

const BENCH_NOOP_ANSWER = { matchingRuleIds: [], entities: [] };
const PUBLIC_PATHS = new Set([EVALUATE_PATH, GET_SECRETS_PATH]);

export function createApp(deps: HttpDeps): express.Express {
  const { config, readModel } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // Accept the caller's request id when it is sane, otherwise mint one; echo it back.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const id = requestIdFor(req.headers['x-request-id']);
    res.locals.requestId = id;
    (req as { id?: string }).id = id;
    res.set('X-Request-Id', id);
    next();
  });

  // One log line and one metrics observation per request, when it finishes.
  app.use(pinoHttp({
    logger: deps.logger.pino,
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: 'request_id' },
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (req, res, value: { responseTime: number }) => requestLine(req as Request, res as Response, value.responseTime),
    customErrorObject: (req, res, _error, value: { responseTime: number }) => requestLine(req as Request, res as Response, value.responseTime),
  }));
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics.observeRequest(req.method, routeOf(req), res.statusCode, seconds);
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(metricsRouter(deps));
  app.get('/readyz', (_req, res) => {
    const position = readModel.position?.toString() ?? null;
    const vaultProblem = readModel.caughtUp ? deps.vaultProblem() : undefined;
    if (!readModel.caughtUp) res.status(503).json({ err: 'not ready: the read models are catching up with the log', position });
    else if (vaultProblem !== undefined) res.status(503).json({ err: `not ready: ${vaultProblem}`, position });
    else res.json({ status: 'ready', position });
  });
  app.use(docsRouter());

  const publicPolicy = createOriginPolicy(config.corsOrigins, PUBLIC_SURFACE);
  const adminPolicy = createOriginPolicy(config.corsOrigins, ADMIN_SURFACE);
  app.use('/api', (req, res, next) => (PUBLIC_PATHS.has(req.originalUrl.split('?')[0]!) ? publicPolicy : adminPolicy)(req, res, next));

  // Until the log is replayed, answers would be built from a partial rule set: refuse them.
  app.use('/api', (_req, _res, next) => {
    next(readModel.caughtUp ? undefined : new AppError('unavailable', 'not ready: the read models are catching up with the log'));
  });

  // JSON whatever the Content-Type says (SPEC 1): clients send text/plain or none.
  app.use(express.json({ type: () => true, limit: config.limits.maxBodyBytes, strict: false }));

  app.use(publicRouter(deps));
  if (config.benchRoutes) {
    // The benchmark's baseline: everything this app does for a request except the work (bench/scenarios/http-*.ts).
    app.post('/bench/noop', (_req, res) => {
      res.json(BENCH_NOOP_ANSWER);
    });
  }
  app.use(rulesRouter(deps));
  app.use(contextsRouter(deps));
  app.use(promptsRouter(deps));
  app.use(vaultAdminRouter(deps));
  app.use(auditRouter(deps));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new AppError('not_found', `no route for ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const answer = toErrorAnswer(error, config.limits.maxBodyBytes);
    if (answer.unexpected) {
      deps.logger.error('request failed', {
        request_id: res.locals.requestId,
        method: req.method,
        path: req.path,
        error: error instanceof Error ? `${error.name}: ${error.message}` : typeof error,
      });
    }
    // get-secrets answers 200 with `err` for anything past the CORS check, parse errors included.
    if (req.path === GET_SECRETS_PATH) {
      res.status(200).set('Cache-Control', 'no-store').json({ err: answer.message, res: null });
      return;
    }
    res.status(answer.status).json({ err: answer.message });
  });
  return app;
}

/** The matched route pattern (never the raw path: ids would explode label and log cardinality). */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : 'unmatched';
}

/** The fields of a request's log line: never a body, a header or a key, only the key's id. */
function requestLine(req: Request, res: Response, responseTime: number) {
  return {
    method: req.method,
    route: routeOf(req),
    status: res.statusCode,
    duration_ms: responseTime,
    key_id: res.locals.keyId ?? null,
  };
}
