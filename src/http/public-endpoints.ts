/**
 * The front door of the public endpoints, evaluate (contract §1.1, scope
 * evaluate), get-secrets (contract §1.2, scope secrets:read) and OpenLIT's
 * prompt route get-compiled (scope evaluate): the one implementation of
 * each, answered on the lean path (fast-path.ts). All a client can see is
 * decided here: readiness, the method, the body limit, what the bytes mean,
 * authorization, the answer, and errors as `{err, code}` (get-secrets and
 * get-compiled: always 200 `{err, res}`, `code` beside a failure's `err`).
 *
 * The answering functions are transport-free: headers and bytes in, an
 * Answer out (answer.ts). `servePublic` is the few lines that read a request
 * and write an answer on node:http objects.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { evaluateWithJson, parseEvaluateRequest } from '../service/evaluate';
import { getCompiledPrompt, parseCompiledPromptRequest } from '../service/get-compiled';
import { getSecrets, parseSecretsQuery } from '../service/get-secrets';
import { JsonText, type Answer } from './answer';
import { authorizeHeader, type HttpDeps, type RequestLocals } from './deps';
import { answerBeforeBody, failedAnswer, okAnswer, type BodyReader, type FrontDoor } from './front-door';
import { decodeJsonBody, type BodyRead } from './request-body';
import { writeAnswer, type AnswerWriter } from './turn-writes';

export interface PublicEndpoint extends FrontDoor {
  readonly method: 'POST';
  /** The answer to an authorized caller; throws AppError for 400/401/403. */
  answer(deps: HttpDeps, authorization: string | undefined, body: unknown, locals: RequestLocals): unknown;
}

export const EVALUATE: PublicEndpoint = {
  method: 'POST',
  pattern: '/api/rule-engine/evaluate',
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
  method: 'POST',
  pattern: '/api/vault/get-secrets',
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
  method: 'POST',
  pattern: '/api/prompt/get-compiled',
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

/** The answer to a request whose body has been read. */
export function answerPublic(
  deps: HttpDeps, endpoint: PublicEndpoint, headers: IncomingHttpHeaders, body: BodyRead, locals: RequestLocals,
): Answer {
  try {
    if ('failure' in body) throw body.failure;
    const value = decodeJsonBody(body.bytes, headers['content-type']);
    const ok = okAnswer(endpoint, 200, endpoint.answer(deps, headers.authorization, value, locals));
    if (endpoint.alwaysOk) locals.answerCode = null;
    if (locals.decisionId !== undefined) ok.headers[DECISION_ID_HEADER] = locals.decisionId;
    return ok;
  } catch (error) {
    return failedAnswer(deps, endpoint, error, locals);
  }
}

/**
 * Answers a public request on node:http objects: from its headers when they
 * decide it, otherwise after reading its body with `readBody`, and hands the
 * answer to `send`; a read body's answer as the work that computes it, which
 * the lean path's writer runs at the end of the turn (turn-writes.ts).
 * The caller has already given it a request id and applied the origin policy.
 */
export function servePublic(
  deps: HttpDeps, endpoint: PublicEndpoint, req: IncomingMessage, res: ServerResponse, locals: RequestLocals, readBody: BodyReader,
  send: AnswerWriter = writeAnswer,
): void {
  const early = answerBeforeBody(deps, endpoint, req.method, req.url, req.headers, locals);
  if (early !== undefined) {
    send(res, withIds(res, early, locals));
    return;
  }
  readBody((body) => send(res, () => withIds(res, answerPublic(deps, endpoint, req.headers, body, locals), locals)));
}

/** The answer with the request's ids in its headers (the OFREP routes' too: ofrep.ts). */
export function withIds(res: ServerResponse, answer: Answer, locals: RequestLocals): Answer {
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
