/**
 * Builds the HTTP application (it does not listen: main.ts does). Routes
 * parse, authorize, call one service function and map errors. It answers
 * every route but the lean path's (fast-path.ts `LEAN_ROUTES`: the public
 * endpoints, the change stream and the catalog's writes), which never reach
 * it: one implementation per route (test/openapi/route-owners.test.ts).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../base/errors';
import { ADMIN_SURFACE, createOriginPolicy } from './cors';
import type { HttpDeps, RequestLocals } from './deps';
import { NOT_READY_MESSAGE, errorBody, errorText, toErrorAnswer } from './errors';
import { refuseFraming } from './no-framing';
import { declaresTooLarge, payloadTooLarge } from './request-body';
import { recordRequest } from './request-log';
import { liveKeyAnswers } from './live-key';
import { writePosition } from './write-position';
import { auditRouter } from './routes/audit';
import { changeRequestsRouter } from './routes/change-requests';
import { auditChainRouter } from './routes/audit-chain';
import { auditRecordsRouter } from './routes/audit-records';
import { importRouter } from './routes/import';
import { consoleRouter } from './routes/console';
import { metricsRouter } from './routes/metrics';
import { contextsRouter } from './routes/contexts';
import { docsRouter } from './routes/docs';
import { promptsRouter } from './routes/prompts';
import { rulesRouter } from './routes/rules';
import { vaultAdminRouter } from './routes/vault-admin';
import { whoamiRouter } from './routes/whoami';

const BENCH_NOOP_ANSWER = { matchingRuleIds: [], entities: [] };

export function createApp(deps: HttpDeps): express.Express {
  const { config, readModel } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // A request id (the caller's when sane, echoed back), then one log line and one metrics observation when answered.
  app.use((req: Request, res: Response, next: NextFunction) => {
    recordRequest(deps, req, res, res.locals as RequestLocals);
    next();
  });
  app.use(refuseFraming);

  // Before every route that authenticates (GET /metrics too): a read's answer goes only to a key still live (live-key.ts).
  app.use(liveKeyAnswers(deps));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(metricsRouter(deps));
  app.get('/readyz', async (_req, res) => {
    const position = readModel.position?.toString() ?? null;
    const vaultProblem = readModel.caughtUp ? deps.vaultProblem() : undefined;
    if (!readModel.caughtUp) res.status(503).json({ ...errorBody('unavailable', NOT_READY_MESSAGE), position });
    else if (vaultProblem !== undefined) res.status(503).json({ ...errorBody('unavailable', `not ready: ${vaultProblem}`), position });
    else {
      // An erasure whose later steps are still owed does not make the node unready: it serves, and the erasure is committed.
      const erasure = await deps.vault.erasureBacklog();
      res.json(erasure === undefined ? { status: 'ready', position } : { status: 'ready', position, erasure });
    }
  });
  app.use(docsRouter());
  app.use(consoleRouter());

  app.use('/api', createOriginPolicy(config.corsOrigins, ADMIN_SURFACE));

  // Until the log is replayed, answers would be built from a partial rule set: refuse them.
  app.use('/api', (_req, _res, next) => {
    next(readModel.caughtUp ? undefined : new AppError('unavailable', NOT_READY_MESSAGE));
  });

  // Before the body limit and the JSON parser: an import is NDJSON or JSON, with a limit of its own.
  app.use(importRouter(deps));

  // A declared length over the limit is refused from the headers, and the connection closed: the body is never read.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!declaresTooLarge(req.headers, config.limits.maxBodyBytes)) {
      next();
      return;
    }
    res.set('Connection', 'close');
    next(payloadTooLarge(config.limits.maxBodyBytes));
  });

  // JSON whatever the Content-Type says (contract §1): clients send text/plain or none.
  app.use(express.json({ type: () => true, limit: config.limits.maxBodyBytes, strict: false }));

  app.use('/api', writePosition(deps));

  if (config.benchRoutes) {
    // The benchmark's baseline: everything this app does for a request except the work (bench/scenarios/http-*.ts).
    app.post('/bench/noop', (_req, res) => {
      res.json(BENCH_NOOP_ANSWER);
    });
  }
  app.use(rulesRouter(deps));
  app.use(contextsRouter(deps));
  app.use(promptsRouter(deps));
  app.use(changeRequestsRouter(deps));
  app.use(vaultAdminRouter(deps));
  app.use(auditRouter(deps));
  app.use(auditRecordsRouter(deps));
  app.use(auditChainRouter(deps));
  app.use(whoamiRouter(deps));

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
        error: errorText(error),
      });
    }
    res.status(answer.status).json(errorBody(answer.code, answer.message));
  });
  return app;
}
