/**
 * The two public endpoints: evaluate (scope evaluate) and get-secrets (scope
 * secrets:read). Their work is in `answerEvaluate` / `answerGetSecrets`, shared
 * by the express routes and the lean path in front of express (fast-path.ts).
 */
import { Router, type Request, type Response } from 'express';
import { evaluate, parseEvaluateRequest } from '../../service/evaluate';
import { getSecrets, parseSecretsQuery } from '../../service/get-secrets';
import { authorizeHeader, type HttpDeps, type RequestLocals } from '../deps';

export const EVALUATE_PATH = '/api/rule-engine/evaluate';
export const GET_SECRETS_PATH = '/api/vault/get-secrets';

/** The evaluate answer for a parsed body; throws AppError for 400/401/403. */
export function answerEvaluate(deps: HttpDeps, authorization: string | undefined, body: unknown, locals: RequestLocals) {
  authorizeHeader(deps, authorization, locals, 'evaluate');
  const request = parseEvaluateRequest(body, deps.config.limits);
  const answer = evaluate(deps.readModel.state, deps.readModel.engine, request, deps.config.limits);
  deps.metrics.observeMatches(answer.matchingRuleIds.length);
  return answer;
}

/** The get-secrets answer for a parsed body; throws AppError, which callers answer as 200 `{err, res: null}`. */
export function answerGetSecrets(deps: HttpDeps, authorization: string | undefined, body: unknown, locals: RequestLocals) {
  const principal = authorizeHeader(deps, authorization, locals, 'secrets:read');
  const secrets = getSecrets(deps.readModel.state.vault, deps.sealer, principal, parseSecretsQuery(body));
  deps.metrics.secretsRead(principal.id, Object.keys(secrets).length);
  return { err: null, res: secrets };
}

export function publicRouter(deps: HttpDeps): Router {
  const router = Router();
  router.post(EVALUATE_PATH, (req: Request, res: Response) => {
    res.json(answerEvaluate(deps, req.headers.authorization, req.body, res.locals));
  });
  // SPEC 1.2: failures answer 200 with `err` (see the error handler in app.ts).
  router.post(GET_SECRETS_PATH, (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').json(answerGetSecrets(deps, req.headers.authorization, req.body, res.locals));
  });
  return router;
}
