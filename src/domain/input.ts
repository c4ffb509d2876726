/**
 * Reading untrusted JSON into typed command input. Each reader throws a 400
 * `AppError` naming the member (`condition_groups[0].operator`) and what is
 * wrong with it; nothing is silently dropped or coerced.
 */
import { badRequest, conflict } from '../base/errors';
import type { Json } from '../store/port';

export type JsonObject = { readonly [key: string]: unknown };

/** Sizes of admin input; documented in docs/api.md (Routes: input sizes). */
export const INPUT_LIMITS = {
  nameLength: 256,
  tagCount: 100,
  tagLength: 128,
  textLength: 512 * 1024, // descriptions, context content, prompt templates
  /** Nesting of meta_properties: JSON.stringify overflows the stack near 4,000 levels, when a listing renders it. */
  metaDepth: 32,
} as const;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, path: string): JsonObject {
  if (!isPlainObject(value)) throw badRequest(`${path} must be a JSON object`);
  return value;
}

export function has(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key) && object[key] !== undefined;
}

interface StringRules {
  readonly maxLength?: number;
  readonly allowEmpty?: boolean;
}

export function readString(value: unknown, path: string, rules: StringRules = {}): string {
  if (typeof value !== 'string') throw badRequest(`${path} must be a string`);
  if (!rules.allowEmpty && value.trim() === '') throw badRequest(`${path} must not be empty`);
  const max = rules.maxLength ?? INPUT_LIMITS.textLength;
  if (value.length > max) throw badRequest(`${path} must be at most ${max} characters`);
  return value;
}

export function readEnum<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw badRequest(`${path} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

export function readArray(value: unknown, path: string, maxItems: number): readonly unknown[] {
  if (!Array.isArray(value)) throw badRequest(`${path} must be an array`);
  if (value.length > maxItems) throw badRequest(`${path} must have at most ${maxItems} items`);
  return value;
}

/** Tags: strings, trimmed of nothing, de-duplicated in order. */
export function readTags(value: unknown, path: string): string[] {
  const items = readArray(value, path, INPUT_LIMITS.tagCount);
  const tags = items.map((item, i) => readString(item, `${path}[${i}]`, { maxLength: INPUT_LIMITS.tagLength }));
  return [...new Set(tags)];
}

/**
 * An object of string keys with any JSON values. Copied member by member into
 * a fresh object so a `__proto__` key stays an own data property.
 */
export function readMetaProperties(value: unknown, path: string): { [key: string]: Json } {
  const object = requireObject(value, path);
  if (nestedDeeperThan(object, INPUT_LIMITS.metaDepth)) throw badRequest(`${path} is nested deeper than ${INPUT_LIMITS.metaDepth} levels`);
  const copy: { [key: string]: Json } = {};
  for (const key of Object.keys(object)) {
    Object.defineProperty(copy, key, { value: object[key] as Json, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** Reads the optional member `key` with `read`, or undefined when absent. */
export function optional<T>(object: JsonObject, key: string, read: (value: unknown, path: string) => T): T | undefined {
  return has(object, key) ? read(object[key], key) : undefined;
}

/**
 * An admin write body or nested object: a JSON object with only the `allowed`
 * members. A misspelt member (`stauts`) is refused, never ignored: ignoring it
 * would answer 200 to a write that did not happen. (The two public endpoints
 * keep ignoring extra members, as contract §1 requires; they do not use this.)
 */
export function readMembers(value: unknown, path: string, allowed: readonly string[]): JsonObject {
  const object = requireObject(value, path);
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      const hint = closestName(key, allowed);
      throw badRequest(
        `${path} has an unknown member ${quoteName(key)}${hint === undefined ? '' : ` (did you mean ${hint}?)`}; ` +
          `allowed: ${allowed.join(', ')}`,
      );
    }
  }
  return object;
}

/**
 * The query string of an admin route: only `allowed` parameters, each given
 * once. A misspelt parameter (`?verison=1`) would otherwise be ignored and
 * answer something the caller did not ask for.
 */
export function readQuery(query: unknown, allowed: readonly string[]): { readonly [name: string]: string } {
  const parameters = isPlainObject(query) ? query : {};
  const out: { [name: string]: string } = {};
  for (const name of Object.keys(parameters)) {
    if (!allowed.includes(name)) {
      throw badRequest(allowed.length === 0
        ? `unknown query parameter ${quoteName(name)}: this route takes none`
        : `unknown query parameter ${quoteName(name)}; allowed: ${allowed.join(', ')}`);
    }
    const value = parameters[name];
    if (typeof value !== 'string') throw badRequest(`${name} must be given once`);
    out[name] = value; // `name` is one of `allowed`, never __proto__
  }
  return out;
}

/** A caller's name quoted for an error message, cut short so a huge one is not echoed back whole. */
export function quoteName(name: string): string {
  return name.length <= 100 ? JSON.stringify(name) : `${JSON.stringify(name.slice(0, 100))}...`;
}

/** The allowed name within two edits of `name` (a typo), if exactly one is closest. */
export function closestName(name: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 64 || b.length > 64) return Infinity;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The members of `patch` whose value differs from `current`'s. A PATCH that
 * sets members to what they are is no change: no event, the revision stays.
 */
export function changedMembers<T extends object>(current: T, patch: Partial<T>): Partial<T> {
  const changes: Partial<T> = {};
  for (const key of Object.keys(patch) as (keyof T)[]) {
    if (patch[key] !== undefined && !sameJson(patch[key], current[key])) changes[key] = patch[key];
  }
  return changes;
}

/** Deep equality of JSON values; object members compare regardless of their order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const aKeys = Object.keys(a);
  const bObject = b as { [key: string]: unknown };
  if (aKeys.length !== Object.keys(bObject).length) return false;
  return aKeys.every((key) => Object.prototype.hasOwnProperty.call(bObject, key) && sameJson((a as { [key: string]: unknown })[key], bObject[key]));
}

/**
 * An `If-Match` precondition: `*` (the resource must exist, any revision), or
 * the revisions the change may be based on (any one of them must be current).
 */
export type IfMatch = '*' | readonly bigint[];

const IF_MATCH_ITEM = /^(?:W\/)?"?(0|[1-9][0-9]{0,18})"?$/;

/**
 * Parses an `If-Match` header: `*`, or a comma-separated list of revisions,
 * each bare (`3`) or as the ETag this API sends (`"3"`; `W/"3"` is taken as `"3"`).
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (text === '*') return '*';
  const revisions = text.split(',').map((item) => IF_MATCH_ITEM.exec(item.trim())?.[1]);
  if (revisions.some((revision) => revision === undefined)) {
    throw badRequest('If-Match must be *, a revision number or its ETag ("3"), or a comma-separated list of them');
  }
  return revisions.map((revision) => BigInt(revision!));
}

/** 409 unless `ifMatch` allows the resource's current revision. */
export function checkIfMatch(what: string, id: string, revision: bigint, ifMatch: IfMatch | undefined): void {
  if (ifMatch === undefined || ifMatch === '*' || ifMatch.includes(revision)) return;
  throw conflict(`${what} ${id} is at revision ${revision}, not ${ifMatch.join(' or ')}`);
}

/** Whether `value` nests objects or arrays deeper than `limit` levels; iterative, so any depth is safe to check. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
