/**
 * The browser-origin policy (contract §1.2): exact allowlisted origins get CORS
 * headers (from the `cors` package); a stranger origin gets 403 with no CORS
 * headers and the request is not executed; no Origin header, no check.
 *
 * The service's own pages (the docs at /docs) are not strangers: a browser
 * sends an Origin on their writes too, so a request whose Origin is the very
 * host it was sent to is let through, but only when that host is a loopback
 * name. Comparing any Host with the Origin would let a DNS-rebinding page
 * (http://attacker.example:3000, resolved to this machine) pass as "same
 * origin"; a loopback Host means the browser really opened this service by
 * that name. Elsewhere the deployment's own origin is RULEVAULT_PUBLIC_URL,
 * which config.ts puts in the allowlist.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import { errorBody } from './errors';

export const ORIGIN_NOT_ALLOWED = 'Origin not allowed';

export interface CorsSurface {
  readonly methods: readonly string[];
  readonly headers: readonly string[];
  /** Response headers a page may read; unless said, the ids and the position. */
  readonly exposed?: readonly string[];
}

const EXPOSED = ['X-Request-Id', 'RuleVault-Position', 'RuleVault-Decision-Id'];

/** The two public endpoints: exactly what contract §1.2 names. */
export const PUBLIC_SURFACE: CorsSurface = { methods: ['POST', 'OPTIONS'], headers: ['Content-Type', 'Authorization'] };
/** The admin API also takes If-Match and X-Request-Id. */
export const ADMIN_SURFACE: CorsSurface = {
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  headers: ['Content-Type', 'Authorization', 'If-Match', 'X-Request-Id'],
};

/** Connect-style, on plain node:http objects, so express and the lean path (fast-path.ts) share it. */
export type OriginPolicy = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export function createOriginPolicy(allowedOrigins: readonly string[], surface: CorsSurface): OriginPolicy {
  const allowed = new Set(allowedOrigins);
  const headers = cors({
    // Reached only for an origin the policy below let through: reflect it.
    origin: true,
    methods: surface.methods.join(', '),
    allowedHeaders: surface.headers.join(', '),
    exposedHeaders: [...(surface.exposed ?? EXPOSED)],
    optionsSuccessStatus: 204,
    maxAge: 600,
  });
  const refusal = JSON.stringify(errorBody('forbidden', ORIGIN_NOT_ALLOWED));
  return (req, res, next) => {
    const origin = req.headers.origin;
    // Server to server: nothing to check and no CORS headers to add.
    if (origin === undefined) {
      next();
      return;
    }
    if (!allowed.has(origin) && !isOwnLoopbackOrigin(origin, req.headers.host)) {
      res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(refusal) });
      res.end(refusal);
      return;
    }
    headers(req, res, next);
  };
}

/** 127.0.0.0/8, ::1 and localhost, as the URL parser writes them. */
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/** True when `origin` is exactly the (loopback) host the request was sent to: a page this service served itself. */
export function isOwnLoopbackOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.origin === origin &&
    url.host === host.toLowerCase() &&
    LOOPBACK_HOST.test(url.hostname)
  );
}
