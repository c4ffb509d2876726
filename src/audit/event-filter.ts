/**
 * The audit log's query: paging (`after` or `cursor`, `limit`) and filters (`stream`,
 * `type`, `actor`, `from`, `to`). Parsing throws a 400 naming the parameter;
 * matching is a pure predicate over one recorded event.
 *
 * - `stream`: exact name, or a prefix when it ends with `-` or `*`
 *   (`rule-`, `rule-*`; no stream name ends with `-`).
 * - `type`: one event type, or several separated by commas.
 * - `actor`: exact `metadata.actor` (an API key id, `cli`, `system`, `env-admin`).
 * - `from`, `to`: ISO 8601 times with a zone, inclusive, on `metadata.at`.
 */
import { badRequest } from '../base/errors';
import { decodeCursor, encodeCursor, LIST_LIMIT_MAX, parseLimit } from '../service/listing';
import { parseJsonPosition, type RecordedEvent } from '../store/port';

export const AUDIT_LIMIT = { default: 100, max: LIST_LIMIT_MAX } as const;

/** Every query parameter the log takes; any other is a 400 naming it. */
export const EVENT_QUERY_PARAMS = ['after', 'cursor', 'limit', 'stream', 'type', 'actor', 'from', 'to'] as const;

export interface EventQueryText {
  readonly after?: string;
  /** The opaque form of `after` every list takes (src/service/listing.ts). */
  readonly cursor?: string;
  readonly limit?: string;
  readonly stream?: string;
  readonly type?: string;
  readonly actor?: string;
  readonly from?: string;
  readonly to?: string;
}

export interface EventFilter {
  readonly stream?: { readonly name: string; readonly prefix: boolean };
  readonly types?: ReadonlySet<string>;
  readonly actor?: string;
  /** Normalized ISO times (toISOString), compared as text with `metadata.at`. */
  readonly from?: string;
  readonly to?: string;
}

export interface EventQuery {
  readonly after: bigint | undefined;
  readonly limit: number;
  readonly filter: EventFilter;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 time with a zone, normalized (toISOString); a 400 naming `name` otherwise. Also the secret-read list's (read-audit.ts). */
export function isoTime(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (!ISO_TIME.test(text) || !Number.isFinite(ms)) {
    throw badRequest(`${name} must be an ISO 8601 time with a zone, like 2026-01-31T12:00:00Z`);
  }
  return new Date(ms).toISOString();
}

function nonEmpty(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text === '') throw badRequest(`${name} must not be empty`);
  return text;
}

/** Reads the query parameters; throws a 400 naming the first bad one. */
export function parseEventQuery(query: EventQueryText): EventQuery {
  if (query.after !== undefined && query.cursor !== undefined) throw badRequest('after and cursor are the same thing: give one of them');
  const position = query.cursor === undefined ? query.after : decodeCursor('audit_events', query.cursor);
  const after = position === undefined ? undefined : parseJsonPosition(position);
  if (position !== undefined && after === undefined) {
    throw badRequest(query.cursor === undefined ? 'after must be a log position (a whole number)' : 'cursor is not a cursor of this list');
  }
  const limit = parseLimit(query.limit, AUDIT_LIMIT.default);
  const stream = nonEmpty('stream', query.stream);
  const types = nonEmpty('type', query.type);
  const from = isoTime('from', query.from);
  const to = isoTime('to', query.to);
  if (from !== undefined && to !== undefined && from > to) throw badRequest('from must not be later than to');
  const filter: EventFilter = {
    stream: stream === undefined ? undefined : streamFilter(stream),
    types: types === undefined ? undefined : new Set(types.split(',').map((t) => t.trim()).filter(Boolean)),
    actor: nonEmpty('actor', query.actor),
    from,
    to,
  };
  return { after, limit, filter };
}

function streamFilter(text: string): EventFilter['stream'] {
  if (text.endsWith('*')) return { name: text.slice(0, -1), prefix: true };
  return { name: text, prefix: text.endsWith('-') };
}

/** True when `filter` has no condition: every event matches. */
export function isEmptyFilter(filter: EventFilter): boolean {
  return Object.values(filter).every((v) => v === undefined);
}

/** Whether one event passes every condition of `filter`. */
export function matchesFilter(filter: EventFilter, event: RecordedEvent): boolean {
  const { stream, types, actor, from, to } = filter;
  if (stream !== undefined && (stream.prefix ? !event.stream.startsWith(stream.name) : event.stream !== stream.name)) return false;
  if (types !== undefined && !types.has(event.type)) return false;
  if (actor !== undefined && event.metadata.actor !== actor) return false;
  if (from !== undefined && event.metadata.at < from) return false;
  if (to !== undefined && event.metadata.at > to) return false;
  return true;
}

/** The `next_cursor` of a page whose `next` is `next`. */
export function eventCursor(next: string | null): string | null {
  return next === null ? null : encodeCursor('audit_events', next);
}
