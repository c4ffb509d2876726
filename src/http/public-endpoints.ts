/**
 * The front door of the public endpoints, evaluate (contract §1.1, scope
 * evaluate), get-secrets (contract §1.2, scope secrets:read) and OpenLIT's
 * prompt route get-compiled (scope evaluate), written once.
 * Both HTTP paths call it: the lean node:http path (fast-path.ts) and express
 * (routes/public.ts). A path only reads the body bytes in its own way; all a
 * client can see is decided here: which URLs are the endpoints, readiness,
 * the body limit, what the bytes mean, authorization, the answer, and errors
 * as `{err, code}` (get-secrets and get-compiled: always 200 `{err, res}`, `code` beside a failure's `err`).
 *
 * The answering functions are transport-free: headers and bytes in,
 * `{status, headers, body}` out. `servePublic` is the few lines that read a
 * request and write an answer on node:http objects (express's are the same).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { AppError, type ErrorCode } from '../base/errors';
import { evaluateWithJson, parseEvaluateRequest } from '../service/evaluate';
import { getCompiledPrompt, parseCompiledPromptRequest } from '../service/get-compiled';
import { getSecrets, parseSecretsQuery } from '../service/get-secrets';
import { authorizeHeader, type HttpDeps, type RequestLocals } from './deps';
import { NOT_READY_MESSAGE, errorBody, errorText, toErrorAnswer } from './errors';
import { declaresTooLarge, decodeJsonBody, payloadTooLarge, type BodyRead } from './request-body';
import { writeAnswer, type AnswerWriter } from './turn-writes';

/**
 * An answer already in its JSON text (get-secrets and evaluate assemble their own: bench: cpu-per-request
 * --workload secrets, --workload evaluate), with its length in UTF-8 bytes when the assembler knows it.
 */
export class JsonText {
  constructor(readonly text: string, readonly bytes = Buffer.byteLength(text)) {}
}

export interface PublicEndpoint {
  /** The canonical path; also the route label of its log line and metrics (request-log.ts). */
  readonly path: string;
  /** contract §1.2: every answer past the CORS check is 200, a failure `{err, res: null}`. */
  readonly alwaysOk: boolean;
  /** The answer to an authorized caller; throws AppError for 400/401/403. */
  answer(deps: HttpDeps, authorization: string | undefined, body: unknown, locals: RequestLocals): unknown;
  /** Called once with the code of an error answer, before it is sent. */
  failed?(deps: HttpDeps, code: ErrorCode, locals: RequestLocals): void;
}

export const EVALUATE: PublicEndpoint = {
  path: '/api/rule-engine/evaluate',
  alwaysOk: false,
  answer(deps, authorization, body, locals) {
    authorizeHeader(deps, authorization, locals, 'evaluate');
    const request = parseEvaluateRequest(body, deps.config.limits, deps.clock());
    const { response, json, jsonBytes } = evaluateWithJson(deps.readModel.state, deps.readModel.engine, request, deps.config.limits);
    deps.metrics.observeMatches(response.matchingRuleIds.length);
    // A minted request id is the decision id too: the answer names one id, in RuleVault-Decision-Id (write, below).
    const minted = locals.requestIdMinted === true ? locals.requestId : undefined;
    locals.decisionId = deps.decisions.decide(locals.keyId!, request, response, deps.readModel.position, minted);
    return new JsonText(json, jsonBytes);
  },
};

export const GET_SECRETS: PublicEndpoint = {
  path: '/api/vault/get-secrets',
  alwaysOk: true,
  answer(deps, authorization, body, locals) {
    const principal = authorizeHeader(deps, authorization, locals, 'secrets:read');
    const { state } = deps.readModel;
    const { selection, text } = getSecrets(state.vault, state.position, deps.sealer, principal, parseSecretsQuery(body));
    deps.metrics.secretsRead(principal.id, selection.secrets.length);
    deps.secretReads.recordRead(principal.id, selection.secrets, locals.requestId);
    return new JsonText(text);
  },
  // A refused call is recorded too: a probe of the vault (no key, a guessed one, a key without the scope) is what an auditor looks for.
  failed(deps, code, locals) {
    deps.secretReads.recordFailure(locals.keyId, code, locals.requestId);
  },
};

/** OpenLIT's prompt route, for its SDKs: answered like get-secrets, always 200 `{err, res}`. */
export const GET_COMPILED: PublicEndpoint = {
  path: '/api/prompt/get-compiled',
  alwaysOk: true,
  answer(deps, authorization, body, locals) {
    authorizeHeader(deps, authorization, locals, 'evaluate');
    const request = parseCompiledPromptRequest(body);
    return { err: null, res: getCompiledPrompt(deps.readModel.state, request, deps.config.limits) };
  },
};

/** The response header carrying an evaluate answer's decision_id (docs/auditors.md#decision-records). */
export const DECISION_ID_HEADER = 'RuleVault-Decision-Id';

export const PUBLIC_ENDPOINTS: readonly PublicEndpoint[] = [EVALUATE, GET_SECRETS, GET_COMPILED];

/** The path of a request URL, without its query. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The public endpoint a request URL names, if any: its path exactly, or
 * with one trailing slash, in any letter case (the aliases express serves
 * every other route on); the query is ignored. Anything else (a
 * %-escaped letter, a longer path, `//` inside) is not the endpoint. Leading
 * slashes were collapsed before (leading-slashes.ts).
 */
export function publicEndpointAt(url: string | undefined): PublicEndpoint | undefined {
  const path = pathOf(url);
  for (const endpoint of PUBLIC_ENDPOINTS) if (path === endpoint.path) return endpoint;
  const bare = (path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();
  for (const endpoint of PUBLIC_ENDPOINTS) if (bare === endpoint.path) return endpoint;
  return undefined;
}

export interface PublicAnswer {
  readonly status: number;
  /** Made afresh for each answer: `servePublic` may add X-Request-Id to it. */
  readonly headers: Record<string, string | number>;
  readonly body: string;
}

/**
 * The answer a request gets from its headers alone, before its body is read,
 * or undefined to read the body: not ready (503), a method other than POST
 * (404, as any unknown route), a declared length over the limit (413, and
 * the connection is closed: the body is never read).
 */
export function answerBeforeBody(
  deps: HttpDeps, endpoint: PublicEndpoint, method: string | undefined, url: string | undefined, headers: IncomingHttpHeaders,
  locals: RequestLocals = {},
): PublicAnswer | undefined {
  if (!deps.readModel.caughtUp) return failed(deps, endpoint, new AppError('unavailable', NOT_READY_MESSAGE), locals);
  if (method !== 'POST') return failed(deps, endpoint, new AppError('not_found', `no route for ${method} ${pathOf(url)}`), locals);
  const limit = deps.config.limits.maxBodyBytes;
  if (declaresTooLarge(headers, limit)) return failed(deps, endpoint, payloadTooLarge(limit), locals, { connection: 'close' });
  return undefined;
}

/** The answer to a request whose body has been read. */
export function answerPublic(
  deps: HttpDeps, endpoint: PublicEndpoint, headers: IncomingHttpHeaders, body: BodyRead, locals: RequestLocals,
): PublicAnswer {
  try {
    if ('failure' in body) throw body.failure;
    const value = decodeJsonBody(body.bytes, headers['content-type']);
    const answer = endpoint.answer(deps, headers.authorization, value, locals);
    const ok = answered(endpoint, 200, answer);
    if (endpoint.alwaysOk) locals.answerCode = null;
    if (locals.decisionId !== undefined) ok.headers[DECISION_ID_HEADER] = locals.decisionId;
    return ok;
  } catch (error) {
    return failed(deps, endpoint, error, locals);
  }
}

function failed(
  deps: HttpDeps, endpoint: PublicEndpoint, error: unknown, locals: RequestLocals, extra?: Record<string, string>,
): PublicAnswer {
  const mapped = toErrorAnswer(error, deps.config.limits.maxBodyBytes);
  if (mapped.unexpected) {
    deps.logger.error('request failed', {
      request_id: locals.requestId, route: endpoint.path, error: errorText(error),
    });
  }
  if (endpoint.alwaysOk) locals.answerCode = mapped.code;
  endpoint.failed?.(deps, mapped.code, locals);
  return endpoint.alwaysOk
    ? answered(endpoint, 200, { ...errorBody(mapped.code, mapped.message), res: null }, extra)
    : answered(endpoint, mapped.status, errorBody(mapped.code, mapped.message), extra);
}

function answered(endpoint: PublicEndpoint, status: number, value: unknown, extra?: Record<string, string>): PublicAnswer {
  const text = value instanceof JsonText ? value : undefined;
  const body = text !== undefined ? text.text : JSON.stringify(value);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': text !== undefined ? text.bytes : Buffer.byteLength(body),
  };
  // get-secrets answers carry plaintext, get-compiled's depend on the key: no cache may keep them.
  if (endpoint.alwaysOk) headers['cache-control'] = 'no-store';
  if (extra !== undefined) Object.assign(headers, extra);
  return { status, headers, body };
}

/** Reads a request's body in a path's own way, then calls `done` once. */
export type BodyReader = (done: (body: BodyRead) => void) => void;

/**
 * Answers a public request on node:http objects: from its headers when they
 * decide it, otherwise after reading its body with `readBody`, and hands the
 * answer to `send`; a read body's answer as the work that computes it, which
 * the lean path's writer runs at the end of the turn (turn-writes.ts).
 * The caller has already given it a request id and applied the origin policy.
 */
export function servePublic(
  deps: HttpDeps, endpoint: PublicEndpoint, req: IncomingMessage, res: ServerResponse, locals: RequestLocals, url: string, readBody: BodyReader,
  send: AnswerWriter = writeAnswer,
): void {
  const early = answerBeforeBody(deps, endpoint, req.method, url, req.headers, locals);
  if (early !== undefined) {
    send(res, withIds(res, early, locals));
    return;
  }
  readBody((body) => send(res, () => withIds(res, answerPublic(deps, endpoint, req.headers, body, locals), locals)));
}

/** The answer with the request's ids in its headers. */
function withIds(res: ServerResponse, answer: PublicAnswer, locals: RequestLocals): PublicAnswer {
  if (locals.decisionId !== undefined && locals.decisionId === locals.requestId) {
    // The request id was minted and is the decision id: sent once, as RuleVault-Decision-Id. Every header line costs
    // the server and, more, the caller's parser (bench: http-evaluate, the floor with the subject's headers).
    res.removeHeader('x-request-id');
  } else if (locals.requestId !== undefined && !res.hasHeader('x-request-id')) {
    // The lean path leaves X-Request-Id to the answer when it can (fast-path.ts): a writeHead after no
    // setHeader takes node:http's direct path instead of merging header by header (bench: cpu-per-request --workload evaluate).
    answer.headers['X-Request-Id'] = locals.requestId;
  }
  return answer;
}
