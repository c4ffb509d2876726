/** Admin API for rules (scope admin): the reads; the writes are answered by their front door (admin-writes.ts). */
import { Router } from 'express';
import { adminRequest, sendVersioned } from '../admin-request';
import { param, type HttpDeps } from '../deps';
import { PAGE_PARAMS, RULE_FILTERS } from '../../service/listing';

export function rulesRouter(deps: HttpDeps): Router {
  const router = Router();
  const { queries } = deps;
  const base = '/api/rule-engine/rules';

  router.get(base, async (req, res) => {
    const { query } = adminRequest(deps, req, res, [...PAGE_PARAMS, ...RULE_FILTERS]);
    res.json(await queries.listRules(query));
  });
  router.get(`${base}/:id`, (req, res) => {
    adminRequest(deps, req, res);
    sendVersioned(res, 200, queries.getRule(param(req, 'id')));
  });
  router.get(`${base}/:id/history`, async (req, res) => {
    const { query } = adminRequest(deps, req, res, PAGE_PARAMS);
    res.json(await queries.ruleHistory(param(req, 'id'), query));
  });
  return router;
}
