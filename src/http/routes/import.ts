/**
 * POST /api/import (scope admin): NDJSON or a JSON array of rules, contexts
 * and prompts (src/service/import.ts). Mounted before the JSON body parser:
 * the body is NDJSON as often as JSON, and has its own size limit
 * (RULEVAULT_IMPORT_MAX_BYTES) instead of RULEVAULT_MAX_BODY_BYTES.
 */
import { Router, type Request, type Response } from 'express';
import { badRequest } from '../../base/errors';
import { adminRequest } from '../admin-request';
import type { HttpDeps } from '../deps';
import { declaresTooLarge, payloadTooLarge, readBodyBytes } from '../request-body';
import { writePosition } from '../write-position';

export const IMPORT_PATH = '/api/import';

export function importRouter(deps: HttpDeps): Router {
  const router = Router();
  const limit = deps.config.import.maxBytes;
  router.post(IMPORT_PATH, writePosition(deps), async (req, res) => {
    const { actor } = adminRequest(deps, req, res);
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      throw badRequest(`the import must be sent uncompressed (Content-Encoding: ${encoding} is not read here)`);
    }
    if (declaresTooLarge(req.headers, limit)) {
      res.set('Connection', 'close');
      throw payloadTooLarge(limit);
    }
    const text = await readText(req, res, limit);
    res.status(201).json(await deps.imports.importText(text, actor));
  });
  return router;
}

/** The whole body as UTF-8 text, or the error that stopped reading it (over the limit, aborted). */
function readText(req: Request, res: Response, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    readBodyBytes(req, limit, (body) => {
      if ('failure' in body) {
        res.set('Connection', 'close');
        reject(body.failure);
      } else {
        resolve(body.bytes.toString('utf8'));
      }
    });
  });
}
