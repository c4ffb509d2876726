/** GET /metrics in Prometheus text format: an admin key, or RULEVAULT_METRICS_TOKEN. */
import { Router } from 'express';
import { hashApiKey } from '../../service/auth';
import { authorizeRequest, type HttpDeps } from '../deps';

export function metricsRouter(deps: HttpDeps): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    const token = /^\s*bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    const isMetricsToken = token !== undefined && deps.config.metricsTokenHash !== undefined && hashApiKey(token) === deps.config.metricsTokenHash;
    if (!isMetricsToken) authorizeRequest(deps, req, res, 'admin');
    const text = deps.serviceMetrics === undefined ? await deps.metrics.registry.metrics() : await deps.serviceMetrics();
    res.set('Content-Type', deps.metrics.registry.contentType).send(text);
  });
  return router;
}
