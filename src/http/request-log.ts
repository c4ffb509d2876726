/**
 * One log line and one metrics observation per request, when its answer is
 * sent. Both HTTP paths call this, so a request is recorded the same way
 * whichever path answers it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpDeps, RequestLocals } from './deps';
import { requestIdFor } from './request-id';

/**
 * Gives the request its id (the caller's X-Request-Id when sane, else a
 * fresh one, echoed on the answer) and records it when the answer is sent.
 * `route` names the matched route pattern, read once the answer is sent:
 * never the raw path, whose ids would explode label and log cardinality.
 */
export function recordRequest(
  deps: Pick<HttpDeps, 'logger' | 'metrics'>,
  req: IncomingMessage,
  res: ServerResponse,
  locals: RequestLocals,
  route: () => string,
): void {
  const started = performance.now();
  const requestId = requestIdFor(req.headers['x-request-id']);
  locals.requestId = requestId;
  res.setHeader('X-Request-Id', requestId);
  res.once('finish', () => {
    const ms = performance.now() - started;
    const method = req.method ?? '';
    const status = res.statusCode;
    const pattern = route();
    deps.metrics.observeRequest(method, pattern, status, ms / 1000);
    const logger = deps.logger.pino;
    if (!logger.isLevelEnabled('info')) return;
    // Never a body, a header or a key: only the key's id.
    logger.info(
      { request_id: requestId, method, route: pattern, status, duration_ms: Math.round(ms), key_id: locals.keyId ?? null },
      status >= 500 ? 'request failed' : 'request',
    );
  });
}
