/**
 * Reading untrusted JSON into typed command input. Each reader throws a 400
 * `AppError` naming the member (`condition_groups[0].operator`) and what is
 * wrong with it; nothing is silently dropped or coerced.
 */
import { badRequest } from '../errors';
import type { Json } from '../store/port';

export type JsonObject = { readonly [key: string]: unknown };

/** Sizes of admin input; documented in the README (Limits). */
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

/** Parses an `If-Match` header: a revision, optionally quoted as an ETag. */
export function parseIfMatch(header: string | undefined): bigint | undefined {
  if (header === undefined) return undefined;
  const text = header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  if (!/^(0|[1-9][0-9]{0,18})$/.test(text)) throw badRequest('If-Match must be a revision number');
  return BigInt(text);
}

/** Whether `value` nests objects or arrays deeper than `limit` levels; iterative, so any depth is safe to check. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
