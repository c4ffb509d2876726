/**
 * Every successful admin write answers with `RuleVault-Position: <log
 * position>` (docs/api.md#writes, "Read your writes"): the position this node's read model
 * had applied when the answer was sent. The command bus answers only after
 * the read model applied the write (command-bus.ts), so the header is at or
 * after the write's own position; a stream subscriber holding it has the
 * write (src/client/local.ts `waitFor`). A 204 (DELETE) has no body to carry
 * `position`, hence a header, on every write alike.
 *
 * Set as the headers are written (the way the on-headers package does), so
 * each write route, present or future, carries it without saying so.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { HttpDeps } from './deps';

export const POSITION_HEADER = 'RuleVault-Position';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function writePosition(deps: Pick<HttpDeps, 'readModel'>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!READS.has(req.method)) {
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: Parameters<typeof writeHead>) {
        const position = deps.readModel.position;
        if (args[0] >= 200 && args[0] < 300 && position !== undefined && !this.headersSent) this.setHeader(POSITION_HEADER, position.toString());
        return writeHead.apply(this, args);
      } as typeof writeHead;
    }
    next();
  };
}
