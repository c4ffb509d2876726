/**
 * The audit records beside the log (scope admin): decision records of
 * evaluate answers, their replay and their evidence file, and the
 * secret-read audit. Both read the audit sink (src/audit/sink.ts), as the
 * CLI does.
 */
import { Router } from 'express';
import { decisionNotFound, readDecision, replayable } from '../../audit/decision-log';
import { DEFAULT_MAX_LINKS, evidenceLimits, EvidenceError } from '../../audit/evidence';
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

  // The file `rulevault audit evidence` writes, as a download (docs/auditors.md#evidence-for-one-decision).
  // Admin, as the record: it holds the entity records the decision used, which an explain key may not read (ADR 0031).
  router.get('/api/audit/decisions/:id/evidence', async (req, res) => {
    adminRequest(deps, req, res);
    const id = param(req, 'id');
    deps.decisions.flush();
    const { text } = await deps.audit.evidence(dir, id, { limits: evidenceLimits(deps.config.limits), maxLinks: DEFAULT_MAX_LINKS, now: () => new Date(deps.clock()) })
      .catch((error: unknown) => {
        throw error instanceof EvidenceError ? new AppError('conflict', error.message) : error;
      });
    res.type('application/json').set('Content-Disposition', `attachment; filename=evidence-${id}.json`).send(text);
  });

  router.get('/api/audit/secret-reads', (req, res) => {
    const { query } = adminRequest(deps, req, res, SECRET_READ_QUERY_PARAMS);
    deps.secretReads.flush();
    res.json(listSecretReads(dir, query));
  });
  return router;
}
