/**
 * GET /api/audit/events minus HTTP (src/audit/audit-log.ts) on a real SQLite
 * log: a filtered page is filled across store pages; a scan that runs out of
 * budget says so and where it stopped, and the next request goes on from
 * there; the scan gives the event loop turns between store pages.
 */
import path from 'node:path';
import t from 'tap';
import { readEventPage } from '../../src/audit/audit-log';
import { parseEventQuery } from '../../src/audit/event-filter';
import { openSqliteStore } from '../../src/store/sqlite';
import { removeDir, tempDir } from '../support/temp';
import { countTurns } from '../support/turns';

const EVENTS = 2500;
/** Every event is bob's but for 2,300th (alice's) and the last (carol's). */
const actorOf = (n: number) => (n === 2299 ? 'alice' : n === EVENTS - 1 ? 'carol' : 'bob');

t.test('a filtered scan: pages filled across store pages, a budget that runs out says where, turns between pages', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const store = openSqliteStore(path.join(dir, 'events.db'));
  t.teardown(() => store.close());
  for (let from = 0; from < EVENTS; from += 500) {
    const batch = Array.from({ length: 500 }, (_, i) => ({
      type: 'Counted', data: { n: from + i }, metadata: { actor: actorOf(from + i), at: '2026-11-25T00:00:00.000Z', request_id: `r${from + i}`, schema: 1 },
    }));
    await store.append(`count-${from}`, batch, 'any');
  }
  const log = await store.readAll({ limit: EVENTS });
  t.equal(log.length, EVENTS);

  const unfiltered = await readEventPage(store, parseEventQuery({ limit: '3' }));
  t.same([unfiltered.events.map((e) => e.data), unfiltered.next], [[{ n: 0 }, { n: 1 }, { n: 2 }], log[2]!.position.toString()], 'unfiltered: the first three');

  const turning = countTurns();
  const stopped = await readEventPage(store, parseEventQuery({ actor: 'alice', limit: '5' }), 2000, { sliceMs: 0 });
  const turns = turning.stop();
  t.same(stopped, { events: [], next: log[1999]!.position.toString(), scan_limit_reached: true }, 'budget spent after two store pages: where it stopped');
  t.ok(turns >= 2, `a turn before each store page (${turns})`);

  const found = await readEventPage(store, parseEventQuery({ actor: 'alice', limit: '5', after: stopped.next! }), 2000);
  t.same([found.events.map((e) => e.data), found.next, found.scan_limit_reached], [[{ n: 2299 }], null, undefined], 'continued: the match, then the end of the log');
  const both = await readEventPage(store, parseEventQuery({ actor: 'carol', limit: '1' }));
  t.same([both.events.map((e) => e.data), both.next], [[{ n: EVENTS - 1 }], log[EVENTS - 1]!.position.toString()], 'within the default budget: found across three store pages');
});

t.test('a page ends once its events\' data reach ~8 MB, says so, and the next goes on from there', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const store = openSqliteStore(path.join(dir, 'events.db'));
  t.teardown(() => store.close());
  const metadata = { actor: 'bob', at: '2026-11-28T00:00:00.000Z', request_id: 'r', schema: 1 };
  // Twelve events of ~1 MB: the ninth brings a page past LOG_PAGE_BYTES (8 MiB).
  const pad = 'x'.repeat(1_000_000);
  for (let n = 0; n < 12; n++) await store.append(`big-${n}`, [{ type: 'Big', data: { n, pad }, metadata }], 'no_stream');
  const first = await readEventPage(store, parseEventQuery({ limit: '100' }));
  t.same(first.events.map((e) => (e.data as { n: number }).n), [0, 1, 2, 3, 4, 5, 6, 7, 8], 'nine events: the ninth reached the bound');
  t.equal(first.size_limit_reached, true, 'the short page says why');
  t.equal(first.next, first.events[8]!.position, 'and where to go on');
  const rest = await readEventPage(store, parseEventQuery({ limit: '100', after: first.next! }));
  t.same([rest.events.map((e) => (e.data as { n: number }).n), rest.next, rest.size_limit_reached], [[9, 10, 11], null, undefined], 'the rest, then the end');
  const filtered = await readEventPage(store, parseEventQuery({ type: 'Big', limit: '5' }));
  t.same([filtered.events.length, filtered.size_limit_reached], [5, undefined], 'a page full by its limit first has no flag');
});
