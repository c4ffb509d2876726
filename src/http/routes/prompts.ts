/**
 * Admin API for prompts, their versions and labels (scope admin). `:id` is a prompt's id or its name.
 * Create, update, delete and a new version are answered by their front door (admin-writes.ts).
 */
import { Router } from 'express';
import { adminRequest, sendVersioned } from '../admin-request';
import { param, type HttpDeps } from '../deps';
import { PAGE_PARAMS, PROMPT_FILTERS } from '../../service/listing';

export function promptsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { catalog, queries } = deps;
  const base = '/api/prompts';

  router.get(base, (req, res) => {
    const { query } = adminRequest(deps, req, res, [...PAGE_PARAMS, ...PROMPT_FILTERS]);
    res.json(queries.listPrompts(query));
  });
  router.get(`${base}/:id`, (req, res) => {
    const { query } = adminRequest(deps, req, res, ['version', 'label']);
    sendVersioned(res, 200, queries.getPrompt(param(req, 'id'), query.version, query.label));
  });
  router.get(`${base}/:id/history`, async (req, res) => {
    const { query } = adminRequest(deps, req, res, PAGE_PARAMS);
    res.json(await queries.promptHistory(param(req, 'id'), query));
  });
  router.put(`${base}/:id/labels/:label`, async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    sendVersioned(res, 200, await catalog.movePromptLabel(param(req, 'id'), param(req, 'label'), req.body, actor, ifMatch));
  });
  router.delete(`${base}/:id/labels/:label`, async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    sendVersioned(res, 200, await catalog.removePromptLabel(param(req, 'id'), param(req, 'label'), actor, ifMatch));
  });
  return router;
}
