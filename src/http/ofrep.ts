/**
 * OFREP, the OpenFeature Remote Evaluation Protocol (docs/openfeature.md):
 * every OpenFeature SDK's OFREP provider is a RuleVault client. Two routes on
 * the lean path (fast-path.ts), scope evaluate:
 *
 * - `POST /ofrep/v1/evaluate/flags/:key`: one flag, `{key, value?, reason,
 *   variant?, metadata}` or `{key, errorCode, errorDetails}` with the status
 *   failureStatus gives (src/service/flags.ts holds the mapping: ADR 0057).
 * - `POST /ofrep/v1/evaluate/flags`: every flag, in key order, with a strong
 *   ETag of the answer's bytes; `If-None-Match` naming it is a 304 (ADR 0058).
 *
 * Each answer runs evaluate once per entity type its flags ask for, never
 * once per flag, and records a decision per evaluate run, as evaluate does
 * (their ids in RuleVault-Decision-Id), so an OFREP answer is replayed and
 * explained as an evaluate. Errors are OFREP's shape, not `{err, code}`:
 * what OFREP names by its code, the rest (401, 403, 413, 503) as `GENERAL`.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../base/errors';
import type { EntityType } from '../events';
import { evaluate, type EvaluateRequest, type EvaluateResponse } from '../service/evaluate';
import { flagKeysOf } from '../service/flag-keys';
import {
  failureStatus, flagsOf, isFlagFailure, lookupFlag, parseFlagContext, resolveFlag,
  type AnswerFor, type FlagContext, type FlagErrorCode,
} from '../service/flags';
import { NO_KEY_MESSAGE } from '../service/auth';
import { JsonText, jsonAnswer, type Answer } from './answer';
import type { CorsSurface } from './cors';
import { authorizeHeader, type HttpDeps, type RequestLocals } from './deps';
import { MALFORMED_PATH, NOT_READY_MESSAGE, errorText, toErrorAnswer } from './errors';
import type { BodyReader } from './front-door';
import { DECISION_ID_HEADER, withIds } from './public-endpoints';
import { declaresTooLarge, decodeJsonBody, tooLargeMessage, type BodyRead } from './request-body';
import { pathOf, type Params } from './route-table';
import type { AnswerWriter } from './turn-writes';

export interface OfrepEndpoint {
  readonly pattern: string;
  /** True for the single evaluation: its answers, failures too, carry the flag's key. */
  readonly single: boolean;
}

export const OFREP_FLAG: OfrepEndpoint = { pattern: '/ofrep/v1/evaluate/flags/:key', single: true };
export const OFREP_BULK: OfrepEndpoint = { pattern: '/ofrep/v1/evaluate/flags', single: false };
export const OFREP_ENDPOINTS: readonly OfrepEndpoint[] = [OFREP_FLAG, OFREP_BULK];

/**
 * The origin policy's surface (ADR 0059): the public endpoints' allowlist, with the headers OFREP's
 * browser providers send (an API key as X-API-Key, If-None-Match) and the ETag they read.
 */
export const OFREP_SURFACE: CorsSurface = {
  methods: ['POST', 'OPTIONS'],
  headers: ['Content-Type', 'Authorization', 'X-API-Key', 'If-None-Match', 'X-Request-Id'],
  exposed: ['ETag', 'X-Request-Id', 'RuleVault-Decision-Id'],
};

export const OFREP_NO_KEY = 'no API key was provided: send Authorization: Bearer <API_KEY> or X-API-Key: <API_KEY>';

/** Answers an OFREP request on node:http objects, as servePublic answers a public one; the caller applied the origin policy. */
export function serveOfrep(
  deps: HttpDeps, endpoint: OfrepEndpoint, req: IncomingMessage, res: ServerResponse, params: Params | AppError, locals: RequestLocals,
  readBody: BodyReader, send: AnswerWriter,
): void {
  const key = endpoint.single && !(params instanceof AppError) ? params.key : undefined;
  const early = answerBeforeBody(deps, req, params, key);
  if (early !== undefined) {
    send(res, withIds(res, early, locals));
    return;
  }
  readBody((body) => send(res, () => withIds(res, answerOfrep(deps, endpoint, req.headers, key, body, locals), locals)));
}

/** What the headers alone decide: not ready, another method, a malformed path, a declared body over the limit. */
function answerBeforeBody(deps: HttpDeps, req: IncomingMessage, params: Params | AppError, key: string | undefined): Answer | undefined {
  if (!deps.readModel.caughtUp) return failure(503, key, 'GENERAL', NOT_READY_MESSAGE);
  if (req.method !== 'POST') return failure(404, key, 'GENERAL', `no route for ${req.method} ${pathOf(req.url)}`);
  if (params instanceof AppError) return failure(400, key, 'PARSE_ERROR', MALFORMED_PATH);
  const limit = deps.config.limits.maxBodyBytes;
  if (declaresTooLarge(req.headers, limit)) return failure(413, key, 'GENERAL', tooLargeMessage(limit), { connection: 'close' });
  return undefined;
}

/** The answer to a request whose body has been read. */
export function answerOfrep(
  deps: HttpDeps, endpoint: OfrepEndpoint, headers: IncomingHttpHeaders, key: string | undefined, body: BodyRead, locals: RequestLocals,
): Answer {
  try {
    if ('failure' in body) throw body.failure;
    const credential = credentialOf(headers);
    authorizeHeader(deps, credential, locals, 'evaluate');
    let value: unknown;
    try {
      value = decodeJsonBody(body.bytes, headers['content-type']);
    } catch (error) {
      if (error instanceof AppError) return failure(400, key, 'PARSE_ERROR', error.message);
      throw error;
    }
    return endpoint.single ? single(deps, key!, value, locals) : bulk(deps, headers, value, locals);
  } catch (error) {
    const mapped = toErrorAnswer(error, deps.config.limits.maxBodyBytes);
    if (mapped.unexpected) deps.logger.error('request failed', { request_id: locals.requestId, route: endpoint.pattern, error: errorText(error) });
    const details = mapped.message === NO_KEY_MESSAGE ? OFREP_NO_KEY : mapped.message;
    return failure(mapped.status, key, mapped.status === 400 ? 'PARSE_ERROR' : 'GENERAL', details);
  }
}

function single(deps: HttpDeps, key: string, body: unknown, locals: RequestLocals): Answer {
  const context = parseFlagContext(body, deps.config.limits, key);
  if (isFlagFailure(context)) return jsonAnswer(failureStatus(context.errorCode), context);
  const ref = lookupFlag(key, flagKeysOf(deps.readModel).ruleOf);
  if (isFlagFailure(ref)) return jsonAnswer(failureStatus(ref.errorCode), ref);
  const run = evaluations(deps, context, locals, new Set(), true);
  const answer = resolveFlag(ref, context, run.answerFor, deps.readModel.position);
  // A DISABLED flag is answered without evaluating: no decision, no id.
  locals.decisionId = run.ids[0];
  const extra = locals.decisionId === undefined ? undefined : { [DECISION_ID_HEADER]: locals.decisionId };
  return jsonAnswer(isFlagFailure(answer) ? failureStatus(answer.errorCode) : 200, answer, extra);
}

function bulk(deps: HttpDeps, headers: IncomingHttpHeaders, body: unknown, locals: RequestLocals): Answer {
  const context = parseFlagContext(body, deps.config.limits);
  if (isFlagFailure(context)) return jsonAnswer(failureStatus(context.errorCode), context);
  const refs = flagKeysOf(deps.readModel).sorted().flatMap(flagsOf);
  // Per entity type, one evaluate: with entity_data when an active object flag of the type needs it.
  const withData = new Set(refs.filter((ref) => ref.type === 'object' && ref.rule.status === 'ACTIVE').map((ref) => ref.entityType));
  const run = evaluations(deps, context, locals, withData, false);
  const position = deps.readModel.position;
  const flags = refs.map((ref) => resolveFlag(ref, context, run.answerFor, position));
  const text = JSON.stringify({ flags, metadata: { position: position === undefined ? '' : position.toString() } });
  const extra: Record<string, string> = { etag: etagOf(text) };
  // Every decision of the answer, in the order run; each record's entity_type says which evaluate it was.
  if (run.ids.length > 0) extra[DECISION_ID_HEADER] = run.ids.join(', ');
  if (noneMatch(headers['if-none-match'], extra.etag!)) return { status: 304, headers: extra, body: '' };
  return jsonAnswer(200, new JsonText(text), extra);
}

interface Evaluations {
  readonly answerFor: AnswerFor;
  /** The decision ids of the evaluates run, in order. */
  readonly ids: string[];
}

/**
 * Evaluate's answers for `context`, each entity type's computed once and
 * recorded as an evaluate's decision (the request evaluate would have been
 * sent: docs/openfeature.md#decisions). `withData`: the types asked with
 * entity_data whatever the first flag asks; `mint`: the first decision takes
 * a minted request id, as evaluate's does.
 */
function evaluations(deps: HttpDeps, context: FlagContext, locals: RequestLocals, withData: ReadonlySet<EntityType>, mint: boolean): Evaluations {
  const atMs = deps.clock();
  const answers = new Map<EntityType, EvaluateResponse>();
  const ids: string[] = [];
  const answerFor: AnswerFor = (entityType, data) => {
    const includeEntityData = data || withData.has(entityType);
    const known = answers.get(entityType);
    if (known !== undefined && (!includeEntityData || known.entity_data !== undefined)) return known;
    const request: EvaluateRequest = {
      entityType, fields: context.fields, includeEntityData, variables: context.variables,
      version: undefined, label: undefined, shouldCompile: true, strict: false, atMs,
    };
    const response = evaluate(deps.readModel.state, deps.readModel.engine, request, deps.config.limits);
    deps.metrics.observeMatches(response.matchingRuleIds.length);
    const minted = mint && ids.length === 0 && locals.requestIdMinted === true ? locals.requestId : undefined;
    ids.push(deps.decisions.decide(locals.keyId!, request, response, deps.readModel.position, minted));
    answers.set(entityType, response);
    return response;
  };
  return { answerFor, ids };
}

/** The caller's key: `Authorization` when sent, else `X-API-Key` (OFREP names both). */
function credentialOf(headers: IncomingHttpHeaders): string | undefined {
  if (headers.authorization !== undefined) return headers.authorization;
  const key = headers['x-api-key'];
  return typeof key === 'string' ? `Bearer ${key.trim()}` : undefined;
}

/** A strong ETag: the answer's bytes decide it (ADR 0058). */
function etagOf(text: string): string {
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;
}

/** If-None-Match's weak comparison (RFC 9110 §13.1.2): `*`, or a listed tag equal to `etag` with or without `W/`. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((listed) => {
    const tag = listed.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/** An OFREP failure: `{key, errorCode, errorDetails}`, without `key` on the bulk route. */
function failure(status: number, key: string | undefined, errorCode: FlagErrorCode, errorDetails: string, extra?: Readonly<Record<string, string>>): Answer {
  return jsonAnswer(status, key === undefined ? { errorCode, errorDetails } : { key, errorCode, errorDetails }, extra);
}
