/** Admin API for prompts and their versions (scope admin). */
import { Router } from 'express';
import { parseIfMatch } from '../../domain/input';
import { badRequest } from '../../errors';
import { actorOf, authorizeRequest, param, type HttpDeps } from '../deps';

export function promptsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { catalog, queries } = deps;
  const base = '/api/prompts';

  router.post(base, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    res.status(201).json(await catalog.createPrompt(req.body, actorOf(principal, res)));
  });
  router.post(`${base}/:id/versions`, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    res.status(201).json(await catalog.addPromptVersion(param(req, 'id'), req.body, actorOf(principal, res)));
  });
  router.get(base, (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(queries.listPrompts());
  });
  router.get(`${base}/:id`, (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    const version = req.query.version;
    if (version !== undefined && typeof version !== 'string') throw badRequest('version must be given once');
    res.json(queries.getPrompt(param(req, 'id'), version));
  });
  router.patch(`${base}/:id`, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    const ifMatch = parseIfMatch(req.get('if-match'));
    res.json(await catalog.updatePrompt(param(req, 'id'), req.body, ifMatch, actorOf(principal, res)));
  });
  router.delete(`${base}/:id`, async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    await catalog.deletePrompt(param(req, 'id'), actorOf(principal, res));
    res.status(204).end();
  });
  return router;
}
