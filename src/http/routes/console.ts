/**
 * The web console at /console: static assets built by `npm run build` (vite,
 * src/console) into dist/console, served by this process under a strict
 * Content-Security-Policy: scripts, styles and calls only from this origin,
 * no inline script or style, no frames, no forms posting elsewhere. No key:
 * the page holds no data; it signs in with an API key and calls /api.
 * The lean path (fast-path.ts) takes only its routes under /api, so every
 * console request reaches express.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../../base/errors';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where vite writes the console (vite.config.ts outDir), seen from dist/src/http/routes. */
export const CONSOLE_DIR = path.resolve(__dirname, '../../../console');

function secureHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy': CONSOLE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });
  next();
}

export function consoleRouter(dir: string = CONSOLE_DIR): Router {
  const router = Router();
  router.use('/console', secureHeaders);
  router.get('/console', (req: Request, res: Response, next: NextFunction) => {
    // The page loads its assets by relative URL (./assets/...): only /console/ resolves them.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) {
      res.redirect(301, '/console/');
      return;
    }
    if (!existsSync(path.join(dir, 'index.html'))) {
      next(new AppError('not_found', 'the console is not built: run npm run build'));
      return;
    }
    res.set('Cache-Control', 'no-cache').sendFile(path.join(dir, 'index.html'));
  });
  // Asset names carry a content hash: they never change, so browsers may keep them.
  router.use('/console/assets', express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  return router;
}
