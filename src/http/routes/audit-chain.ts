/**
 * The hash chain of the live store (scope admin): the verification status,
 * "verify now" (a run started or joined, polled with GET), and a checkpoint
 * signed on demand. The logic is src/audit/chain-audit.ts.
 */
import { Router } from 'express';
import { parseVerifyRequest } from '../../audit/chain-audit';
import { adminRequest } from '../admin-request';
import type { HttpDeps } from '../deps';

export function auditChainRouter(deps: HttpDeps): Router {
  const router = Router();

  router.get('/api/audit/chain', async (req, res) => {
    adminRequest(deps, req, res);
    res.json(await deps.chain.status());
  });

  router.post('/api/audit/chain/verify', async (req, res) => {
    adminRequest(deps, req, res);
    res.status(202).json(await deps.chain.verify(parseVerifyRequest(req.body)));
  });

  router.post('/api/audit/chain/checkpoints', async (req, res) => {
    const { actor } = adminRequest(deps, req, res);
    res.status(201).json(await deps.chain.checkpoint(req.body, actor.id, actor.requestId));
  });
  return router;
}
