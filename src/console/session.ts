/**
 * The signed-in key: kept in sessionStorage only (gone when the tab closes;
 * never localStorage, a cookie or a URL), with what /api/whoami said of it.
 */
import type { Scope, Whoami } from './api';

const STORAGE_KEY = 'rulevault.console.key';

export interface Session {
  readonly key: string;
  readonly who: Whoami;
}

export function storedKey(): string | undefined {
  return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** What each scope lets the console do, shown after sign-in. */
export const SCOPE_ALLOWS: Readonly<Record<Scope, string>> = {
  admin: 'manage rules, contexts, prompts, secrets and API keys; read the audit log, evaluate as of a past time, the digest; explain',
  evaluate: 'evaluate fields against the live rules (the test panel)',
  explain: 'explain why rules matched or not (the test panel\'s per-condition view)',
  'secrets:read': 'read secret values through get-secrets (the console never does: values stay write-only here)',
  approve: 'approve or reject change requests (never one this key opened)',
  'break-glass': 'write a protected resource directly, with a reason (RuleVault-Break-Glass), recorded in the audit log',
};

export function can(session: Session, scope: Scope): boolean {
  return session.who.scopes.includes(scope);
}
