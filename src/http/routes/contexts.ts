/** Admin API for contexts (scope admin). */
import { Router } from 'express';
import { parseIfMatch } from '../../domain/input';
import { actorOf, authorizeRequest, param, type HttpDeps } from '../deps';

export function contextsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { catalog, queries } = deps;
  const base = '/api/contexts';

  router.post(base, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    res.status(201).json(await catalog.createContext(req.body, actorOf(principal, res)));
  });
  router.get(base, (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(queries.listContexts());
  });
  router.get(`${base}/:id`, (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(queries.getContext(param(req, 'id')));
  });
  router.patch(`${base}/:id`, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    const ifMatch = parseIfMatch(req.get('if-match'));
    res.json(await catalog.updateContext(param(req, 'id'), req.body, ifMatch, actorOf(principal, res)));
  });
  router.delete(`${base}/:id`, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    await catalog.deleteContext(param(req, 'id'), actorOf(principal, res));
    res.status(204).end();
  });
  return router;
}
