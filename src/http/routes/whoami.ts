/**
 * GET /api/whoami: the calling key's id, name, scopes and secret tags, for any
 * valid key whatever its scopes. The console shows what a key may do with it;
 * it reveals nothing the key's holder could not learn by trying.
 */
import { Router } from 'express';
import { ENV_ADMIN_ID } from '../../service/auth';
import { SCOPES } from '../../events';
import { authorizeRequest, type HttpDeps } from '../deps';

export const ENV_ADMIN_NAME = 'RULEVAULT_ADMIN_KEY';

export function whoamiRouter(deps: HttpDeps): Router {
  const router = Router();
  router.get('/api/whoami', (req, res) => {
    const principal = authorizeRequest(deps, req, res, SCOPES);
    const name = principal.id === ENV_ADMIN_ID ? ENV_ADMIN_NAME : deps.readModel.state.apiKeys.byId.get(principal.id)?.name ?? principal.id;
    res.set('Cache-Control', 'no-store').json({ id: principal.id, name, scopes: principal.scopes, secret_tags: principal.secretTags });
  });
  return router;
}
