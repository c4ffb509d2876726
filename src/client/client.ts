/**
 * The remote client: one object per service holding the connection settings
 * and the prompt cache. Every method resolves to `{ err: null, ... }` or
 * `{ err: string, ... }` and never throws; `err` is the service's message or
 * one naming the cause (e.g. "RuleVault is unreachable (POST
 * http://127.0.0.1:1/api/vault/get-secrets): connect ECONNREFUSED 127.0.0.1:1").
 */
import type {
  GetCompiledAnswer,
  ApiKey, ApiKeyCreated, ApiKeyInput, Context, ContextInput, ContextPatch, EvaluateRequest, EvaluateResponse,
  Prompt, PromptInput, PromptPatch, PromptVersionInput, Rule, RuleInput, RulePatch, Secret, SecretInput, SecretPatch,
} from './api-types';
import { cacheKey, PromptCache, type CacheEntry } from './prompt-cache';
import { describeCause, errorCode, errorText, send, type ErrorCode, type ConnectionOptions, type Failure, type Outcome, type Request } from './transport';

export interface ClientOptions extends ConnectionOptions {
  /** How long a getPrompt answer is fresh, in ms (default 60 s); a call's `ttlMs` overrides it. */
  readonly promptTtlMs?: number;
  /** Most prompt answers kept (default 1000), least recently used dropped first. */
  readonly promptCacheSize?: number;
  /** Milliseconds clock for the prompt cache (default Date.now); tests pass their own. */
  readonly clock?: () => number;
}

/**
 * What a failure adds beside `err`, for programs (docs/api.md#error-codes):
 * `code`, the service's error code when its answer carried one, and
 * `status`, the HTTP status of an answer that was not a success. Both are
 * absent when the client itself failed (unreachable, timeout, no URL), and
 * `status` is absent for get-secrets and get-compiled, which answer their
 * failures 200.
 */
export interface FailureDetail {
  code?: ErrorCode;
  status?: number;
}

/** `{ err: null, res }` or `{ err, res: null }`, like get-secrets. */
export type Result<T> = { err: null; res: T } | ({ err: string; res: null } & FailureDetail);

export interface GetSecretsRequest {
  readonly key?: string;
  readonly tags?: readonly string[];
  /**
   * Also set each returned secret in process.env; request and response are unchanged. A lookup by `key`
   * that finds nothing sets nothing and answers the service's `err` (code not_found, naming the key):
   * an app asking for OPENAI_API_KEY never starts with it silently unset.
   */
  readonly shouldSetEnv?: boolean;
}

/** get-secrets' answer; `code` is the service's error code (FailureDetail). */
export type GetSecretsResult = { err: null; res: Record<string, string> } | ({ err: string; res: null } & FailureDetail);
export type EvaluateResult = ({ err: null } & EvaluateResponse) | ({ err: string } & FailureDetail);

/** A prompt as POST /api/prompt/get-compiled answers it (OpenLIT's shape, plus type, config and variables). */
export type CompiledPrompt = Extract<GetCompiledAnswer, { err: null }>['res'];

/** A prompt by name (a plain string), or by `{ id }` / `{ name }`. */
export type PromptRef = string | { readonly id: string } | { readonly name: string };

export interface GetPromptOptions {
  /** A version, e.g. "1.2.0"; default the label's (or the latest) version. */
  readonly version?: string;
  /** A label, e.g. "production". */
  readonly label?: string;
  readonly variables?: Readonly<Record<string, unknown>>;
  /** Render the template with the variables (default true). */
  readonly shouldCompile?: boolean;
  /** Answered, marked `source: 'fallback'`, when the service cannot be reached and nothing is cached. Used as given (not rendered). */
  readonly fallback?: string;
  /** Freshness for this call in ms (default the client's promptTtlMs); 0 neither reads nor fills the cache. */
  readonly ttlMs?: number;
}

export type PromptSource = 'service' | 'cache' | 'stale' | 'fallback';

export type GetPromptResult =
  | {
    err: null;
    /** service: just fetched; cache: within its TTL; stale: past it, being refreshed in the background. */
    source: 'service' | 'cache' | 'stale';
    res: CompiledPrompt;
    /** How old the answer is, in ms of the client's clock. */
    ageMs: number;
    /** Why the last refresh did not replace this answer (the service unreachable, ...); null if it did. */
    lastError: string | null;
  }
  | { err: null; source: 'fallback'; res: { prompt: string; compiledPrompt: string; isFallback: true }; ageMs: null; lastError: string }
  | ({ err: string; source: null; res: null; ageMs: null; lastError: null } & FailureDetail);

const DEFAULT_PROMPT_TTL_MS = 60_000;
const DEFAULT_PROMPT_CACHE_SIZE = 1000;
const UNEXPECTED = 'unexpected answer from RuleVault';

export class RuleVaultClient {
  readonly rules: AdminResource<Rule, RuleInput, RulePatch>;
  readonly contexts: AdminResource<Context, ContextInput, ContextPatch>;
  readonly prompts: AdminResource<Prompt, PromptInput, PromptPatch> & {
    /** POST /api/prompts/{id}/versions. */
    addVersion(id: string, input: PromptVersionInput, options?: WriteOptions): Promise<Result<Prompt>>;
  };
  readonly secrets: Omit<AdminResource<Secret, SecretInput, SecretPatch>, 'get'>;
  readonly apiKeys: {
    create(input: ApiKeyInput): Promise<Result<ApiKeyCreated>>;
    list(): Promise<Result<ApiKey[]>>;
    revoke(id: string, options?: WriteOptions): Promise<Result<null>>;
  };

  private readonly connection: ConnectionOptions;
  private readonly promptTtlMs: number;
  private readonly clock: () => number;
  private readonly cache: PromptCache<CompiledPrompt>;
  /** Why promptCacheSize cannot work (NaN would leave the cache unbounded), answered by getPrompt; checked once, here. */
  private readonly cacheSizeError: string | undefined;
  /** One request per cache key at a time: concurrent misses and refreshes share it. */
  private readonly inflight = new Map<string, Promise<Outcome>>();

  constructor(options: ClientOptions = {}) {
    const { promptTtlMs, promptCacheSize, clock, ...connection } = options;
    this.connection = connection;
    this.promptTtlMs = promptTtlMs ?? DEFAULT_PROMPT_TTL_MS;
    this.clock = clock ?? Date.now;
    const capacity = promptCacheSize ?? DEFAULT_PROMPT_CACHE_SIZE;
    this.cacheSizeError = (Number.isInteger(capacity) && capacity >= 0) || capacity === Infinity ? undefined
      : `promptCacheSize must be a whole number of answers (0 or more), not ${String(capacity)}`;
    this.cache = new PromptCache(capacity);
    const call = (request: Request) => send(this.connection, request);
    this.rules = adminResource(call, '/api/rule-engine/rules', 'rules');
    this.contexts = adminResource(call, '/api/contexts', 'contexts');
    this.prompts = {
      ...adminResource<Prompt, PromptInput, PromptPatch>(call, '/api/prompts', 'prompts'),
      addVersion: (id, input, write) => call({ method: 'POST', path: `/api/prompts/${encodeURIComponent(id)}/versions`, body: input, headers: ifMatch(write) }).then(record<Prompt>),
    };
    const { get: _get, ...secrets } = adminResource<Secret, SecretInput, SecretPatch>(call, '/api/vault/secrets', 'secrets');
    this.secrets = secrets;
    this.apiKeys = {
      create: (input) => call({ method: 'POST', path: '/api/api-keys', body: input }).then(record<ApiKeyCreated>),
      list: () => call({ method: 'GET', path: '/api/api-keys' }).then((outcome) => listed<ApiKey>(outcome, 'api_keys')),
      revoke: (id, write) => call({ method: 'DELETE', path: `/api/api-keys/${encodeURIComponent(id)}`, headers: ifMatch(write) }).then(deleted),
    };
  }

  async getSecrets(request: GetSecretsRequest = {}): Promise<GetSecretsResult> {
    const body: { key?: string; tags?: readonly string[] } = {};
    if (request.key !== undefined) body.key = request.key;
    if (request.tags !== undefined) body.tags = request.tags;
    const outcome = await send(this.connection, { method: 'POST', path: '/api/vault/get-secrets', body });
    if (!outcome.ok) return { ...failed(outcome.failure), res: null };
    const refusal = answeredRefusal(outcome.json);
    if (refusal !== undefined) return { ...failed(refusal), res: null };
    const res = (outcome.json as { res?: unknown }).res;
    if (typeof res !== 'object' || res === null) return { err: UNEXPECTED, res: null };
    const secrets = res as Record<string, string>;
    if (request.shouldSetEnv) for (const [key, value] of Object.entries(secrets)) process.env[key] = value;
    return { err: null, res: secrets };
  }

  async evaluate(request: EvaluateRequest): Promise<EvaluateResult> {
    const outcome = await send(this.connection, { method: 'POST', path: '/api/rule-engine/evaluate', body: request });
    if (!outcome.ok) return failed(outcome.failure);
    const refusal = answeredRefusal(outcome.json);
    if (refusal !== undefined) return failed(refusal);
    const json = outcome.json as EvaluateResponse;
    if (!Array.isArray(json.matchingRuleIds)) return { err: UNEXPECTED };
    const { matchingRuleIds, entities, entity_data } = json;
    return { err: null, matchingRuleIds, entities, ...(entity_data !== undefined ? { entity_data } : {}) };
  }

  /**
   * A prompt by name or id, at a version or label, rendered with `variables`,
   * through POST /api/prompt/get-compiled. Answers are cached for `ttlMs`;
   * past that the cached answer is returned at once and refreshed in the
   * background. When the service cannot be reached the last answer is served
   * (`source: 'stale'`, with `lastError`), or else the fallback.
   */
  async getPrompt(prompt: PromptRef, options: GetPromptOptions = {}): Promise<GetPromptResult> {
    const body = promptRequest(prompt, options);
    const ttlMs = options.ttlMs ?? this.promptTtlMs;
    const setting = this.cacheSizeError ?? ttlSettingError(ttlMs);
    // A mistake in the settings, not an outage: no fallback.
    if (setting !== undefined) return this.unavailable({ message: setting, transient: false }, options.fallback);
    if (ttlMs <= 0) return this.answerFetched(await this.fetchPrompt(body), options.fallback);
    let key: string;
    try {
      key = cacheKey([body]);
    } catch (error) {
      // A BigInt or a cycle in the variables: the caller's mistake, not an outage.
      return this.unavailable({ message: `the prompt request cannot be sent as JSON: ${describeCause(error)}`, transient: false }, options.fallback);
    }
    const found = this.cache.lookup(key, this.clock(), ttlMs);
    if (found.kind === 'fresh') return this.served('cache', found.entry);
    if (found.kind === 'stale') {
      void this.sharedFetch(key, body);
      return this.served('stale', found.entry);
    }
    const outcome = await this.sharedFetch(key, body);
    return this.answerFetched(outcome, options.fallback);
  }

  /** Resolves once no background prompt refresh is running (for tests and orderly shutdown). */
  async whenIdle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight.values()]);
  }

  /** The one request for a cache key, applying its outcome to the cache once. */
  private sharedFetch(key: string, body: PromptRequestBody): Promise<Outcome> {
    const running = this.inflight.get(key);
    if (running !== undefined) return running;
    const request = this.fetchPrompt(body).then((outcome) => {
      if (outcome.ok) this.cache.store(key, outcome.json as CompiledPrompt, this.clock());
      else if (outcome.failure.transient) this.cache.failed(key, outcome.failure.message);
      else this.cache.drop(key);
      return outcome;
    }).finally(() => this.inflight.delete(key));
    this.inflight.set(key, request);
    return request;
  }

  /** The route's answer, with `res` checked: `ok` only for a usable prompt. */
  private async fetchPrompt(body: PromptRequestBody): Promise<Outcome> {
    const outcome = await send(this.connection, { method: 'POST', path: '/api/prompt/get-compiled', body });
    if (!outcome.ok) return outcome;
    const refusal = answeredRefusal(outcome.json);
    if (refusal !== undefined) return { ok: false, failure: refusal };
    const res = (outcome.json as { res?: unknown }).res;
    if (!isCompiledPrompt(res)) return { ok: false, failure: { message: `${UNEXPECTED} at /api/prompt/get-compiled`, transient: true } };
    return { ...outcome, json: res };
  }

  private answerFetched(outcome: Outcome, fallback: string | undefined): GetPromptResult {
    if (outcome.ok) return { err: null, source: 'service', res: outcome.json as CompiledPrompt, ageMs: 0, lastError: null };
    return this.unavailable(outcome.failure, fallback);
  }

  private unavailable(failure: Failure, fallback: string | undefined): GetPromptResult {
    if (failure.transient && fallback !== undefined) {
      return { err: null, source: 'fallback', res: { prompt: fallback, compiledPrompt: fallback, isFallback: true }, ageMs: null, lastError: failure.message };
    }
    return { ...failed(failure), source: null, res: null, ageMs: null, lastError: null };
  }

  private served(source: 'cache' | 'stale', entry: CacheEntry<CompiledPrompt>): GetPromptResult {
    return { err: null, source, res: entry.value, ageMs: Math.max(0, this.clock() - entry.fetchedAt), lastError: entry.lastError };
  }
}

interface PromptRequestBody {
  readonly name?: string;
  readonly id?: string;
  readonly version?: string;
  readonly label?: string;
  readonly variables?: Readonly<Record<string, unknown>>;
  readonly shouldCompile: boolean;
}

/** Why a TTL cannot work (NaN would make every answer stale); undefined when it can. */
function ttlSettingError(ttlMs: number): string | undefined {
  return typeof ttlMs === 'number' && !Number.isNaN(ttlMs) ? undefined : `ttlMs (or promptTtlMs) must be a number of milliseconds (0: no cache), not ${String(ttlMs)}`;
}

function promptRequest(prompt: PromptRef, options: GetPromptOptions): PromptRequestBody {
  const which = typeof prompt === 'string' ? { name: prompt } : 'id' in prompt ? { id: prompt.id } : { name: prompt.name };
  return {
    ...which,
    ...(options.version === undefined ? {} : { version: options.version }),
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.variables === undefined ? {} : { variables: options.variables }),
    shouldCompile: options.shouldCompile ?? true,
  };
}

function isCompiledPrompt(value: unknown): value is CompiledPrompt {
  if (typeof value !== 'object' || value === null) return false;
  const prompt = value as Record<string, unknown>;
  const text = (part: unknown): boolean => typeof part === 'string' || Array.isArray(part);
  return text(prompt.prompt) && text(prompt.compiledPrompt) && typeof prompt.name === 'string';
}

// ---- admin helpers -------------------------------------------------------------

export interface WriteOptions {
  /** The revision the change is based on (the record's `revision`); the service answers 409 when it moved on. */
  readonly ifMatch?: string;
}

export interface AdminResource<R, I, P> {
  create(input: I): Promise<Result<R>>;
  list(): Promise<Result<R[]>>;
  get(id: string): Promise<Result<R>>;
  update(id: string, patch: P, options?: WriteOptions): Promise<Result<R>>;
  remove(id: string, options?: WriteOptions): Promise<Result<null>>;
}

type Call = (request: Request) => Promise<Outcome>;

/** The CRUD calls of one admin resource family (they follow one pattern on the server too). */
function adminResource<R, I, P>(call: Call, base: string, listMember: string): AdminResource<R, I, P> {
  const at = (id: string) => `${base}/${encodeURIComponent(id)}`;
  return {
    create: (input) => call({ method: 'POST', path: base, body: input }).then(record<R>),
    list: () => call({ method: 'GET', path: base }).then((outcome) => listed<R>(outcome, listMember)),
    get: (id) => call({ method: 'GET', path: at(id) }).then(record<R>),
    update: (id, patch, write) => call({ method: 'PATCH', path: at(id), body: patch, headers: ifMatch(write) }).then(record<R>),
    remove: (id, write) => call({ method: 'DELETE', path: at(id), headers: ifMatch(write) }).then(deleted),
  };
}

function ifMatch(write: WriteOptions | undefined): Record<string, string> {
  return write?.ifMatch === undefined ? {} : { 'If-Match': write.ifMatch };
}

/** A failure as a result's `err` and FailureDetail. */
function failed(failure: Failure): { err: string } & FailureDetail {
  const { message, code, status } = failure;
  return { err: message, ...(code === undefined ? {} : { code }), ...(status === undefined ? {} : { status }) };
}

/** The service's refusal in a success status's body (`err`, and `code`): get-secrets' and get-compiled's failures, answered 200. */
function answeredRefusal(json: unknown): Failure | undefined {
  const message = errorText(json);
  if (message === undefined) return undefined;
  const code = errorCode(json);
  return { message, transient: false, ...(code === undefined ? {} : { code }) };
}

function record<R>(outcome: Outcome): Result<R> {
  if (!outcome.ok) return { ...failed(outcome.failure), res: null };
  if (typeof outcome.json !== 'object' || outcome.json === null) return { err: UNEXPECTED, res: null };
  return { err: null, res: outcome.json as R };
}

function listed<R>(outcome: Outcome, member: string): Result<R[]> {
  if (!outcome.ok) return { ...failed(outcome.failure), res: null };
  const items = (outcome.json as Record<string, unknown> | null)?.[member];
  return Array.isArray(items) ? { err: null, res: items as R[] } : { err: UNEXPECTED, res: null };
}

function deleted(outcome: Outcome): Result<null> {
  return outcome.ok ? { err: null, res: null } : { ...failed(outcome.failure), res: null };
}
