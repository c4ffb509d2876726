/**
 * One log line and one metrics observation per request, when its answer is
 * sent. Both HTTP paths call this (fast-path.ts for its routes, app.ts for
 * the rest), so a request is recorded the same way whichever path answers it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpDeps, RequestLocals } from './deps';
import { callerRequestId, mintRequestId } from './request-id';

/** What express adds to a request that the label reads. */
type RoutedRequest = IncomingMessage & { readonly route?: { readonly path?: unknown } };

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
    const pattern = routeLabel(req, locals);
    // An always-200 endpoint's answer says its outcome in its body only: `code` carries it (RequestLocals.answerCode).
    const code = locals.answerCode;
    deps.metrics.observeRequest(method, pattern, status, ms / 1000, code);
    // Never a body, a header or a key: only the key's id.
    deps.logger.request({ request_id: requestId, method, route: pattern, status, duration_ms: Math.round(ms), key_id: locals.keyId ?? null, code });
  });
}

/**
 * The route a request is labelled with: the matched pattern, never the raw
 * path (ids would explode label and log cardinality). A route of the lean
 * path is its row's pattern on every alias and however it was answered (the
 * origin policy's refusal, readiness, a wrong method); on express, the
 * pattern of the route that answered, or `unmatched`.
 */
function routeLabel(req: RoutedRequest, locals: RequestLocals): string {
  if (locals.route !== undefined) return locals.route;
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? pattern : 'unmatched';
}
