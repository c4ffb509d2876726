/** The package's public entry: the client library. */
export { evaluate, getSecrets } from './client';
export type { ClientOptions, EvaluateOptions, EvaluateResult, GetSecretsOptions, GetSecretsResult } from './client';
