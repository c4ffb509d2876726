/**
 * Writes from a worker process run in the writer: the worker's command
 * objects are stand-ins whose methods send the call (its arguments are the
 * parsed request body, ids, If-Match and the actor: plain data) to the writer,
 * which runs the real command and answers once every worker has applied it.
 * One decider, one command bus, one data-folder lock: the same guarantees as
 * one process (409 on a stale If-Match, unique prompt names and secret keys).
 */
import type { WriteCommands } from '../http/deps';

/** The methods the HTTP layer calls, per command object; only these cross (test/cluster/forwarded.test.ts checks the routes use no other). */
export const FORWARDED_METHODS = {
  catalog: [
    'createRule', 'updateRule', 'deleteRule', 'createContext', 'updateContext', 'deleteContext',
    'createPrompt', 'addPromptVersion', 'updatePrompt', 'deletePrompt', 'movePromptLabel', 'removePromptLabel',
  ],
  // The erasures' background steps run in the writer: a worker's /readyz asks it what is left.
  vault: ['createSecret', 'updateSecret', 'deleteSecret', 'erasureBacklog'],
  apiKeys: ['createApiKey', 'revokeApiKey'],
  imports: ['importText'],
  // The chain's verification state and its checkpoints live in the writer (src/audit/chain-audit.ts): every call crosses.
  chain: ['status', 'verify', 'checkpoint'],
  changeRequests: [
    'openChangeRequest', 'reviseChangeRequest', 'submitChangeRequest', 'approveChangeRequest', 'rejectChangeRequest',
    'withdrawChangeRequest', 'commentChangeRequest', 'applyChangeRequest', 'revertChangeRequest', 'protect',
  ],
} as const satisfies { readonly [S in keyof WriteCommands]: readonly (keyof WriteCommands[S])[] };

export type CommandService = keyof typeof FORWARDED_METHODS;

/** What crosses for one forwarded call. */
export interface ForwardedCall {
  readonly service: CommandService;
  readonly method: string;
  readonly args: readonly unknown[];
}

/** The worker's command objects: each listed method sends its call through `send`. */
export function forwardingCommands(send: (call: ForwardedCall) => Promise<unknown>): WriteCommands {
  const forwarding = (service: CommandService): Record<string, (...args: unknown[]) => Promise<unknown>> =>
    Object.fromEntries(FORWARDED_METHODS[service].map((method) => [method, (...args: unknown[]) => send({ service, method, args })]));
  // Only the forwarded methods exist on these objects; the HTTP layer calls no others (the test above keeps it so).
  return {
    catalog: forwarding('catalog'),
    vault: forwarding('vault'),
    apiKeys: forwarding('apiKeys'),
    imports: forwarding('imports'),
    chain: forwarding('chain'),
    changeRequests: forwarding('changeRequests'),
  } as unknown as WriteCommands;
}

/** The writer's side: runs a forwarded call on its own command objects, refusing any method not listed. */
export function runForwarded(commands: WriteCommands, call: ForwardedCall): Promise<unknown> {
  const allowed: readonly string[] | undefined = FORWARDED_METHODS[call.service];
  if (allowed === undefined || !allowed.includes(call.method) || !Array.isArray(call.args)) {
    return Promise.reject(new Error(`not a forwarded command: ${String(call.service)}.${String(call.method)}`));
  }
  const target = commands[call.service] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  return Promise.resolve().then(() => target[call.method]!(...call.args));
}
