/**
 * Every call the console makes to the API, in one module, typed from the
 * OpenAPI document (api-types.ts, generated). The key travels only in the
 * Authorization header. Lists are read through `listAll`, and testing a draft
 * through `testRule`: the two places that change when cursor paging and the
 * dry-run endpoint arrive.
 */
import type { components, operations } from './api-types';

type Schemas = components['schemas'];
export type Rule = Schemas['Rule'];
export type RuleInput = Schemas['RuleInput'];
export type Condition = Rule['condition_groups'][number]['conditions'][number];
export type ConditionGroup = Rule['condition_groups'][number];
export type Context = Schemas['Context'];
export type ContextInput = Schemas['ContextInput'];
export type Prompt = Schemas['Prompt'];
export type Secret = Schemas['Secret'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type ApiKeyInput = Schemas['ApiKeyInput'];
export type Whoami = Schemas['Whoami'];
export type Scope = Whoami['scopes'][number];
export type EvaluateRequest = Schemas['EvaluateRequest'];
export type EvaluateResponse = Schemas['EvaluateResponse'];
export type ExplainResponse = Schemas['ExplainResponse'];
export type RuleExplanation = Schemas['RuleExplanation'];
export type RuleHistory = Schemas['RuleHistory'];
export type AuditPage = Schemas['AuditPage'];
export type AuditEvaluateRequest = Schemas['AuditEvaluateRequest'];
export type AuditEvaluateResponse = Schemas['AuditEvaluateResponse'];
export type Digest = Schemas['Digest'];
export type EntityType = EvaluateRequest['entity_type'];

/** An answer other than 2xx: the status, the API's `err`, and its `code` once the API sends one. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly code?: string) {
    super(message);
  }
}

export interface Api {
  readonly key: string;
}

interface CallOptions {
  readonly body?: unknown;
  readonly ifMatch?: string;
}

async function call<T>(api: Api, method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${api.key}` };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.ifMatch !== undefined) headers['If-Match'] = options.ifMatch;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'the service could not be reached');
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const body = (parsed ?? {}) as { err?: unknown; code?: unknown };
    const message = typeof body.err === 'string' ? body.err : `HTTP ${response.status}`;
    throw new ApiError(response.status, message, typeof body.code === 'string' ? body.code : undefined);
  }
  return parsed as T;
}

/**
 * Every item of a list. Today's lists answer everything at once; with cursor
 * paging this loops on the next cursor (or the page view asks for one page).
 */
async function listAll<K extends string, T>(api: Api, path: string, member: K): Promise<T[]> {
  const answer = await call<Record<K, T[]>>(api, 'GET', path);
  return answer[member];
}

const enc = encodeURIComponent;

export const whoami = (api: Api) => call<Whoami>(api, 'GET', '/api/whoami');

export const listRules = (api: Api) => listAll<'rules', Rule>(api, '/api/rule-engine/rules', 'rules');
export const getRule = (api: Api, id: string) => call<Rule>(api, 'GET', `/api/rule-engine/rules/${enc(id)}`);
export const createRule = (api: Api, input: RuleInput) => call<Rule>(api, 'POST', '/api/rule-engine/rules', { body: input });
export const updateRule = (api: Api, id: string, patch: Partial<RuleInput>, revision?: string) =>
  call<Rule>(api, 'PATCH', `/api/rule-engine/rules/${enc(id)}`, { body: patch, ifMatch: revision });
export const deleteRule = (api: Api, id: string, revision?: string) =>
  call<void>(api, 'DELETE', `/api/rule-engine/rules/${enc(id)}`, { ifMatch: revision });
export const ruleHistory = (api: Api, id: string) => call<RuleHistory>(api, 'GET', `/api/rule-engine/rules/${enc(id)}/history`);

export const listContexts = (api: Api) => listAll<'contexts', Context>(api, '/api/contexts', 'contexts');
export const createContext = (api: Api, input: ContextInput) => call<Context>(api, 'POST', '/api/contexts', { body: input });
export const updateContext = (api: Api, id: string, patch: Partial<ContextInput>) => call<Context>(api, 'PATCH', `/api/contexts/${enc(id)}`, { body: patch });
export const deleteContext = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/contexts/${enc(id)}`);

export const listPrompts = (api: Api) => listAll<'prompts', Prompt>(api, '/api/prompts', 'prompts');
export const getPrompt = (api: Api, id: string, version?: string) =>
  call<Prompt>(api, 'GET', `/api/prompts/${enc(id)}${version === undefined ? '' : `?version=${enc(version)}`}`);
export const createPrompt = (api: Api, input: Schemas['PromptInput']) => call<Prompt>(api, 'POST', '/api/prompts', { body: input });
export const addPromptVersion = (api: Api, id: string, input: Schemas['PromptVersionInput']) =>
  call<Prompt>(api, 'POST', `/api/prompts/${enc(id)}/versions`, { body: input });
export const deletePrompt = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/prompts/${enc(id)}`);

export const listSecrets = (api: Api) => listAll<'secrets', Secret>(api, '/api/vault/secrets', 'secrets');
export const createSecret = (api: Api, input: Schemas['SecretInput']) => call<Secret>(api, 'POST', '/api/vault/secrets', { body: input });
export const updateSecret = (api: Api, id: string, patch: Schemas['SecretPatch']) => call<Secret>(api, 'PATCH', `/api/vault/secrets/${enc(id)}`, { body: patch });
export const deleteSecret = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/vault/secrets/${enc(id)}`);

export const listApiKeys = (api: Api) => listAll<'api_keys', ApiKey>(api, '/api/api-keys', 'api_keys');
export const createApiKey = (api: Api, input: ApiKeyInput) => call<ApiKeyCreated>(api, 'POST', '/api/api-keys', { body: input });
export const revokeApiKey = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/api-keys/${enc(id)}`);

export const evaluate = (api: Api, request: EvaluateRequest) => call<EvaluateResponse>(api, 'POST', '/api/rule-engine/evaluate', { body: request });
export const explain = (api: Api, request: Schemas['ExplainRequest']) => call<ExplainResponse>(api, 'POST', '/api/rule-engine/explain', { body: request });

export interface TestAnswer {
  readonly answer: EvaluateResponse;
  readonly explanations: RuleExplanation[];
  /** Set when the answer came from the audit's evaluate at the live log position (a key without the evaluate scope). */
  readonly position?: string | null;
}

/**
 * The test panel's one call: the evaluate answer plus, per rule, which
 * conditions held. A key with the evaluate scope calls evaluate and explain;
 * an admin key without it asks the audit's evaluate as of the live position
 * (from /readyz), which answers both at once. Today the rules must be saved
 * (they are named by id); with the dry-run endpoint the drafts go in `rules`
 * and nothing is saved.
 */
export async function testRule(api: Api, scopes: readonly Scope[], request: EvaluateRequest, ruleIds: readonly string[]): Promise<TestAnswer> {
  if (!scopes.includes('evaluate') && scopes.includes('admin')) {
    const ready = await call<{ position: string | null }>(api, 'GET', '/readyz');
    const answer = await auditEvaluate(api, { ...request, as_of: ready.position ?? '0', explain: true, rule_ids: [...ruleIds] });
    return { answer, explanations: answer.explain ?? [], position: answer.as_of.position };
  }
  const explains = scopes.includes('explain') || scopes.includes('admin');
  const [answer, explained] = await Promise.all([
    evaluate(api, request),
    explains ? explain(api, { ...request, rule_ids: [...ruleIds] }) : Promise.resolve(undefined),
  ]);
  return { answer, explanations: explained?.rules ?? [] };
}

/** The event log's query parameters, as the OpenAPI document gives them. */
export type EventFilter = NonNullable<operations['auditEvents']['parameters']['query']>;

export function auditEvents(api: Api, filter: EventFilter): Promise<AuditPage> {
  const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)]));
  return call<AuditPage>(api, 'GET', `/api/audit/events?${query.toString()}`);
}
export const auditEvaluate = (api: Api, request: AuditEvaluateRequest) => call<AuditEvaluateResponse>(api, 'POST', '/api/audit/evaluate', { body: request });
export const auditDigest = (api: Api) => call<Digest>(api, 'GET', '/api/audit/digest');
