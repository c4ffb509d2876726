/**
 * The front door of the catalog's admin writes: create, update and delete of
 * rules, contexts and prompts, and a prompt's new version (contract §3, scope
 * admin): the one implementation of each, answered on the lean path
 * (fast-path.ts), because express's router, body parser and response helpers
 * were about half of a write's CPU (bench: http-writes, cpu-per-request
 * --workload writes). A prompt's labels (two parameters) are express's.
 *
 * The order of the checks is express's, as the rest of the admin API has it:
 * readiness, the declared length, the body as JSON, the path's %-escapes,
 * then the caller (401/403), the query (these routes take none), If-Match,
 * and the command. A success carries its revision as a strong ETag and the
 * log position as RuleVault-Position (write-position.ts).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { parseIfMatch, readQuery, type IfMatch } from '../domain/input';
import { AppError } from '../base/errors';
import type { Actor } from '../service/command-bus';
import type { Answer } from './answer';
import { actorFor, authorizeHeader, type HttpDeps, type RequestLocals } from './deps';
import { BREAK_GLASS_HEADER } from '../domain/protection';
import { answerBeforeBody, failedAnswer, okAnswer, type BodyReader, type FrontDoor } from './front-door';
import { decodeJsonBody, type BodyRead } from './request-body';
import type { Params } from './route-table';
import { writeAnswer } from './turn-writes';
import { POSITION_HEADER } from './write-position';

type Catalog = HttpDeps['catalog'];

export interface AdminWrite extends FrontDoor {
  readonly method: 'POST' | 'PATCH' | 'DELETE';
  readonly status: 200 | 201 | 204;
  /** The one service call; a resource is answered with its ETag, nothing with 204. */
  run(catalog: Catalog, id: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor): Promise<{ readonly revision: string } | void>;
}

const RULES = '/api/rule-engine/rules';
const CONTEXTS = '/api/contexts';
const PROMPTS = '/api/prompts';

type Run = AdminWrite['run'];

function write(method: AdminWrite['method'], pattern: string, status: AdminWrite['status'], run: Run): AdminWrite {
  return { method, pattern, alwaysOk: false, status, run };
}

export const ADMIN_WRITES: readonly AdminWrite[] = [
  write('POST', RULES, 201, (catalog, _id, body, _ifMatch, actor) => catalog.createRule(body, actor)),
  write('PATCH', `${RULES}/:id`, 200, (catalog, id, body, ifMatch, actor) => catalog.updateRule(id, body, ifMatch, actor)),
  write('DELETE', `${RULES}/:id`, 204, (catalog, id, _body, ifMatch, actor) => catalog.deleteRule(id, actor, ifMatch)),
  write('POST', CONTEXTS, 201, (catalog, _id, body, _ifMatch, actor) => catalog.createContext(body, actor)),
  write('PATCH', `${CONTEXTS}/:id`, 200, (catalog, id, body, ifMatch, actor) => catalog.updateContext(id, body, ifMatch, actor)),
  write('DELETE', `${CONTEXTS}/:id`, 204, (catalog, id, _body, ifMatch, actor) => catalog.deleteContext(id, actor, ifMatch)),
  write('POST', PROMPTS, 201, (catalog, _id, body, _ifMatch, actor) => catalog.createPrompt(body, actor)),
  write('PATCH', `${PROMPTS}/:id`, 200, (catalog, ref, body, ifMatch, actor) => catalog.updatePrompt(ref, body, ifMatch, actor)),
  write('DELETE', `${PROMPTS}/:id`, 204, (catalog, ref, _body, ifMatch, actor) => catalog.deletePrompt(ref, actor, ifMatch)),
  write('POST', `${PROMPTS}/:id/versions`, 201, (catalog, ref, body, ifMatch, actor) => catalog.addPromptVersion(ref, body, actor, ifMatch)),
];

/** A request to one of the writes: which, its `:id` (or the path's decoding failure) and its query text. */
export interface WriteRequest {
  readonly write: AdminWrite;
  readonly id: string | AppError;
  readonly query: string;
}

/** The request to `write` that a routed URL makes, with its parameters from the route table (route-table.ts). */
export function writeRequest(write: AdminWrite, params: Params | AppError, url: string | undefined): WriteRequest {
  const mark = url?.indexOf('?') ?? -1;
  return { write, id: params instanceof AppError ? params : params.id ?? '', query: mark === -1 ? '' : url!.slice(mark + 1) };
}

/** The answer to a write whose body has been read. */
export async function answerAdminWrite(
  deps: HttpDeps, route: WriteRequest, headers: IncomingHttpHeaders, body: BodyRead, locals: RequestLocals,
): Promise<Answer> {
  try {
    if ('failure' in body) throw body.failure;
    const value = decodeJsonBody(body.bytes, headers['content-type']);
    if (route.id instanceof AppError) throw route.id;
    const principal = authorizeHeader(deps, headers.authorization, locals, 'admin');
    // express's default query parser is node:querystring's, so the same names are refused the same way.
    readQuery(parseQuery(route.query), []);
    const ifMatch = parseIfMatch(headers['if-match']);
    const resource = await route.write.run(deps.catalog, route.id, value, ifMatch, actorFor(principal, locals.requestId!, headers[BREAK_GLASS_HEADER]));
    const position = deps.readModel.position;
    const extra: Record<string, string> = position === undefined ? {} : { [POSITION_HEADER]: position.toString() };
    if (resource === undefined) return { status: route.write.status, headers: extra, body: '' };
    return okAnswer(route.write, route.write.status, resource, { ETag: `"${resource.revision}"`, ...extra });
  } catch (error) {
    return failedAnswer(deps, route.write, error, locals);
  }
}

/**
 * Answers a write on node:http objects: from its headers when they decide
 * it, otherwise after reading its body with `readBody`. The caller has
 * already given it a request id (set as a header) and applied the origin
 * policy.
 */
export function serveAdminWrite(
  deps: HttpDeps, route: WriteRequest, req: IncomingMessage, res: ServerResponse, locals: RequestLocals, readBody: BodyReader,
): void {
  const early = answerBeforeBody(deps, route.write, req.method, req.url, req.headers, locals);
  if (early !== undefined) {
    writeAnswer(res, early);
    return;
  }
  readBody((body) => {
    answerAdminWrite(deps, route, req.headers, body, locals).then((answer) => writeAnswer(res, answer)).catch((error: unknown) => {
      // Only writing the answer can throw here (the answer itself never rejects): end the exchange, never the process.
      deps.logger.error('writing an answer failed', { request_id: locals.requestId, error: error instanceof Error ? error.message : typeof error });
      res.destroy();
    });
  });
}
