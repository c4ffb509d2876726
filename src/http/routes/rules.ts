/** Admin API for rules (scope admin). */
import { Router } from 'express';
import { adminRequest, sendVersioned } from '../admin-request';
import { param, type HttpDeps } from '../deps';
import { PAGE_PARAMS, RULE_FILTERS } from '../../service/listing';

export function rulesRouter(deps: HttpDeps): Router {
  const router = Router();
  const { catalog, queries } = deps;
  const base = '/api/rule-engine/rules';

  router.post(base, async (req, res) => {
    const { actor } = adminRequest(deps, req, res);
    sendVersioned(res, 201, await catalog.createRule(req.body, actor));
  });
  router.get(base, (req, res) => {
    const { query } = adminRequest(deps, req, res, [...PAGE_PARAMS, ...RULE_FILTERS]);
    res.json(queries.listRules(query));
  });
  router.get(`${base}/:id`, (req, res) => {
    adminRequest(deps, req, res);
    sendVersioned(res, 200, queries.getRule(param(req, 'id')));
  });
  router.get(`${base}/:id/history`, async (req, res) => {
    const { query } = adminRequest(deps, req, res, PAGE_PARAMS);
    res.json(await queries.ruleHistory(param(req, 'id'), query));
  });
  router.patch(`${base}/:id`, async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    sendVersioned(res, 200, await catalog.updateRule(param(req, 'id'), req.body, ifMatch, actor));
  });
  router.delete(`${base}/:id`, async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    await catalog.deleteRule(param(req, 'id'), actor, ifMatch);
    res.status(204).end();
  });
  return router;
}
