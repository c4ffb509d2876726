/**
 * One log line and one metrics observation per request, when its answer is
 * sent. Both HTTP paths call this, so a request is recorded the same way
 * whichever path answers it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpDeps, RequestLocals } from './deps';
import { publicEndpointAt } from './public-endpoints';
import { callerRequestId, mintRequestId } from './request-id';
import { isStreamUrl, STREAM_PATH } from './stream-endpoint';

/** What express adds to a request that the label reads. */
type RoutedRequest = IncomingMessage & { readonly route?: { readonly path?: unknown }; readonly originalUrl?: string };

/**
 * Gives the request its id (the caller's X-Request-Id when sane, else a
 * minted one, sent on the answer) and records it when the answer is sent.
 * `setIdHeader` false: the caller writes X-Request-Id with its answer's own
 * headers, on every answer it can give (public-endpoints.ts, servePublic).
 */
export function recordRequest(
  deps: Pick<HttpDeps, 'logger' | 'metrics'>, req: RoutedRequest, res: ServerResponse, locals: RequestLocals, setIdHeader = true,
): void {
  const started = performance.now();
  const given = callerRequestId(req.headers['x-request-id']);
  const requestId = given ?? mintRequestId();
  locals.requestId = requestId;
  locals.requestIdMinted = given === undefined;
  if (setIdHeader) res.setHeader('X-Request-Id', requestId);
  // `on`: 'finish' fires at most once; once's wrapper costs more (bench: cpu-per-request --workload evaluate; request-body.ts).
  res.on('finish', () => {
    const ms = performance.now() - started;
    const method = req.method ?? '';
    const status = res.statusCode;
    const pattern = routeLabel(req);
    // An always-200 endpoint's answer says its outcome in its body only: `code` carries it (RequestLocals.answerCode).
    const code = locals.answerCode;
    deps.metrics.observeRequest(method, pattern, status, ms / 1000, code);
    // Never a body, a header or a key: only the key's id.
    deps.logger.request({ request_id: requestId, method, route: pattern, status, duration_ms: Math.round(ms), key_id: locals.keyId ?? null, code });
  });
}

/**
 * The route a request is labelled with: the matched pattern, never the raw
 * path (ids would explode label and log cardinality). A public endpoint is
 * its canonical path on every alias and whichever path answered it, even when
 * the origin policy refused it first.
 */
function routeLabel(req: RoutedRequest): string {
  const pattern = req.route?.path;
  if (typeof pattern === 'string') return pattern;
  const url = req.originalUrl ?? req.url;
  return publicEndpointAt(url)?.path ?? (isStreamUrl(url) ? STREAM_PATH : 'unmatched');
}
