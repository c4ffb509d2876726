/**
 * Paging and filters of the admin lists (docs/api.md#lists). Pure: the
 * query text in, a predicate and a page out; a bad parameter is a 400 whose
 * message starts with its name.
 *
 * Paging is by cursor over each list's sort key (an id, a revision, a log
 * position): a page holds the items after the cursor's key, so a write
 * between two pages never repeats or skips an item that was there on both
 * (an item created behind the cursor is simply not in the rest of the walk).
 * The cursor is opaque to callers: base64url of `[list, key]`, so one list's
 * cursor is refused by another instead of being misread.
 */
import { badRequest } from '../base/errors';
import { ENTITY_TYPES, OPERATORS, SCOPES, type EntityType, type Scope } from '../events';
import { foldedMention, type ApiKeyRecord, type ContextRecord, type PromptRecord, type RuleRecord, type SecretRecord } from '../../projections';

/** Items per page: at most this many; no `limit` means the whole (filtered) list (contract §3 lists everything). */
export const LIST_LIMIT_MAX = 1000;
/** Characters of a search text (`q`) or a filter value. */
const FILTER_MAX_LENGTH = 256;

export type ListName =
  | 'rules' | 'contexts' | 'prompts' | 'secrets' | 'api_keys' | 'rule_history' | 'prompt_history' | 'audit_events' | 'secret_reads'
  | 'change_requests' | 'change_request_history';

export interface PageQuery {
  /** Undefined: the rest of the list. */
  readonly limit: number | undefined;
  /** The sort key of the last item already seen, from the cursor. */
  readonly after: string | undefined;
}

type QueryText = { readonly [name: string]: string | undefined };

export const PAGE_PARAMS = ['limit', 'cursor'] as const;

/** The opaque cursor that continues `list` after the item whose sort key is `key`. */
export function encodeCursor(list: ListName, key: string): string {
  return Buffer.from(JSON.stringify([list, key]), 'utf8').toString('base64url');
}

/** The sort key a cursor of `list` carries; 400 naming `cursor` for anything else. */
export function decodeCursor(list: ListName, cursor: string): string {
  const refuse = () => badRequest(`cursor is not a cursor of this list: pass the next_cursor of a previous page of it unchanged`);
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[0] !== list || typeof decoded[1] !== 'string') throw refuse();
  return decoded[1];
}

/** Reads `limit` (1 to LIST_LIMIT_MAX, or absent: no limit) and `cursor`. */
export function parsePageQuery(list: ListName, query: QueryText): PageQuery {
  return { limit: parseLimit(query.limit, undefined), after: query.cursor === undefined ? undefined : decodeCursor(list, query.cursor) };
}

/** `limit` as a whole number from 1 to LIST_LIMIT_MAX; `fallback` when absent. */
export function parseLimit<T extends number | undefined>(text: string | undefined, fallback: T): number | T {
  if (text === undefined) return fallback;
  const limit = Number(text);
  if (!/^[0-9]{1,7}$/.test(text) || limit < 1 || limit > LIST_LIMIT_MAX) {
    throw badRequest(`limit must be a whole number from 1 to ${LIST_LIMIT_MAX}`);
  }
  return limit;
}

export interface Page<T> {
  readonly items: T[];
  /** Pass as `cursor` for the next page; null when this page reached the end. */
  readonly next_cursor: string | null;
}

/**
 * Gathers the page after the query's cursor that passes `keep`, offered the
 * items in order (ascending by `keyOf`, each key once); `take` answers false
 * once the page is full, so a walk can stop (pageOf, or one done in slices).
 */
export function pager<T>(
  list: ListName, keyOf: (item: T) => string, keep: (item: T) => boolean, query: PageQuery,
  compare: (a: string, b: string) => number = compareText,
): { readonly take: (item: T) => boolean; page(): Page<T> } {
  const items: T[] = [];
  const { after, limit } = query;
  let next: string | null = null;
  return {
    take(item) {
      if (after !== undefined && compare(keyOf(item), after) <= 0) return true;
      if (!keep(item)) return true;
      if (limit !== undefined && items.length === limit) {
        next = encodeCursor(list, keyOf(items[items.length - 1]!));
        return false;
      }
      items.push(item);
      return true;
    },
    page: () => ({ items, next_cursor: next }),
  };
}

/**
 * The page of `sorted` (ascending by `keyOf`, each key once) after the
 * query's cursor that passes `keep`. `compare` orders keys as the list is sorted.
 */
export function pageOf<T>(
  list: ListName, sorted: readonly T[], keyOf: (item: T) => string, keep: (item: T) => boolean, query: PageQuery,
  compare: (a: string, b: string) => number = compareText,
): Page<T> {
  const found = pager(list, keyOf, keep, query, compare);
  for (const item of sorted) if (!found.take(item)) break;
  return found.page();
}

/** The index of the first of `sorted` (ascending by compareText) that sorts after `key`. */
export function indexAfter(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Decimal keys (revisions, positions) compared as numbers. */
export function compareDecimal(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : compareText(a, b);
}

// ---- filters ------------------------------------------------------------------

function text(query: QueryText, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (value === '') throw badRequest(`${name} must not be empty`);
  if (value.length > FILTER_MAX_LENGTH) throw badRequest(`${name} must be at most ${FILTER_MAX_LENGTH} characters`);
  return value;
}

function oneOf<T extends string>(query: QueryText, name: string, allowed: readonly T[], fold = (v: string) => v): T | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  const folded = fold(value);
  if (!(allowed as readonly string[]).includes(folded)) throw badRequest(`${name} must be one of ${allowed.join(', ')}`);
  return folded as T;
}

/** `status`: active or inactive, in any letter case. */
function status(query: QueryText): 'ACTIVE' | 'INACTIVE' | undefined {
  const value = text(query, 'status');
  if (value === undefined) return undefined;
  const upper = value.toUpperCase();
  if (upper !== 'ACTIVE' && upper !== 'INACTIVE') throw badRequest('status must be active or inactive');
  return upper;
}

/** `q`, lower-cased. */
function loweredQ(query: QueryText): string | undefined {
  return text(query, 'q')?.toLowerCase();
}

/** `q`: a case-insensitive substring of any of the texts. */
function search(query: QueryText, q = loweredQ(query)): ((...texts: string[]) => boolean) | undefined {
  return q === undefined ? undefined : (...texts) => texts.some((t) => t.toLowerCase().includes(q));
}

type Keep<T> = (item: T) => boolean;

function all<T>(...tests: (Keep<T> | undefined)[]): Keep<T> {
  const active = tests.filter((test): test is Keep<T> => test !== undefined);
  return (item) => active.every((test) => test(item));
}

export const RULE_FILTERS = ['status', 'entity_type', 'entity_id', 'field', 'operator', 'q'] as const;

/**
 * Rules: `status`; a linked entity (`entity_type` and/or `entity_id`); a
 * condition (`field` and/or `operator`: one condition must have both);
 * `q` in the name, description or id. With the test, the texts a rule it
 * keeps holds in its JSON (each value as JSON.stringify writes it), and
 * in its JSON lower-cased (`q`, when foldedMention allows): a record not
 * yet decoded is tested on those first (projections/lazy-rules.ts).
 */
export function ruleSearch(query: QueryText): {
  readonly keep: Keep<RuleRecord>; readonly mentions: readonly string[]; readonly foldedMentions: readonly string[];
} {
  const wanted = status(query);
  const entityType = oneOf<EntityType>(query, 'entity_type', ENTITY_TYPES);
  const entityId = text(query, 'entity_id');
  const field = text(query, 'field');
  const operator = oneOf(query, 'operator', OPERATORS);
  const lower = loweredQ(query);
  const q = search(query, lower);
  const mentions = [wanted, entityType, entityId, field, operator].filter((value) => value !== undefined).map((value) => JSON.stringify(value));
  const folded = lower === undefined ? undefined : foldedMention(lower);
  const keep = all<RuleRecord>(
    wanted && ((rule) => rule.status === wanted),
    (entityType !== undefined || entityId !== undefined) ? (rule) => rule.entities.some((link) =>
      (entityType === undefined || link.entity_type === entityType) && (entityId === undefined || link.entity_id === entityId)) : undefined,
    (field !== undefined || operator !== undefined) ? (rule) => rule.condition_groups.some((group) => group.conditions.some((c) =>
      (field === undefined || c.field === field) && (operator === undefined || c.operator === operator))) : undefined,
    q && ((rule) => q(rule.id, rule.name, rule.description)),
  );
  return { keep, mentions, foldedMentions: folded === undefined ? [] : [folded] };
}

export const CONTEXT_FILTERS = ['status', 'tag', 'q'] as const;
export const PROMPT_FILTERS = ['status', 'tag', 'q'] as const;

/** Contexts and prompts: `status`, `tag` (carries it), `q` in the texts `searched` gives. */
function catalogFilter<T extends { readonly status: string; readonly tags: readonly string[] }>(
  query: QueryText, searched: (item: T) => string[],
): Keep<T> {
  const wanted = status(query);
  const tag = text(query, 'tag');
  const q = search(query);
  return all<T>(
    wanted && ((item) => item.status === wanted),
    tag === undefined ? undefined : (item) => item.tags.includes(tag),
    q && ((item) => q(...searched(item))),
  );
}

/** Contexts: `q` in the name, description or id. */
export const contextFilter = (query: QueryText) => catalogFilter<ContextRecord>(query, (c) => [c.id, c.name, c.description]);
/** Prompts: `q` in the name or id. */
export const promptFilter = (query: QueryText) => catalogFilter<PromptRecord>(query, (p) => [p.id, p.name]);

export const SECRET_FILTERS = ['tag', 'q'] as const;

/** Secrets: `tag`, `q` in the key or id (never the value: the listing has none). */
export function secretFilter(query: QueryText): Keep<SecretRecord> {
  const tag = text(query, 'tag');
  const q = search(query);
  return all<SecretRecord>(
    tag === undefined ? undefined : (secret) => secret.tags.includes(tag),
    q && ((secret) => q(secret.id, secret.key)),
  );
}

export const API_KEY_FILTERS = ['scope', 'q'] as const;

/** API keys: `scope` (holds it), `q` in the name or id. */
export function apiKeyFilter(query: QueryText): Keep<ApiKeyRecord> {
  const scope = oneOf<Scope>(query, 'scope', SCOPES);
  const q = search(query);
  return all<ApiKeyRecord>(
    scope === undefined ? undefined : (key) => key.scopes.includes(scope),
    q && ((key) => q(key.id, key.name)),
  );
}
