/**
 * The audit records beside the log (scope admin): decision records of
 * evaluate answers, their replay, and the secret-read audit. Both read the
 * audit sink (src/audit/sink.ts), as the CLI does.
 */
import { Router } from 'express';
import { decisionNotFound, readDecision, replayable } from '../../audit/decision-log';
import { listSecretReads, SECRET_READ_QUERY_PARAMS } from '../../audit/read-audit';
import { AppError } from '../../base/errors';
import { adminRequest } from '../admin-request';
import { param, type HttpDeps } from '../deps';

export function auditRecordsRouter(deps: HttpDeps): Router {
  const router = Router();
  const dir = deps.config.auditSink.dir;

  const decision = (id: string) => {
    // A record still queued is written first, so an id just answered can be looked up at once.
    deps.decisions.flush();
    const record = readDecision(dir, id);
    if (record === undefined) throw new AppError('not_found', decisionNotFound(id));
    return record;
  };

  router.get('/api/audit/decisions/:id', (req, res) => {
    adminRequest(deps, req, res);
    res.json(decision(param(req, 'id')));
  });

  router.get('/api/audit/decisions/:id/replay', async (req, res) => {
    const { query } = adminRequest(deps, req, res, ['as_of']);
    res.json(await deps.audit.replayDecision(replayable(decision(param(req, 'id'))), query.as_of));
  });

  router.get('/api/audit/secret-reads', (req, res) => {
    const { query } = adminRequest(deps, req, res, SECRET_READ_QUERY_PARAMS);
    deps.secretReads.flush();
    res.json(listSecretReads(dir, query));
  });
  return router;
}
