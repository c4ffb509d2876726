/**
 * The auditor's routes: the filtered log and the live digest (scope admin),
 * evaluate as of a point (admin), and explain (admin or evaluate).
 */
import { Router, type Request, type Response } from 'express';
import { authenticate, type Principal } from '../../auth';
import { digestState } from '../../audit/digest';
import { explainLive } from '../../audit/service';
import { AppError, badRequest } from '../../errors';
import { authorizeRequest, type HttpDeps } from '../deps';

const EVENT_PARAMS = ['after', 'limit', 'stream', 'type', 'actor', 'from', 'to'] as const;

export function auditRouter(deps: HttpDeps): Router {
  const router = Router();
  const audit = deps.audit;

  router.get('/api/audit/events', async (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    const query: Record<string, string> = {};
    for (const name of EVENT_PARAMS) {
      const value = req.query[name];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw badRequest(`${name} must be given once`);
      query[name] = value;
    }
    res.json(await deps.queries.auditEvents(query));
  });

  router.get('/api/audit/digest', (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(digestState(deps.readModel.state));
  });

  router.post('/api/audit/evaluate', async (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(await audit.evaluateAsOf(req.body));
  });

  router.post('/api/rule-engine/explain', (req, res) => {
    authorizeAny(deps, req, res, ['admin', 'evaluate']);
    res.json(explainLive(deps.readModel, deps.config.limits, req.body));
  });
  return router;
}

/** Authenticates, then requires one of `scopes` (401/403 as AppError). */
function authorizeAny(deps: HttpDeps, req: Request, res: Response, scopes: readonly Principal['scopes'][number][]): Principal {
  const principal = authenticate(req.headers.authorization, deps.readModel.state.apiKeys, deps.config.adminKeyHash);
  res.locals.keyId = principal.id;
  if (!scopes.some((scope) => principal.scopes.includes(scope))) {
    throw new AppError('forbidden', `this API key lacks the ${scopes.join(' or ')} scope`);
  }
  return principal;
}
