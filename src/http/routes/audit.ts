/**
 * The auditor's routes: the filtered log and the live digest (scope admin),
 * evaluate as of a point (admin), dry-run evaluate (admin), and explain (explain or admin: an
 * explanation shows rules' conditions, which evaluate's answer does not).
 */
import { Router } from 'express';
import { EVENT_QUERY_PARAMS } from '../../audit/event-filter';
import { adminRequest } from '../admin-request';
import { authorizeRequest, type HttpDeps } from '../deps';

export function auditRouter(deps: HttpDeps): Router {
  const router = Router();
  const audit = deps.audit;

  router.get('/api/audit/events', async (req, res) => {
    const { query } = adminRequest(deps, req, res, EVENT_QUERY_PARAMS);
    res.json(await audit.events(query));
  });

  router.get('/api/audit/digest', async (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(await audit.digest());
  });

  router.post('/api/audit/evaluate', async (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(await audit.evaluateAsOf(req.body));
  });

  // Admin only: the answer is evaluate's (entity records, rendered prompts), which an explain key may not read.
  router.post('/api/rule-engine/dry-run', (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(audit.dryRun(req.body));
  });

  router.post('/api/rule-engine/explain', (req, res) => {
    authorizeRequest(deps, req, res, ['explain', 'admin']);
    res.json(audit.explain(req.body));
  });
  return router;
}
