/** Admin API for rules (scope admin). */
import { Router } from 'express';
import { parseIfMatch } from '../../domain/input';
import { actorOf, authorizeRequest, param, type HttpDeps } from '../deps';

export function rulesRouter(deps: HttpDeps): Router {
  const router = Router();
  const { catalog, queries } = deps;
  const base = '/api/rule-engine/rules';

  router.post(base, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    res.status(201).json(await catalog.createRule(req.body, actorOf(principal, res)));
  });
  router.get(base, (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(queries.listRules());
  });
  router.get(`${base}/:id`, (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(queries.getRule(param(req, 'id')));
  });
  router.get(`${base}/:id/history`, async (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(await queries.ruleHistory(param(req, 'id')));
  });
  router.patch(`${base}/:id`, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    const ifMatch = parseIfMatch(req.get('if-match'));
    res.json(await catalog.updateRule(param(req, 'id'), req.body, ifMatch, actorOf(principal, res)));
  });
  router.delete(`${base}/:id`, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    await catalog.deleteRule(param(req, 'id'), actorOf(principal, res));
    res.status(204).end();
  });
  return router;
}
