/**
 * A digest of the read models: SHA-256 over a canonical serialization, so a
 * live node, an offline replay and a replay of an exported-then-imported log
 * can be compared byte for byte.
 *
 * Canonical form: JSON with object keys sorted (recursively), records sorted
 * by id, bigints as decimal strings, undefined members left out.
 * Included: every rule, context, prompt (with every version and template),
 * sealed vault record (values stay sealed), the keyring canary and every
 * active API key (its hash), each with provenance (actor, times) and stream
 * revision. Excluded: log positions, which an import into another store
 * renumbers (revisions are per stream and survive), and the vault's list of
 * erasures still to do, which is work in progress, not a fact of the log.
 */
import { createHash } from 'node:crypto';
import type { CatalogState } from '../../projections';

export interface Digest {
  /** SHA-256 hex of `canonicalState(state)`. */
  readonly sha256: string;
  /** Position of the last event folded, decimal; null for an empty log. Not part of the hash. */
  readonly position: string | null;
  readonly counts: {
    readonly rules: number;
    readonly contexts: number;
    readonly prompts: number;
    readonly prompt_versions: number;
    readonly secrets: number;
    readonly api_keys: number;
  };
}

type Canonical = null | boolean | number | string | Canonical[] | { [key: string]: Canonical };

/** JSON text with sorted keys; bigints as decimal strings; undefined members omitted. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(toCanonical(value));
}

function toCanonical(value: unknown): Canonical {
  switch (typeof value) {
    case 'bigint': return value.toString(10);
    case 'string': case 'boolean': return value;
    case 'number': return Number.isFinite(value) ? value : null;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map(toCanonical);
      const out: { [key: string]: Canonical } = {};
      for (const key of Object.keys(value).sort()) {
        const member = (value as Record<string, unknown>)[key];
        if (member !== undefined) out[key] = toCanonical(member);
      }
      return out;
    }
    default: return null;
  }
}

const byId = <T extends { readonly id: string }>(records: Iterable<T>): T[] =>
  [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** The read models as one canonical JSON text (see the header for what is in it). */
export function canonicalState(state: CatalogState): string {
  const provenance = (r: { created_by: string; created_at: string; updated_at: string; revision: bigint }) => ({
    created_by: r.created_by, created_at: r.created_at, updated_at: r.updated_at, revision: r.revision,
  });
  return canonicalJson({
    rules: byId(state.rules.values()).map((r) => ({
      id: r.id, name: r.name, description: r.description, status: r.status, group_operator: r.group_operator,
      condition_groups: r.condition_groups, entities: r.entities, ...provenance(r),
    })),
    contexts: byId(state.contexts.values()).map((c) => ({
      id: c.id, name: c.name, description: c.description, content: c.content, tags: c.tags,
      meta_properties: c.meta_properties, status: c.status, ...provenance(c),
    })),
    prompts: byId(state.prompts.values()).map((p) => ({
      id: p.id, name: p.name, tags: p.tags, meta_properties: p.meta_properties, status: p.status, ...provenance(p),
      versions: p.versions.map((v) => ({ version: v.version, template: v.template, created_by: v.created_by, created_at: v.created_at })),
    })),
    vault: {
      secrets: byId(state.vault.secrets.values()).map((s) => ({
        id: s.id, key: s.key, tags: s.tags, version: s.version, value_version: s.value_version, sealed: s.sealed, ...provenance(s),
      })),
      keyring: state.vault.keyring.canary ?? null,
    },
    api_keys: byId(state.apiKeys.byId.values()).map((k) => ({
      id: k.id, name: k.name, scopes: k.scopes, secret_tags: k.secret_tags, key_hash: k.key_hash,
      created_by: k.created_by, created_at: k.created_at, revision: k.revision,
    })),
  });
}

/** The digest of the read models `state` holds. */
export function digestState(state: CatalogState): Digest {
  let promptVersions = 0;
  for (const prompt of state.prompts.values()) promptVersions += prompt.versions.length;
  return {
    sha256: createHash('sha256').update(canonicalState(state), 'utf8').digest('hex'),
    position: state.position === undefined ? null : state.position.toString(10),
    counts: {
      rules: state.rules.size,
      contexts: state.contexts.size,
      prompts: state.prompts.size,
      prompt_versions: promptVersions,
      secrets: state.vault.secrets.size,
      api_keys: state.apiKeys.byId.size,
    },
  };
}
