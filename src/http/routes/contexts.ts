/** Admin API for contexts (scope admin): the reads; the writes are answered by their front door (admin-writes.ts). */
import { Router } from 'express';
import { adminRequest, sendVersioned } from '../admin-request';
import { param, type HttpDeps } from '../deps';
import { CONTEXT_FILTERS, PAGE_PARAMS } from '../../service/listing';

export function contextsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { queries } = deps;
  const base = '/api/contexts';

  router.get(base, (req, res) => {
    const { query } = adminRequest(deps, req, res, [...PAGE_PARAMS, ...CONTEXT_FILTERS]);
    res.json(queries.listContexts(query));
  });
  router.get(`${base}/:id`, (req, res) => {
    adminRequest(deps, req, res);
    sendVersioned(res, 200, queries.getContext(param(req, 'id')));
  });
  return router;
}
