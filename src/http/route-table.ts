/**
 * A route table: rows of (method, path pattern, handler) and the one set of
 * rules every row is matched by. The lean path routes with it (fast-path.ts);
 * the rules are the ones express's router applies to every other route
 * (path-to-regexp with express's defaults), so a caller sees one grammar of
 * paths whichever path answers (docs/api.md#how-requests-are-read;
 * docs/decisions/0051-one-implementation-per-route.md):
 *
 * 1. Leading slashes collapse into one, on every request, before anything
 *    routes it (`collapseLeadingSlashes`, main.ts): clients join a base URL
 *    that ends in `/` with a path that starts with one. Only leading ones: a
 *    `//` inside a path is another path.
 * 2. The query (from the first `?`) is not part of the path.
 * 3. Letter case does not matter: `/API/Contexts` is `/api/contexts`.
 * 4. One trailing slash is allowed: `/api/contexts/` is `/api/contexts`;
 *    `/api/contexts//` is another path.
 * 5. A parameter (`:id`) is one or more characters other than `/`, %-decoded
 *    when it holds a `%` (so `%2F` is a `/` inside it). A malformed escape
 *    still routes: the match carries the 400 (MALFORMED_PATH), and the
 *    handler answers it where express's router would.
 * 6. Everything else in the pattern is matched as written (after rule 3): a
 *    %-escaped letter is not that letter, a longer path is another path.
 * 7. A row takes its own method, and GET takes HEAD too (as express). A row
 *    marked `anyMethod` takes every method on its path and answers a wrong
 *    one itself (the public endpoints: 404, or 200 `{err}` on the always-200
 *    ones; contract §1.2).
 * 8. Rows are disjoint: `createRouteTable` refuses two rows one request
 *    could match, so their order does not matter.
 */
import { badRequest, type AppError } from '../base/errors';
import { MALFORMED_PATH } from './errors';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface Row<H> {
  readonly method: Method;
  /** Lower case, from `/`, without a trailing slash; `:name` is a parameter. The route label of its log line and metrics. */
  readonly pattern: string;
  /** Rule 7: every method on this path comes to this row. */
  readonly anyMethod?: boolean;
  readonly handler: H;
}

export type Params = Readonly<Record<string, string>>;

export interface RouteMatch<H> {
  readonly row: Row<H>;
  /** The %-decoded parameters, or the 400 of a malformed escape (rule 5). */
  readonly params: Params | AppError;
}

export interface RouteTable<H> {
  readonly rows: readonly Row<H>[];
  /** The row a request names, if any, with its parameters. */
  match(method: string | undefined, url: string | undefined): RouteMatch<H> | undefined;
}

/** Rule 1: `//api/...` is `/api/...`. Applied to every request before either HTTP path sees it (main.ts). */
export function collapseLeadingSlashes(req: { url?: string }): void {
  const url = req.url;
  if (url !== undefined && url.startsWith('//')) req.url = url.replace(/^\/+/, '/');
}

/** Rule 2: the path of a request URL, without its query. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

const NO_PARAMS: Params = Object.freeze({});

interface Compiled<H> {
  readonly row: Row<H>;
  readonly names: readonly string[];
  /** Rules 3, 4, 5 and 6 as one expression. */
  readonly regexp: RegExp;
  /** A row without parameters matches with no allocation: this one object. */
  readonly fixed: RouteMatch<H> | undefined;
}

export function createRouteTable<H>(rows: readonly Row<H>[]): RouteTable<H> {
  const compiled = rows.map(compile);
  refuseOverlaps(compiled);
  // Rows without parameters by their exact spelling: the callers' usual one is found by one lookup, before any
  // expression runs (bench: cpu-per-request --workload evaluate). Rule 8 makes it the row the expressions would find.
  const exact = new Map<string, Compiled<H>[]>();
  for (const entry of compiled) if (entry.fixed !== undefined) exact.set(entry.row.pattern, [...(exact.get(entry.row.pattern) ?? []), entry]);

  return {
    rows,
    match(method, url) {
      const path = pathOf(url);
      const spelled = exact.get(path);
      if (spelled !== undefined) {
        for (const entry of spelled) if (takes(entry.row, method)) return entry.fixed;
      }
      for (const entry of compiled) {
        if (!takes(entry.row, method)) continue;
        const found = entry.regexp.exec(path);
        if (found !== null) return entry.fixed ?? { row: entry.row, params: decodeParams(entry.names, found) };
      }
      return undefined;
    },
  };
}

/** Rule 7. */
function takes(row: Row<unknown>, method: string | undefined): boolean {
  return row.anyMethod === true || method === row.method || (method === 'HEAD' && row.method === 'GET');
}

function compile<H>(row: Row<H>): Compiled<H> {
  const { pattern } = row;
  if (!/^(\/[a-z0-9._~-]+|\/:[a-z][a-z0-9_]*)+$/.test(pattern)) {
    throw new Error(`route pattern ${pattern}: lower-case segments from "/", each a name or a :parameter, no trailing slash`);
  }
  const names: string[] = [];
  const source = pattern.split('/').slice(1).map((segment) => {
    if (!segment.startsWith(':')) return segment.replace(/[.]/g, '\\.');
    names.push(segment.slice(1));
    return '([^/]+)';
  }).join('\\/');
  return {
    row,
    names,
    regexp: new RegExp(`^\\/${source}\\/?$`, 'i'),
    fixed: names.length === 0 ? Object.freeze({ row, params: NO_PARAMS }) : undefined,
  };
}

/** Rule 5: decoded only when a `%` is there (as express's router); a malformed escape is the 400 it answers. */
function decodeParams(names: readonly string[], found: RegExpExecArray): Params | AppError {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    const raw = found[i + 1]!;
    if (!raw.includes('%')) {
      params[names[i]!] = raw;
      continue;
    }
    try {
      params[names[i]!] = decodeURIComponent(raw);
    } catch {
      return badRequest(MALFORMED_PATH);
    }
  }
  return params;
}

/**
 * Rule 8, checked when the table is made: two rows that share a method (or
 * where one takes any) overlap when a path could match both. A parameter
 * matches any segment, so two patterns overlap when they have as many
 * segments and each pair of segments is equal or holds a parameter.
 */
function refuseOverlaps(compiled: readonly Compiled<unknown>[]): void {
  for (let i = 0; i < compiled.length; i++) {
    for (let j = i + 1; j < compiled.length; j++) {
      const a = compiled[i]!.row;
      const b = compiled[j]!.row;
      if (shareMethod(a, b) && samePaths(a.pattern, b.pattern)) throw new Error(`routes ${a.method} ${a.pattern} and ${b.method} ${b.pattern} overlap`);
    }
  }
}

function shareMethod(a: Row<unknown>, b: Row<unknown>): boolean {
  return a.anyMethod === true || b.anyMethod === true || takes(a, b.method) || takes(b, a.method);
}

function samePaths(a: string, b: string): boolean {
  const left = a.split('/');
  const right = b.split('/');
  return left.length === right.length && left.every((segment, k) => segment === right[k] || segment.startsWith(':') || right[k]!.startsWith(':'));
}
