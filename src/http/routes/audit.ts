/**
 * The auditor's routes: the filtered log and the live digest (scope admin),
 * evaluate as of a point (admin), and explain (explain or admin: an
 * explanation shows rules' conditions, which evaluate's answer does not).
 */
import { Router } from 'express';
import { badRequest } from '../../errors';
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
    res.json(await audit.events(query));
  });

  router.get('/api/audit/digest', (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(audit.digest());
  });

  router.post('/api/audit/evaluate', async (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(await audit.evaluateAsOf(req.body));
  });

  router.post('/api/rule-engine/explain', (req, res) => {
    authorizeRequest(deps, req, res, ['explain', 'admin']);
    res.json(audit.explain(req.body));
  });
  return router;
}
