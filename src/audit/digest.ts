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
import { digestMembers, type CatalogState } from '../../projections';

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

/** The read models as one canonical JSON text (see the header for what is in it; each model's part is its registry entry in projections/read-models.ts). */
export function canonicalState(state: CatalogState): string {
  return canonicalJson(digestMembers(state).canonical);
}

/** The digest of the read models `state` holds. */
export function digestState(state: CatalogState): Digest {
  const { canonical, counts } = digestMembers(state);
  return {
    sha256: createHash('sha256').update(canonicalJson(canonical), 'utf8').digest('hex'),
    position: state.position === undefined ? null : state.position.toString(10),
    counts: counts as Digest['counts'],
  };
}
