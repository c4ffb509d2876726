/**
 * The RuleVault client: `getSecrets` and `evaluate` over HTTP. URL and key
 * fall back to RULEVAULT_URL and RULEVAULT_API_KEY. Failures come back as
 * `{ err }` the way the server reports them; nothing here throws.
 */

export interface ClientOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:3000; default RULEVAULT_URL. */
  readonly url?: string;
  /** API key; default RULEVAULT_API_KEY. */
  readonly apiKey?: string;
  /** Request timeout in milliseconds (default 10 s). */
  readonly timeoutMs?: number;
}

export interface GetSecretsOptions extends ClientOptions {
  readonly key?: string;
  readonly tags?: readonly string[];
  /** Also set each returned secret in process.env; request and response are unchanged. */
  readonly shouldSetEnv?: boolean;
}

export type GetSecretsResult = { err: null; res: Record<string, string> } | { err: string; res: null };

export interface EvaluateOptions extends ClientOptions {
  readonly entity_type: 'context' | 'prompt' | 'evaluation';
  readonly fields: Readonly<Record<string, string | number | boolean>>;
  readonly include_entity_data?: boolean;
  readonly entity_inputs?: {
    readonly variables?: Readonly<Record<string, unknown>>;
    readonly version?: string;
    readonly shouldCompile?: boolean;
  };
}

export interface EvaluateAnswer {
  readonly matchingRuleIds: string[];
  readonly entities: { rule_id: string; entity_type: string; entity_id: string }[];
  readonly entity_data?: Record<string, unknown>;
}

export type EvaluateResult = ({ err: null } & EvaluateAnswer) | { err: string };

export async function getSecrets(options: GetSecretsOptions = {}): Promise<GetSecretsResult> {
  const body: { key?: string; tags?: readonly string[] } = {};
  if (options.key !== undefined) body.key = options.key;
  if (options.tags !== undefined) body.tags = options.tags;
  const answer = await post(options, '/api/vault/get-secrets', body);
  if ('failure' in answer) return { err: answer.failure, res: null };
  const { err, res } = answer.json as { err?: unknown; res?: unknown };
  if (typeof err === 'string') return { err, res: null };
  if (typeof res !== 'object' || res === null) return { err: 'unexpected answer from RuleVault', res: null };
  const secrets = res as Record<string, string>;
  if (options.shouldSetEnv) for (const [key, value] of Object.entries(secrets)) process.env[key] = value;
  return { err: null, res: secrets };
}

export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const { url: _url, apiKey: _apiKey, timeoutMs: _timeout, ...body } = options;
  const answer = await post(options, '/api/rule-engine/evaluate', body);
  if ('failure' in answer) return { err: answer.failure };
  const json = answer.json as { err?: unknown } & EvaluateAnswer;
  if (typeof json.err === 'string') return { err: json.err };
  if (!Array.isArray(json.matchingRuleIds)) return { err: 'unexpected answer from RuleVault' };
  const { matchingRuleIds, entities, entity_data } = json;
  return { err: null, matchingRuleIds, entities, ...(entity_data !== undefined ? { entity_data } : {}) };
}

async function post(options: ClientOptions, path: string, body: unknown): Promise<{ json: unknown } | { failure: string }> {
  const base = options.url ?? process.env.RULEVAULT_URL;
  const apiKey = options.apiKey ?? process.env.RULEVAULT_API_KEY;
  if (base === undefined || base === '') return { failure: 'no RuleVault URL: pass url or set RULEVAULT_URL' };
  if (apiKey === undefined || apiKey === '') return { failure: 'no API key: pass apiKey or set RULEVAULT_API_KEY' };
  let response: Response;
  try {
    response = await fetch(new URL(path, base), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    return { failure: `RuleVault is unreachable: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    return { json: await response.json() };
  } catch {
    return { failure: `RuleVault answered ${response.status} without a JSON body` };
  }
}
export { createLocalEvaluator, type LocalEvaluateRequest, type LocalEvaluateResult, type LocalEvaluator, type LocalEvaluatorOptions } from './local';
