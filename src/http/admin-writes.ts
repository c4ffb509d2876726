/**
 * The front door of the catalog's admin writes: create, update and delete of
 * rules, contexts and prompts, and a prompt's new version (contract §3, scope
 * admin), written once (a prompt's labels, two parameters, stay on express). Both
 * HTTP paths call it: the lean node:http path (fast-path.ts), because
 * express's router, body parser and response helpers were about half of a
 * write's CPU (bench: http-writes, cpu-per-request --workload writes), and
 * express (routes/admin-writes.ts) for what the lean path leaves to it
 * (compressed bodies). So an answer cannot depend on the path
 * (test/http/both-paths-writes.test.ts).
 *
 * A route matches as express matched it (any letter case, one optional
 * trailing slash, `:id` %-decoded). The order of the checks is express's
 * as it was: readiness, the declared length, the body as JSON, the path's
 * %-escapes, then the caller (401/403), the query (this route takes none),
 * If-Match, and the command. A success carries its revision as a strong
 * ETag and the log position as RuleVault-Position (write-position.ts).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { parseIfMatch, readQuery, type IfMatch } from '../domain/input';
import { AppError, badRequest } from '../base/errors';
import type { Actor } from '../service/command-bus';
import { authorizeHeader, type HttpDeps, type RequestLocals } from './deps';
import { MALFORMED_PATH, NOT_READY_MESSAGE, errorBody, errorText, toErrorAnswer } from './errors';
import type { BodyReader } from './public-endpoints';
import { declaresTooLarge, decodeJsonBody, payloadTooLarge, type BodyRead } from './request-body';
import { POSITION_HEADER } from './write-position';

type Catalog = HttpDeps['catalog'];

interface AdminWrite {
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  /** express's pattern: the route label of the log line and the metrics (request-log.ts). */
  readonly pattern: string;
  readonly status: 200 | 201 | 204;
  /** The one service call; a resource is answered with its ETag, nothing with 204. */
  run(catalog: Catalog, id: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor): Promise<{ readonly revision: string } | void>;
}

const RULES = '/api/rule-engine/rules';
const CONTEXTS = '/api/contexts';
const PROMPTS = '/api/prompts';

export const ADMIN_WRITES: readonly AdminWrite[] = [
  { method: 'POST', pattern: RULES, status: 201, run: (catalog, _id, body, _ifMatch, actor) => catalog.createRule(body, actor) },
  { method: 'PATCH', pattern: `${RULES}/:id`, status: 200, run: (catalog, id, body, ifMatch, actor) => catalog.updateRule(id, body, ifMatch, actor) },
  { method: 'DELETE', pattern: `${RULES}/:id`, status: 204, run: (catalog, id, _body, ifMatch, actor) => catalog.deleteRule(id, actor, ifMatch) },
  { method: 'POST', pattern: CONTEXTS, status: 201, run: (catalog, _id, body, _ifMatch, actor) => catalog.createContext(body, actor) },
  { method: 'PATCH', pattern: `${CONTEXTS}/:id`, status: 200, run: (catalog, id, body, ifMatch, actor) => catalog.updateContext(id, body, ifMatch, actor) },
  { method: 'DELETE', pattern: `${CONTEXTS}/:id`, status: 204, run: (catalog, id, _body, ifMatch, actor) => catalog.deleteContext(id, actor, ifMatch) },
  { method: 'POST', pattern: PROMPTS, status: 201, run: (catalog, _id, body, _ifMatch, actor) => catalog.createPrompt(body, actor) },
  { method: 'PATCH', pattern: `${PROMPTS}/:id`, status: 200, run: (catalog, ref, body, ifMatch, actor) => catalog.updatePrompt(ref, body, ifMatch, actor) },
  { method: 'DELETE', pattern: `${PROMPTS}/:id`, status: 204, run: (catalog, ref, _body, ifMatch, actor) => catalog.deletePrompt(ref, actor, ifMatch) },
  { method: 'POST', pattern: `${PROMPTS}/:id/versions`, status: 201, run: (catalog, ref, body, ifMatch, actor) => catalog.addPromptVersion(ref, body, actor, ifMatch) },
];

/** A request to one of the writes: which, its `:id` (or the path's decoding failure) and its query text. */
export interface AdminWriteRoute {
  readonly write: AdminWrite;
  readonly id: string | AppError;
  readonly query: string;
}

/** What path-to-regexp makes of the pattern for express's router: case-insensitive, `[^/]+` per parameter, an optional trailing slash. */
const MATCHERS = ADMIN_WRITES.map((write) => ({
  write,
  regexp: new RegExp(`^${write.pattern.replace(/[-/]/g, '\\$&').replace(':id', '([^\\/]+)')}\\/?$`, 'i'),
}));

/** The write a request names, if any (leading slashes were collapsed before: leading-slashes.ts). */
export function adminWriteAt(method: string | undefined, url: string | undefined): AdminWriteRoute | undefined {
  if (method !== 'POST' && method !== 'PATCH' && method !== 'DELETE') return undefined;
  const text = url ?? '';
  const mark = text.indexOf('?');
  const path = mark === -1 ? text : text.slice(0, mark);
  for (const { write, regexp } of MATCHERS) {
    if (write.method !== method) continue;
    const match = regexp.exec(path);
    if (match !== null) return { write, id: decodeParam(match[1]), query: mark === -1 ? '' : text.slice(mark + 1) };
  }
  return undefined;
}

/** express's router decodes a parameter only when it holds a `%`; a malformed escape is a 400. */
function decodeParam(value: string | undefined): string | AppError {
  if (value === undefined || !value.includes('%')) return value ?? '';
  try {
    return decodeURIComponent(value);
  } catch {
    return badRequest(MALFORMED_PATH);
  }
}

export interface WriteAnswer {
  readonly status: number;
  readonly headers: Record<string, string | number>;
  readonly body: string;
}

/** The answer from the headers alone, or undefined to read the body: not ready (503), a declared length over the limit (413, connection closed). */
function answerBeforeBody(deps: HttpDeps, headers: IncomingHttpHeaders): WriteAnswer | undefined {
  if (!deps.readModel.caughtUp) return failed(deps, new AppError('unavailable', NOT_READY_MESSAGE));
  const limit = deps.config.limits.maxBodyBytes;
  if (declaresTooLarge(headers, limit)) return failed(deps, payloadTooLarge(limit), undefined, { connection: 'close' });
  return undefined;
}

/** The answer to a write whose body has been read. */
export async function answerAdminWrite(
  deps: HttpDeps, route: AdminWriteRoute, headers: IncomingHttpHeaders, body: BodyRead, locals: RequestLocals,
): Promise<WriteAnswer> {
  try {
    if ('failure' in body) throw body.failure;
    const value = decodeJsonBody(body.bytes, headers['content-type']);
    if (route.id instanceof AppError) throw route.id;
    const principal = authorizeHeader(deps, headers.authorization, locals, 'admin');
    // express's default query parser is node:querystring's, so the same names are refused the same way.
    readQuery(parseQuery(route.query), []);
    const ifMatch = parseIfMatch(headers['if-match']);
    const resource = await route.write.run(deps.catalog, route.id, value, ifMatch, { id: principal.id, requestId: locals.requestId! });
    const position = deps.readModel.position;
    const extra: Record<string, string> = position === undefined ? {} : { [POSITION_HEADER]: position.toString() };
    if (resource === undefined) return { status: route.write.status, headers: extra, body: '' };
    return json(route.write.status, resource, { ETag: `"${resource.revision}"`, ...extra });
  } catch (error) {
    return failed(deps, error, locals);
  }
}

function failed(deps: HttpDeps, error: unknown, locals?: RequestLocals, extra?: Record<string, string>): WriteAnswer {
  const mapped = toErrorAnswer(error, deps.config.limits.maxBodyBytes);
  if (mapped.unexpected) {
    deps.logger.error('request failed', {
      request_id: locals?.requestId, error: errorText(error),
    });
  }
  return json(mapped.status, errorBody(mapped.code, mapped.message), extra);
}

function json(status: number, value: unknown, extra?: Record<string, string>): WriteAnswer {
  const body = JSON.stringify(value);
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...extra }, body };
}

/**
 * Answers a write on node:http objects (express's are the same): from its
 * headers when they decide it, otherwise after reading its body with
 * `readBody`. The caller has already given it a request id (set as a
 * header) and applied the origin policy.
 */
export function serveAdminWrite(
  deps: HttpDeps, route: AdminWriteRoute, req: IncomingMessage, res: ServerResponse, locals: RequestLocals, readBody: BodyReader,
): void {
  const early = answerBeforeBody(deps, req.headers);
  if (early !== undefined) {
    send(res, early);
    return;
  }
  // The label express's router gives a request it routed (request-log.ts reads req.route.path); one
  // answered from its headers was answered before routing on express, `unmatched`, and stays so.
  (req as IncomingMessage & { route?: { path: string } }).route = { path: route.write.pattern };
  readBody((body) => {
    answerAdminWrite(deps, route, req.headers, body, locals).then((answer) => send(res, answer)).catch((error: unknown) => {
      // Only writing the answer can throw here (the answer itself never rejects): end the exchange, never the process.
      deps.logger.error('writing an answer failed', { request_id: locals.requestId, error: error instanceof Error ? error.message : typeof error });
      res.destroy();
    });
  });
}

function send(res: ServerResponse, answer: WriteAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
