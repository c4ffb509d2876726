/**
 * A digest of the read models: SHA-256 over a canonical serialization, so a
 * live node, an offline replay and a replay of an exported-then-imported log
 * can be compared byte for byte.
 *
 * Canonical form: JSON with object keys sorted (recursively; keys that are
 * array indices, "2" before "10", come first in numeric order, as
 * JSON.stringify writes a JavaScript object), records sorted by id, bigints
 * as decimal strings, undefined members left out. A member named `__proto__`
 * is a member like any other (a meta_properties key may be one): the objects
 * built here have no prototype, so assigning it never reaches the setter.
 * Included: every rule, context, prompt (with every version and template),
 * sealed vault record (values stay sealed), the keyring canary and every
 * active API key (its hash), each with provenance (actor, times) and stream
 * revision. Excluded: log positions, which an import into another store
 * renumbers (revisions are per stream and survive), and the vault's list of
 * erasures still to do, which is work in progress, not a fact of the log.
 */
import { createHash } from 'node:crypto';
import { DigestList, digestMembers, type CatalogState } from '../../projections';
import { inSlices, sortInSlices, type SliceOptions } from '../service/read-ahead';

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
      if (value instanceof DigestList) return [...value.records].sort(byId).map((record) => toCanonical(value.item(record)));
      if (Array.isArray(value)) return value.map(toCanonical);
      const out: { [key: string]: Canonical } = Object.create(null);
      for (const key of Object.keys(value).sort()) {
        const member = (value as Record<string, unknown>)[key];
        if (member !== undefined) out[key] = toCanonical(member);
      }
      return out;
    }
    default: return null;
  }
}

type Identified = { readonly id: string };
/** The records of the digest's lists, sorted ahead (in slices); a list not in it is sorted when reached. */
type SortedLists = ReadonlyMap<DigestList, readonly Identified[]>;

const byId = (a: Identified, b: Identified): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Every DigestList down to `depth` levels of plain objects (the digest's: the models, the vault's members). */
function* digestLists(value: unknown, depth: number): Generator<DigestList> {
  if (value instanceof DigestList) yield value;
  else if (depth > 0 && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const member of Object.values(value)) yield* digestLists(member, depth - 1);
  }
}

/**
 * `canonicalJson(value)` as pieces that join into exactly that text: split
 * down to `depth` levels (the models, their record lists, the records), each
 * deeper value one piece. No string holds the whole: at 1M rules the text
 * passes V8's string limit (~512 MiB), and one JSON.stringify of it blocks
 * the node for seconds.
 */
export function* canonicalPieces(value: unknown, depth = 2, sorted: SortedLists = new Map()): Generator<string> {
  if (depth === 0 || value === null || typeof value !== 'object') {
    yield canonicalJson(value);
  } else if (value instanceof DigestList) {
    const records = sorted.get(value) ?? [...value.records].sort(byId);
    yield '[';
    for (let i = 0; i < records.length; i++) {
      if (i > 0) yield ',';
      yield* canonicalPieces(value.item(records[i]!), depth - 1, sorted);
    }
    yield ']';
  } else if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      yield* canonicalPieces(value[i], depth - 1, sorted);
    }
    yield ']';
  } else {
    let separator = '{';
    for (const key of canonicalKeyOrder(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      yield `${separator}${JSON.stringify(key)}:`;
      separator = ',';
      yield* canonicalPieces(member, depth - 1, sorted);
    }
    yield separator === '{' ? '{}' : '}';
  }
}

/**
 * The order canonicalJson writes an object's keys in: sorted, then as a
 * JavaScript object lists them (toCanonical builds one), which puts keys
 * that are array indices ("2", "10") first, in numeric order. Kept so: a
 * digest must not change.
 */
function canonicalKeyOrder(value: object): string[] {
  const order: { [key: string]: true } = Object.create(null);
  for (const key of Object.keys(value).sort()) order[key] = true;
  return Object.keys(order);
}

/** The read models as one canonical JSON text (see the header for what is in it; each model's part is its registry entry in projections/read-models.ts). */
export function canonicalState(state: CatalogState): string {
  return canonicalJson(digestMembers(state).canonical);
}

/** Hashes pieces of text, gathered into updates of ~64 KiB (one update per record piece costs more than the hashing). */
class PieceHash {
  readonly #hash = createHash('sha256');
  #pending = '';

  add(piece: string): void {
    this.#pending += piece;
    if (this.#pending.length >= 1 << 16) this.#flush();
  }

  hex(): string {
    this.#flush();
    return this.#hash.digest('hex');
  }

  #flush(): void {
    this.#hash.update(this.#pending, 'utf8');
    this.#pending = '';
  }
}

/** The digest's members but its hash, taken at once: the state may move on while the pieces are hashed. */
function membersAtNow(state: CatalogState): { readonly canonical: unknown; readonly partial: Omit<Digest, 'sha256'> } {
  const { canonical, counts } = digestMembers(state);
  return { canonical, partial: { position: state.position === undefined ? null : state.position.toString(10), counts: counts as Digest['counts'] } };
}

/** The digest of the read models `state` holds. */
export function digestState(state: CatalogState): Digest {
  const { canonical, partial } = membersAtNow(state);
  const hash = new PieceHash();
  for (const piece of canonicalPieces(canonical)) hash.add(piece);
  return { sha256: hash.hex(), ...partial };
}

/** `digestState`, hashed in slices with the event loop free between them (the live node's digest; bench: audit-stall's digest). */
export async function digestStateInSlices(state: CatalogState, options?: SliceOptions): Promise<Digest> {
  // Folds replace records and never mutate them, so the members taken now keep their values while the state moves on.
  const { canonical, partial } = membersAtNow(state);
  const sorted = new Map<DigestList, readonly Identified[]>();
  for (const list of digestLists(canonical, 2)) sorted.set(list, await sortInSlices(list.records, byId, options));
  const hash = new PieceHash();
  await inSlices(canonicalPieces(canonical, 2, sorted), (piece) => hash.add(piece), options);
  return { sha256: hash.hex(), ...partial };
}
