/**
 * GET /openapi.json and the browsable docs at /docs (Swagger UI). No key:
 * the document describes the API, it holds no data. The UI's assets come
 * from the installed swagger-ui-dist package, never a CDN.
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { AppError } from '../../base/errors';
import { openApiDocument } from '../openapi';

/** swagger-ui-dist also ships a stock page (it loads petstore.swagger.io) and its package.json: not ours to serve. */
const NOT_SERVED = new Set(['/index.html', '/swagger-initializer.js', '/package.json']);

/** The docs routes; app.ts mounts them beside the probes, so they need no key and no readiness. */
export function docsRouter(): Router {
  const router = Router();
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.json(openApiDocument);
  });

  // serveFiles (not the shared `serve`) binds this document to this router's init script.
  const options = { customSiteTitle: 'RuleVault API' };
  const page = swaggerUi.setup(openApiDocument, options);
  router.use('/docs', (req: Request, _res: Response, next: NextFunction) => {
    next(NOT_SERVED.has(req.path) ? new AppError('not_found', `no route for ${req.method} ${req.baseUrl}${req.path}`) : undefined);
  });
  // Before the assets: their static middleware would answer /docs with a redirect of its own, whose CSP drops frame-ancestors.
  router.get('/docs', (req: Request, res: Response, next) => {
    // The page loads its assets by relative URL (./swagger-ui.css): only /docs/ resolves them.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) {
      res.redirect(301, '/docs/');
      return;
    }
    page(req, res, next);
  });
  router.use('/docs', swaggerUi.serveFiles(openApiDocument, options));
  return router;
}
