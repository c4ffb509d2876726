/** The audit log, paged by position (scope admin). */
import { Router } from 'express';
import { badRequest } from '../../errors';
import { authorizeRequest, type HttpDeps } from '../deps';

export function auditRouter(deps: HttpDeps): Router {
  const router = Router();
  router.get('/api/audit/events', async (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    const { after, limit } = req.query;
    if ((after !== undefined && typeof after !== 'string') || (limit !== undefined && typeof limit !== 'string')) {
      throw badRequest('after and limit must each be given once');
    }
    res.json(await deps.queries.auditEvents({ after, limit }));
  });
  return router;
}
