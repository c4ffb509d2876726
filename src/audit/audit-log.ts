/**
 * GET /api/audit/events minus HTTP: one page of the log that passes the
 * filter. A filtered page is filled by reading the store page after page
 * until `limit` events match or the log ends, so a short page means the end
 * (`next: null`). Only a request that scans more than `scanBudget` events
 * stops early, and then says so: `next` is where the scan stopped and
 * `scan_limit_reached` is true, so a caller continues from there. A page
 * also ends once its events' data reach `LOG_PAGE_BYTES` (~8 MB), with
 * `size_limit_reached`: the answer is built whole, and 1,000 rules of 1 MiB
 * would be ~1 GB of it. The scan
 * gives the event loop a turn every few milliseconds (read-ahead.ts): the
 * embedded store answers pages synchronously, and a 100k-event scan held
 * the node ~0.4 s (bench: audit-stall, `/api/audit/events?actor=nobody`).
 */
import { eventView } from '../service/event-view';
import { sliceClock, type SliceOptions } from '../service/read-ahead';
import { LOG_PAGE_BYTES, toJsonPosition, type EventStore } from '../store/port';
import { isEmptyFilter, matchesFilter, type EventQuery } from './event-filter';

/** Events one request may scan for a filtered page (about half a second on SQLite). */
export const SCAN_BUDGET = 100_000;
const READ_PAGE = 1000;

export interface EventPage {
  events: (ReturnType<typeof eventView> & { stream: string })[];
  /** Pass as `after` to continue; null at the end of the log. */
  next: string | null;
  /** Present (true) only when the scan budget ran out before `limit` matches. */
  scan_limit_reached?: true;
  /** Present (true) only when the page's event data reached `LOG_PAGE_BYTES` before `limit` events. */
  size_limit_reached?: true;
}

/** One page of the (filtered) log; secret values appear only sealed, as stored. */
export async function readEventPage(store: EventStore, query: EventQuery, scanBudget = SCAN_BUDGET, options: SliceOptions = {}): Promise<EventPage> {
  const filtered = !isEmptyFilter(query.filter);
  const clock = sliceClock(options.sliceMs);
  const events: EventPage['events'] = [];
  let after = query.after;
  let scanned = 0;
  let bytes = 0;
  for (;;) {
    if (clock.due()) await clock.turn();
    // Unfiltered: exactly the rest of the page; filtered: full store pages.
    const want = filtered ? READ_PAGE : query.limit - events.length;
    // Store pages are held to LOG_PAGE_BYTES: a filtered scan keeps few of the events it decodes.
    const page = await store.readAll({ after, limit: want, maxDataBytes: LOG_PAGE_BYTES });
    if (page.length === 0) return { events, next: null };
    for (const event of page) {
      scanned += 1;
      after = event.position;
      if (!matchesFilter(query.filter, event)) continue;
      events.push({ stream: event.stream, ...eventView(event) });
      if (events.length === query.limit) return { events, next: toJsonPosition(event.position) };
      bytes += Buffer.byteLength(JSON.stringify(event.data));
      if (bytes >= LOG_PAGE_BYTES) return { events, next: toJsonPosition(event.position), size_limit_reached: true };
    }
    if (scanned >= scanBudget && after !== undefined) {
      return { events, next: toJsonPosition(after), scan_limit_reached: true };
    }
  }
}
