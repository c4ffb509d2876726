/**
 * GET /openapi.json and the browsable docs at /docs (Swagger UI). No key:
 * the document describes the API, it holds no data. The UI's assets come
 * from the installed swagger-ui-dist package, never a CDN.
 */
import { Router, type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { openApiDocument } from '../openapi';

export function docsRouter(): Router {
  const router = Router();
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.json(openApiDocument);
  });

  // serveFiles (not the shared `serve`) binds this document to this router's init script.
  const options = { customSiteTitle: 'RuleVault API' };
  const page = swaggerUi.setup(openApiDocument, options);
  router.use('/docs', swaggerUi.serveFiles(openApiDocument, options));
  router.get('/docs', (req: Request, res: Response, next) => {
    // The page loads its assets by relative URL (./swagger-ui.css): only /docs/ resolves them.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) {
      res.redirect(301, '/docs/');
      return;
    }
    page(req, res, next);
  });
  return router;
}
