/**
 * The RuleVault client, packaged on its own as @rulevault/client
 * (scripts/client-package.ts): no server dependency may be imported from
 * here. URL and key fall back to RULEVAULT_URL and RULEVAULT_API_KEY.
 * Failures come back as `{ err }` naming their cause; nothing here throws.
 *
 * `getSecrets` and `evaluate` are the one-call forms; `RuleVaultClient`
 * keeps settings and the prompt cache, and has the admin helpers.
 */
import type { EvaluateRequest } from './api-types';
import { RuleVaultClient, type EvaluateResult, type GetSecretsRequest, type GetSecretsResult } from './client';
import type { ConnectionOptions } from './transport';

export type * from './api-types';
export {
  RuleVaultClient,
  type AdminResource, type ClientOptions, type CompiledPrompt, type EvaluateResult, type FailureDetail, type GetPromptOptions, type GetPromptResult,
  type GetSecretsRequest, type GetSecretsResult, type PromptRef, type PromptSource, type Result, type WriteOptions,
} from './client';
export type { ConnectionOptions, ErrorCode } from './transport';

export interface GetSecretsOptions extends ConnectionOptions, GetSecretsRequest {}
export type EvaluateOptions = ConnectionOptions & EvaluateRequest;

export async function getSecrets(options: GetSecretsOptions = {}): Promise<GetSecretsResult> {
  const { url, apiKey, timeoutMs, ...request } = options;
  return new RuleVaultClient({ url, apiKey, timeoutMs }).getSecrets(request);
}

export async function evaluate(options: EvaluateOptions): Promise<EvaluateResult> {
  const { url, apiKey, timeoutMs, ...request } = options;
  return new RuleVaultClient({ url, apiKey, timeoutMs }).evaluate(request);
}
export { createLocalEvaluator, type LocalEvaluateRequest, type LocalEvaluateResult, type LocalEvaluator, type LocalEvaluatorOptions } from './local';
