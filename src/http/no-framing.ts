/**
 * No page this process serves may be shown in another site's frame: the
 * docs' "Authorize" box and the console's sign-in take an API key, and a
 * page framed under a decoy is how a key is clicked or typed into the wrong
 * place (clickjacking). `frame-ancestors 'none'` is the CSP way to say it;
 * `X-Frame-Options: DENY` says it to browsers without CSP level 2.
 *
 * Every answer outside /api carries both (the docs and their assets, the
 * OpenAPI document, the console, probes, redirects and 404s); the console
 * replaces the CSP with its own, which forbids framing too. The API's
 * answers do not need them: they are JSON, NDJSON or an event stream that
 * no browser shows as a page, and they act only on a bearer key that a
 * frame cannot send on its own (docs/decisions/0038-no-framing.md).
 */
import type { NextFunction, Request, Response } from 'express';

export const NO_FRAMING_HEADERS = {
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
} as const;

// Any case: the public endpoints answer their upper-case aliases too.
const API_PATH = /^\/api(\/|$)/i;

/** Middleware: the two headers on every answer outside /api. */
export function refuseFraming(req: Request, res: Response, next: NextFunction): void {
  if (!API_PATH.test(req.path)) res.set(NO_FRAMING_HEADERS);
  next();
}
