/**
 * The catalog's admin writes on express: their front door (admin-writes.ts)
 * with the body read by body-parser, which also inflates compressed bodies
 * (the lean path leaves those to this one). Mounted before express.json:
 * the front door reads the bytes itself, as the lean path does.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { adminWriteAt, serveAdminWrite } from '../admin-writes';
import type { HttpDeps, RequestLocals } from '../deps';
import { NO_BODY } from '../request-body';

/** Middleware: answers a catalog write (rules, contexts, prompts: create, update, delete) and passes anything else on. */
export function adminWriteFrontDoor(deps: HttpDeps): RequestHandler {
  const readRaw = express.raw({ type: () => true, limit: deps.config.limits.maxBodyBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    const route = adminWriteAt(req.method, req.originalUrl);
    if (route === undefined) {
      next();
      return;
    }
    serveAdminWrite(deps, route, req, res, res.locals as RequestLocals, (done) => {
      readRaw(req, res, (error?: unknown) => {
        done(error !== undefined ? { failure: error } : Buffer.isBuffer(req.body) ? { bytes: req.body } : NO_BODY);
      });
    });
  };
}
