/** The two public endpoints: evaluate (scope evaluate) and get-secrets (scope secrets:read). */
import { Router, type Request, type Response } from 'express';
import { evaluate, parseEvaluateRequest } from '../../service/evaluate';
import { getSecrets, parseSecretsQuery } from '../../service/get-secrets';
import { authorizeRequest, type HttpDeps } from '../deps';

export function publicRouter(deps: HttpDeps): Router {
  const router = Router();
  const { readModel, config } = deps;

  router.post('/api/rule-engine/evaluate', (req: Request, res: Response) => {
    authorizeRequest(deps, req, res, 'evaluate');
    const request = parseEvaluateRequest(req.body, config.limits);
    const answer = evaluate(readModel.state, readModel.engine, request);
    deps.metrics.observeMatches(answer.matchingRuleIds.length);
    res.json(answer);
  });

  // SPEC 1.2: failures answer 200 with `err` (see the error handler in app.ts).
  router.post('/api/vault/get-secrets', (req: Request, res: Response) => {
    const principal = authorizeRequest(deps, req, res, 'secrets:read');
    const secrets = getSecrets(readModel.state.vault, deps.sealer, principal, parseSecretsQuery(req.body));
    deps.metrics.secretsRead(principal.id, Object.keys(secrets).length);
    res.set('Cache-Control', 'no-store').json({ err: null, res: secrets });
  });
  return router;
}
