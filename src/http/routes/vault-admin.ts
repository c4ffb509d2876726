/** Admin API for secrets and API keys (scope admin). Answers never carry a secret value. */
import { Router } from 'express';
import { parseIfMatch } from '../../domain/input';
import { actorOf, authorizeRequest, param, type HttpDeps } from '../deps';

export function vaultAdminRouter(deps: HttpDeps): Router {
  const router = Router();
  const { vault, apiKeys, queries } = deps;

  router.post('/api/vault/secrets', async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    res.status(201).json(await vault.createSecret(req.body, actorOf(principal, res)));
  });
  router.get('/api/vault/secrets', (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(queries.listSecrets());
  });
  router.patch('/api/vault/secrets/:id', async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    const ifMatch = parseIfMatch(req.get('if-match'));
    res.json(await vault.updateSecret(param(req, 'id'), req.body, ifMatch, actorOf(principal, res)));
  });
  router.delete('/api/vault/secrets/:id', async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    await vault.deleteSecret(param(req, 'id'), actorOf(principal, res));
    res.status(204).end();
  });

  router.post('/api/api-keys', async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    res.status(201).set('Cache-Control', 'no-store').json(await apiKeys.createApiKey(req.body, actorOf(principal, res)));
  });
  router.get('/api/api-keys', (req, res) => {
    authorizeRequest(deps, req, res, 'admin');
    res.json(queries.listApiKeys());
  });
  router.delete('/api/api-keys/:id', async (req, res) => {
    const principal = authorizeRequest(deps, req, res, 'admin');
    await apiKeys.revokeApiKey(param(req, 'id'), actorOf(principal, res));
    res.status(204).end();
  });
  return router;
}
