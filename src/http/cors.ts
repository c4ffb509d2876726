/**
 * The browser-origin policy (SPEC 1.2): exact allowlisted origins get CORS
 * headers (from the `cors` package); a stranger origin gets 403 with no CORS
 * headers and the request is not executed; no Origin header, no check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

export const ORIGIN_NOT_ALLOWED = 'Origin not allowed';

export interface CorsSurface {
  readonly methods: readonly string[];
  readonly headers: readonly string[];
}

/** The two public endpoints: exactly what SPEC 1.2 names. */
export const PUBLIC_SURFACE: CorsSurface = { methods: ['POST', 'OPTIONS'], headers: ['Content-Type', 'Authorization'] };
/** The admin API also takes If-Match and X-Request-Id. */
export const ADMIN_SURFACE: CorsSurface = {
  methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  headers: ['Content-Type', 'Authorization', 'If-Match', 'X-Request-Id'],
};

/** Connect-style, on plain node:http objects, so express and the lean path (fast-path.ts) share it. */
export type OriginPolicy = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export function createOriginPolicy(allowedOrigins: readonly string[], surface: CorsSurface): OriginPolicy {
  const allowed = new Set(allowedOrigins);
  const headers = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: surface.methods.join(', '),
    allowedHeaders: surface.headers.join(', '),
    exposedHeaders: ['X-Request-Id'],
    optionsSuccessStatus: 204,
    maxAge: 600,
  });
  const refusal = JSON.stringify({ err: ORIGIN_NOT_ALLOWED });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.has(origin)) {
      res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(refusal) });
      res.end(refusal);
      return;
    }
    headers(req, res, next);
  };
}
