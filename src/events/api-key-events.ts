/** Events of the `apikey-<id>` streams. The key itself never enters the log; its hash does. */

/**
 * `explain` reads why rules matched, conditions included (POST /api/rule-engine/explain); `evaluate` alone cannot.
 * `approve` approves and rejects change requests; `break-glass` lets an admin write a protected resource directly,
 * with a reason (docs/change-requests.md).
 */
export const SCOPES = ['evaluate', 'secrets:read', 'explain', 'admin', 'approve', 'break-glass'] as const;
export type Scope = (typeof SCOPES)[number];

export type ApiKeyEvent =
  | {
      readonly type: 'ApiKeyCreated';
      readonly data: {
        readonly id: string;
        readonly name: string;
        readonly scopes: readonly Scope[];
        /** When non-empty, the key reads only secrets carrying one of these tags. */
        readonly secret_tags: readonly string[];
        /** SHA-256 of the key, hex. */
        readonly key_hash: string;
      };
    }
  | { readonly type: 'ApiKeyRevoked'; readonly data: { readonly id: string } };
