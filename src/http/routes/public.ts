/**
 * The two public endpoints on express: the front door (public-endpoints.ts)
 * with the body read by body-parser, which also inflates compressed bodies
 * (the lean path leaves those to this one).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { HttpDeps, RequestLocals } from '../deps';
import { publicEndpointAt, servePublic } from '../public-endpoints';
import { NO_BODY } from '../request-body';

/** Middleware: answers a request to a public endpoint (any alias, any method) and passes anything else on. */
export function publicFrontDoor(deps: HttpDeps): RequestHandler {
  // Raw bytes whatever the Content-Type; what they mean is the front door's decision.
  const readRaw = express.raw({ type: () => true, limit: deps.config.limits.maxBodyBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    const endpoint = publicEndpointAt(req.originalUrl);
    if (endpoint === undefined) {
      next();
      return;
    }
    servePublic(deps, endpoint, req, res, res.locals as RequestLocals, req.originalUrl, (done) => {
      readRaw(req, res, (error?: unknown) => {
        done(error !== undefined ? { failure: error } : Buffer.isBuffer(req.body) ? { bytes: req.body } : NO_BODY);
      });
    });
  };
}
