/**
 * A read's answer goes only to a key that is still live
 * (docs/api.md#answers-that-outlast-their-key; why:
 * docs/decisions/0047-answers-end-with-their-key.md): the reads that await
 * work before they answer (a listing sorted in slices, the log read for
 * history or the audit, time travel, a decision's replay, the digest) check
 * their caller again as the answer is sent. A key revoked, or stripped of
 * the scope, while the work ran gets the 401 (403) it would get now, and not
 * the answer: nothing computed for a key is delivered after its revocation
 * answered.
 *
 * Writes are left alone: a write that committed answers what happened
 * (its key was valid when it was decided). Set as the answer is ended (the
 * way write-position.ts sets its header), so every read route, present or
 * future, is covered without saying so.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { lostAuthorization, type HttpDeps, type RequestLocals } from './deps';
import { errorAnswer } from './errors';
import { pathOf } from './route-table';

const READS = new Set(['GET', 'HEAD']);
/** Routes that take a body and write nothing: their answers are reads. */
const READ_POSTS = new Set(['/api/audit/evaluate', '/api/rule-engine/dry-run', '/api/rule-engine/explain']);
/** Headers of the withheld answer that would describe its body, not the refusal. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'etag', 'last-modified'];

export const WITHHELD = 'while the request ran: its answer is withheld';

export function liveKeyAnswers(deps: HttpDeps): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!READS.has(req.method) && !(req.method === 'POST' && READ_POSTS.has(pathOf(req.originalUrl).toLowerCase()))) {
      next();
      return;
    }
    const end = res.end;
    res.end = function (this: Response, ...args: unknown[]) {
      const access = (this.locals as RequestLocals).access;
      const lost = !this.headersSent && this.statusCode < 400 && access !== undefined
        ? lostAuthorization(deps, access.authorization, access.scope)
        : undefined;
      if (lost === undefined) return (end as (...a: unknown[]) => Response).apply(this, args);
      for (const name of BODY_HEADERS) this.removeHeader(name);
      const what = lost.code === 'forbidden' ? `lost the ${[access!.scope].flat().join(' or ')} scope` : 'was revoked';
      const answer = errorAnswer(lost.status, lost.code, `the API key ${what} ${WITHHELD}`);
      this.writeHead(answer.status, answer.headers);
      return (end as (chunk: string) => Response).call(this, answer.body);
    } as typeof res.end;
    next();
  };
}
