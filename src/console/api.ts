/**
 * Every call the console makes to the API, in one module, typed from the
 * OpenAPI document (api-types.ts, generated). The key travels only in the
 * Authorization header. Lists are read a page at a time with the server's
 * cursor and filters (`listPage`); `listAll` walks the pages for the few
 * small catalogs a page needs whole (contexts and prompts to link by name).
 * The test panel and the prompt preview ask the dry-run endpoint, so the
 * server evaluates and renders exactly as it will once saved.
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
export type ChainStatus = Schemas['ChainStatus'];
export type SignedCheckpoint = Schemas['SignedCheckpoint'];
export type DecisionRecord = Schemas['DecisionRecord'];
/** Written instead of a record that could not be serialized: no request, nothing to replay. */
export type DecisionStandIn = Schemas['DecisionStandIn'];
export type DecisionReplay = Schemas['DecisionReplay'];
export type SecretRead = Schemas['SecretReadPage']['reads'][number];
export type EntityType = EvaluateRequest['entity_type'];
export type DryRunRequest = Schemas['DryRunRequest'];
export type DryRunResponse = Schemas['DryRunResponse'];
export type DraftRule = NonNullable<DryRunRequest['rules']>[number];
export type DryRunExplanation = Schemas['DryRunExplanation'];
export type PromptRecord = Schemas['PromptRecord'];
export type PromptHistory = Schemas['PromptHistory'];
export type ChangeRequest = Schemas['ChangeRequest'];
/** One request as GET of it answers: each change with its `before`. */
export type ChangeRequestRead = Schemas['ChangeRequestRead'];
export type Change = Schemas['Change'];
export type ChangeWithBefore = Schemas['ChangeWithBefore'];
export type ChangeInput = Schemas['ChangeInput'];
export type ChangeRequestState = ChangeRequest['state'];
export type ImpactReport = Schemas['ImpactReport'];
export type TestResults = Schemas['TestResults'];
export type ChangeRequestEvent = Schemas['ChangeRequestHistory']['events'][number];
export type ResourceRef = Schemas['ResourceRef'];
export type Protection = Schemas['Protection'];
/** The rules list's filters and paging, as the OpenAPI document gives them. */
export type RuleQuery = NonNullable<operations['listRules']['parameters']['query']>;

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

/** The answer's text; an error answer throws its ApiError (the body's `err` and `code`). */
async function send(api: Api, method: string, path: string, options: CallOptions = {}): Promise<{ status: number; text: string }> {
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
  const text = response.status === 204 ? '' : await response.text();
  if (!response.ok) {
    const body = (parseOrUndefined(text) ?? {}) as { err?: unknown; code?: unknown };
    const message = typeof body.err === 'string' ? body.err : `HTTP ${response.status}`;
    throw new ApiError(response.status, message, typeof body.code === 'string' ? body.code : undefined);
  }
  return { status: response.status, text };
}

function parseOrUndefined(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function call<T>(api: Api, method: string, path: string, options: CallOptions = {}): Promise<T> {
  const { status, text } = await send(api, method, path, options);
  return (status === 204 ? undefined : parseOrUndefined(text)) as T;
}

/** One page of a list and the cursor of the next (null: the end). */
export interface ListPage<T> {
  readonly items: T[];
  readonly next_cursor: string | null;
}

/** A query string of the parameters that are set (undefined and '' left out). */
function queryString(params: Readonly<Record<string, string | number | boolean | undefined>>): string {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)]));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** One page of a list: the server filters and pages (`limit`, `cursor`, the list's filters). */
async function listPage<K extends string, T>(
  api: Api, path: string, member: K, params: Readonly<Record<string, string | number | boolean | undefined>>,
): Promise<ListPage<T>> {
  const answer = await call<Record<K, T[]> & { next_cursor: string | null }>(api, 'GET', path + queryString(params));
  return { items: answer[member], next_cursor: answer.next_cursor };
}

/** Items per request when a list is read whole: one round trip for most catalogs, bounded answers for big ones. */
const WALK_PAGE = 500;

/** Every item of a list, page by page on the server's cursor. */
async function listAll<K extends string, T>(api: Api, path: string, member: K): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page: ListPage<T> = await listPage<K, T>(api, path, member, { limit: WALK_PAGE, cursor });
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}

const enc = encodeURIComponent;

export const whoami = (api: Api) => call<Whoami>(api, 'GET', '/api/whoami');

/** A page of the rules matching `query` (its filters, `limit`, `cursor`), filtered by the server. */
/** Every rule (the audit's rule picker), walked page by page. */
export const listRules = (api: Api) => listAll<'rules', Rule>(api, '/api/rule-engine/rules', 'rules');
export const rulesPage = (api: Api, query: RuleQuery) => listPage<'rules', Rule>(api, '/api/rule-engine/rules', 'rules', query);
export const getRule = (api: Api, id: string) => call<Rule>(api, 'GET', `/api/rule-engine/rules/${enc(id)}`);
export const createRule = (api: Api, input: RuleInput) => call<Rule>(api, 'POST', '/api/rule-engine/rules', { body: input });
export const updateRule = (api: Api, id: string, patch: Partial<RuleInput>, revision?: string) =>
  call<Rule>(api, 'PATCH', `/api/rule-engine/rules/${enc(id)}`, { body: patch, ifMatch: revision });
export const deleteRule = (api: Api, id: string, revision?: string) =>
  call<void>(api, 'DELETE', `/api/rule-engine/rules/${enc(id)}`, { ifMatch: revision });
/** A rule's whole history (the conflict view reads who wrote after a revision). */
export const ruleHistory = (api: Api, id: string) => call<RuleHistory>(api, 'GET', `/api/rule-engine/rules/${enc(id)}/history`);
/** Events per page of a history. */
const HISTORY_PAGE = 50;
export const ruleHistoryPage = (api: Api, id: string, cursor?: string) =>
  listPage<'events', RuleHistory['events'][number]>(api, `/api/rule-engine/rules/${enc(id)}/history`, 'events', { limit: HISTORY_PAGE, cursor });

export const listContexts = (api: Api) => listAll<'contexts', Context>(api, '/api/contexts', 'contexts');
export const getContext = (api: Api, id: string) => call<Context>(api, 'GET', `/api/contexts/${enc(id)}`);
export const createContext = (api: Api, input: ContextInput) => call<Context>(api, 'POST', '/api/contexts', { body: input });
export const updateContext = (api: Api, id: string, patch: Partial<ContextInput>) => call<Context>(api, 'PATCH', `/api/contexts/${enc(id)}`, { body: patch });
export const deleteContext = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/contexts/${enc(id)}`);

export const listPrompts = (api: Api) => listAll<'prompts', Prompt>(api, '/api/prompts', 'prompts');
export const getPrompt = (api: Api, id: string, version?: string) =>
  call<Prompt>(api, 'GET', `/api/prompts/${enc(id)}${version === undefined ? '' : `?version=${enc(version)}`}`);
export const createPrompt = (api: Api, input: Schemas['PromptInput']) => call<Prompt>(api, 'POST', '/api/prompts', { body: input });
export const addPromptVersion = (api: Api, id: string, input: Schemas['PromptVersionInput']) =>
  call<Prompt>(api, 'POST', `/api/prompts/${enc(id)}/versions`, { body: input });
export const updatePrompt = (api: Api, id: string, patch: Schemas['PromptPatch'], revision?: string) =>
  call<Prompt>(api, 'PATCH', `/api/prompts/${enc(id)}`, { body: patch, ifMatch: revision });
export const deletePrompt = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/prompts/${enc(id)}`);
export const movePromptLabel = (api: Api, id: string, label: string, version: string) =>
  call<Prompt>(api, 'PUT', `/api/prompts/${enc(id)}/labels/${enc(label)}`, { body: { version } });
export const removePromptLabel = (api: Api, id: string, label: string) => call<Prompt>(api, 'DELETE', `/api/prompts/${enc(id)}/labels/${enc(label)}`);
export const promptHistoryPage = (api: Api, id: string, cursor?: string) =>
  listPage<'events', PromptHistory['events'][number]>(api, `/api/prompts/${enc(id)}/history`, 'events', { limit: HISTORY_PAGE, cursor });

export const listSecrets = (api: Api) => listAll<'secrets', Secret>(api, '/api/vault/secrets', 'secrets');
export const createSecret = (api: Api, input: Schemas['SecretInput']) => call<Secret>(api, 'POST', '/api/vault/secrets', { body: input });
export const updateSecret = (api: Api, id: string, patch: Schemas['SecretPatch']) => call<Secret>(api, 'PATCH', `/api/vault/secrets/${enc(id)}`, { body: patch });
export const deleteSecret = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/vault/secrets/${enc(id)}`);

export const listApiKeys = (api: Api) => listAll<'api_keys', ApiKey>(api, '/api/api-keys', 'api_keys');
export const createApiKey = (api: Api, input: ApiKeyInput) => call<ApiKeyCreated>(api, 'POST', '/api/api-keys', { body: input });
export const revokeApiKey = (api: Api, id: string) => call<void>(api, 'DELETE', `/api/api-keys/${enc(id)}`);

export const evaluate = (api: Api, request: EvaluateRequest) => call<EvaluateResponse>(api, 'POST', '/api/rule-engine/evaluate', { body: request });
export const explain = (api: Api, request: Schemas['ExplainRequest']) => call<ExplainResponse>(api, 'POST', '/api/rule-engine/explain', { body: request });

export const dryRun = (api: Api, request: DryRunRequest) => call<DryRunResponse>(api, 'POST', '/api/rule-engine/dry-run', { body: request });

export interface TestAnswer {
  readonly answer: EvaluateResponse;
  readonly explanations: readonly (RuleExplanation | DryRunExplanation)[];
  /** `dry-run`: the server evaluated the drafts beside the live rules; `saved`: evaluate (and explain) of the saved rules only. */
  readonly mode: 'dry-run' | 'saved';
  /** The live log position the dry-run answered at. */
  readonly position?: string | null;
}

/**
 * The test panel's one call. An admin key asks the dry-run endpoint: the
 * drafts (the rule being edited, with its id when it is saved, so it takes
 * the live rule's place) are evaluated beside the live rules, each explained
 * with what decided it, and nothing is written. A key without admin falls back
 * to evaluate (and explain, with that scope) of the saved rules; the panel
 * says so.
 */
export async function testRule(api: Api, scopes: readonly Scope[], request: EvaluateRequest, drafts: readonly DraftRule[], ruleIds: readonly string[]): Promise<TestAnswer> {
  if (scopes.includes('admin')) {
    const answer = await dryRun(api, { ...request, rules: [...drafts] });
    return { answer, explanations: answer.explain, mode: 'dry-run', position: answer.position };
  }
  const [answer, explained] = await Promise.all([
    evaluate(api, request),
    scopes.includes('explain') ? explain(api, { ...request, rule_ids: [...ruleIds] }) : Promise.resolve(undefined),
  ]);
  return { answer, explanations: explained?.rules ?? [], mode: 'saved' };
}

/** The field the preview's draft rule matches on: a name no caller's fields use by chance. */
const PREVIEW_FIELD = 'rulevault.console.preview';

/**
 * A prompt version rendered by the server, exactly as evaluate renders it
 * (same Handlebars, helpers and limits): a dry-run whose only draft rule
 * matches and links the prompt, with the variables as entity_inputs. Nothing
 * is written. `undefined` when the server served no record (an INACTIVE
 * prompt drops out of evaluate answers).
 */
export async function renderPrompt(api: Api, id: string, version: string, variables: Readonly<Record<string, unknown>>): Promise<PromptRecord | undefined> {
  const answer = await dryRun(api, {
    entity_type: 'prompt',
    fields: { [PREVIEW_FIELD]: 'yes' },
    include_entity_data: true,
    entity_inputs: { version, variables: variables as Record<string, never>, shouldCompile: true },
    rules: [{
      name: 'console preview',
      condition_groups: [{ conditions: [{ field: PREVIEW_FIELD, operator: 'equals', value: 'yes' }] }],
      entities: [{ entity_type: 'prompt', entity_id: id }],
    }],
  });
  const record = answer.entity_data?.[`prompt:${id}`];
  return record === null || record === undefined ? undefined : (record as PromptRecord);
}

/** The event log's query parameters, as the OpenAPI document gives them. */
export type EventFilter = NonNullable<operations['auditEvents']['parameters']['query']>;

export function auditEvents(api: Api, filter: EventFilter): Promise<AuditPage> {
  return call<AuditPage>(api, 'GET', `/api/audit/events${queryString(filter)}`);
}
export const auditEvaluate = (api: Api, request: AuditEvaluateRequest) => call<AuditEvaluateResponse>(api, 'POST', '/api/audit/evaluate', { body: request });
export const auditDigest = (api: Api) => call<Digest>(api, 'GET', '/api/audit/digest');

/** The hash chain of the live store: the last verification, the signing key, the checkpoints. */
export const chainStatus = (api: Api) => call<ChainStatus>(api, 'GET', '/api/audit/chain');
/** Starts a verification (or joins the one running); poll `chainStatus` until `running` is false. */
export const startChainVerify = (api: Api, full: boolean) => call<ChainStatus>(api, 'POST', '/api/audit/chain/verify', { body: full ? { full: true } : {} });
export const signCheckpoint = (api: Api) => call<SignedCheckpoint>(api, 'POST', '/api/audit/chain/checkpoints');

export const decisionRecord = (api: Api, id: string) => call<DecisionRecord | DecisionStandIn>(api, 'GET', `/api/audit/decisions/${enc(id)}`);
/** The record replayed at its own position, or at `asOf` (`head`: the log now). */
/** The decision's evidence file as the service answers it, byte for byte: what `rulevault audit verify-evidence` checks. */
export const decisionEvidenceText = async (api: Api, id: string) => (await send(api, 'GET', `/api/audit/decisions/${enc(id)}/evidence`)).text;
export const decisionReplay = (api: Api, id: string, asOf?: string) => call<DecisionReplay>(api, 'GET', `/api/audit/decisions/${enc(id)}/replay${queryString({ as_of: asOf })}`);

/** The secret-read audit's filters, as the OpenAPI document gives them. */
export type SecretReadFilter = Omit<NonNullable<operations['auditSecretReads']['parameters']['query']>, 'limit' | 'cursor'>;
/** Reads per page of the secret-read audit. */
const READS_PAGE = 50;
export const secretReadsPage = (api: Api, filter: SecretReadFilter, cursor?: string) =>
  listPage<'reads', SecretRead>(api, '/api/audit/secret-reads', 'reads', { ...filter, limit: READS_PAGE, cursor });

/** Change requests per page of the list. */
const REQUESTS_PAGE = 50;
export const changeRequestsPage = (api: Api, state: ChangeRequestState | undefined, cursor?: string) =>
  listPage<'change_requests', ChangeRequest>(api, '/api/change-requests', 'change_requests', { state, limit: REQUESTS_PAGE, cursor });
export const getChangeRequest = (api: Api, id: string) => call<ChangeRequestRead>(api, 'GET', `/api/change-requests/${enc(id)}`);
export const openChangeRequest = (api: Api, input: Schemas['ChangeRequestInput']) => call<ChangeRequest>(api, 'POST', '/api/change-requests', { body: input });
export const changeRequestHistoryPage = (api: Api, id: string, cursor?: string) =>
  listPage<'events', ChangeRequestEvent>(api, `/api/change-requests/${enc(id)}/history`, 'events', { limit: HISTORY_PAGE, cursor });
/** A step of a request's review (`submit`, `reject`, `withdraw`, `comments`, `apply`, `revert`) with its body. */
export const changeRequestStep = (api: Api, id: string, step: 'submit' | 'reject' | 'withdraw' | 'comments' | 'apply' | 'revert', body: object = {}) =>
  call<ChangeRequest>(api, 'POST', `/api/change-requests/${enc(id)}/${step}`, { body });
/** Approves the revision read: If-Match names it, so a request that moved since is a 409; `override` approves although test cases fail. */
export const approveChangeRequest = (api: Api, id: string, revision: string, override?: string) =>
  call<ChangeRequest>(api, 'POST', `/api/change-requests/${enc(id)}/approve`, { body: override === undefined ? {} : { override }, ifMatch: revision });
/** What the request would do to the recorded decisions of the last 7 days. */
export const changeRequestImpact = (api: Api, id: string) => call<ImpactReport>(api, 'GET', `/api/change-requests/${enc(id)}/impact`);
/** The test cases run against the catalog the request would produce. */
export const changeRequestTestResults = (api: Api, id: string) => call<TestResults>(api, 'GET', `/api/change-requests/${enc(id)}/test-results`);

export const listProtections = async (api: Api) => (await call<Schemas['ProtectionList']>(api, 'GET', '/api/protections')).protections;
export const protect = (api: Api, resource: Schemas['ResourceRefInput']) => call<Protection>(api, 'PUT', '/api/protections', { body: { resource } });
