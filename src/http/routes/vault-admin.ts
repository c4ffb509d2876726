/** Admin API for secrets and API keys (scope admin). Answers never carry a secret value. */
import { Router } from 'express';
import { adminRequest, sendVersioned } from '../admin-request';
import { param, type HttpDeps } from '../deps';
import { API_KEY_FILTERS, PAGE_PARAMS, SECRET_FILTERS } from '../../service/listing';

export function vaultAdminRouter(deps: HttpDeps): Router {
  const router = Router();
  const { vault, apiKeys, queries } = deps;

  router.post('/api/vault/secrets', async (req, res) => {
    const { actor } = adminRequest(deps, req, res);
    sendVersioned(res, 201, await vault.createSecret(req.body, actor));
  });
  router.get('/api/vault/secrets', (req, res) => {
    const { query } = adminRequest(deps, req, res, [...PAGE_PARAMS, ...SECRET_FILTERS]);
    res.json(queries.listSecrets(query));
  });
  router.patch('/api/vault/secrets/:id', async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    sendVersioned(res, 200, await vault.updateSecret(param(req, 'id'), req.body, ifMatch, actor));
  });
  router.delete('/api/vault/secrets/:id', async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    await vault.deleteSecret(param(req, 'id'), actor, ifMatch);
    res.status(204).end();
  });

  router.post('/api/api-keys', async (req, res) => {
    const { actor } = adminRequest(deps, req, res);
    res.status(201).set('Cache-Control', 'no-store').json(await apiKeys.createApiKey(req.body, actor));
  });
  router.get('/api/api-keys', (req, res) => {
    const { query } = adminRequest(deps, req, res, [...PAGE_PARAMS, ...API_KEY_FILTERS]);
    res.json(queries.listApiKeys(query));
  });
  router.delete('/api/api-keys/:id', async (req, res) => {
    const { actor, ifMatch } = adminRequest(deps, req, res);
    await apiKeys.revokeApiKey(param(req, 'id'), actor, ifMatch);
    res.status(204).end();
  });
  return router;
}
