/** Admin API for contexts (scope admin). */
import { Router } from 'express';
import { adminRequest, sendVersioned } from '../admin-request';
import { param, type HttpDeps } from '../deps';
import { CONTEXT_FILTERS, PAGE_PARAMS } from '../../service/listing';

export function contextsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { catalog, queries } = deps;
  const base = '/api/contexts';

  router.post(base, async (req, res) => {
    const { actor } = adminRequest(deps, req, res);
    sendVersioned(res, 201, await catalog.createContext(req.body, actor));
  });
  router.get(base, (req, res) => {
    const { query } = adminRequest(deps, req, res, [...PAGE_PARAMS, ...CONTEXT_FILTERS]);
    res.json(queries.listContexts(query));
  });
  router.get(`${base}/:id`, (req, res) => {
    adminRequest(deps, req, res);
    sendVersioned(res, 200, queries.getContext(param(req, 'id')));
  });
  router.patch(`${base}/:id`, async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    sendVersioned(res, 200, await catalog.updateContext(param(req, 'id'), req.body, ifMatch, actor));
  });
  router.delete(`${base}/:id`, async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    await catalog.deleteContext(param(req, 'id'), actor, ifMatch);
    res.status(204).end();
  });
  return router;
}
