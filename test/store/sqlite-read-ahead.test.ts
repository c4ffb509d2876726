import t from 'tap';
import type {} from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { NewEvent, RecordedEvent } from '../../src/store/port';
import { openSqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite';
import { parsePage, readAhead } from '../../src/store/sqlite-read-ahead';
import { pageText } from '../../src/store/sqlite-read-ahead-worker';
import { rowsWithin } from '../../src/store/sqlite-schema';
import { splitMetadata } from '../../src/store/chain';

function event(n: number, extra: Record<string, unknown> = {}): NewEvent {
  return { type: 'Counted', data: { n, ...extra }, metadata: { actor: 'system', at: '2026-11-22T00:00:00.000Z', request_id: 'read-ahead', schema: 1 } };
}

/** A byte bound no page here reaches. */
const UNBOUNDED = 2 ** 40;

async function storeWith(t: tap.Test, events: number, options: SqliteStoreOptions = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'rulevault-read-ahead-'));
  const path = join(dir, 'events.db');
  const store = openSqliteStore(path, options);
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < events; i += 100) {
    await store.append(`counter-${i % 700}`, Array.from({ length: Math.min(100, events - i) }, (_, k) => event(i + k)), 'any');
  }
  return { store, path };
}

/** Subscribes from `after` and collects until caught up. */
function catchUp(store: ReturnType<typeof openSqliteStore>, after?: bigint): Promise<RecordedEvent[]> {
  return new Promise((resolve, reject) => {
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe(after, {
      onEvent: (e) => void seen.push(e),
      onCaughtUp: () => void subscription.close().then(() => resolve(seen)),
      onError: reject,
    });
  });
}

t.test('a page survives the trip through JSON text: exact big positions, quotes, unicode', async (t) => {
  const rows = [
    [9_007_199_254_740_993n, 'rule-"quoted"\\path', 0n, 'id-1', 'RuleCreated', '{"name":"ä ☃ \\"x\\""}', '{"actor":"a","at":"t","request_id":"r","schema":1}'],
    [9_007_199_254_740_994n, 'rule-2', 12n, 'id-2', 'RuleUpdated', '{"changes":{"status":"ACTIVE"}}', '{"actor":"b","at":"u","request_id":"s","schema":1}'],
  ] as const;
  const events = parsePage(pageText(rows));
  t.same(events, [
    { id: 'id-1', stream: 'rule-"quoted"\\path', type: 'RuleCreated', revision: 0n, position: 9_007_199_254_740_993n, data: { name: 'ä ☃ "x"' }, metadata: { actor: 'a', at: 't', request_id: 'r', schema: 1 } },
    { id: 'id-2', stream: 'rule-2', type: 'RuleUpdated', revision: 12n, position: 9_007_199_254_740_994n, data: { changes: { status: 'ACTIVE' } }, metadata: { actor: 'b', at: 'u', request_id: 's', schema: 1 } },
  ]);
  t.same(parsePage(pageText([])), []);
});

t.test('a long catch-up through the worker equals the synchronous read without links, in order, without gaps', async (t) => {
  const { store } = await storeWith(t, 2500, { readAheadFrom: 100, readAheadPageSize: 64 });
  const all: RecordedEvent[] = [];
  for (let page = await store.readAll({ limit: 10_000 }); page.length > 0; page = await store.readAll({ after: page[page.length - 1]!.position, limit: 10_000 })) {
    all.push(...page);
  }
  t.equal(all.length, 2500);
  t.ok(all.every((e) => splitMetadata(e.metadata).link !== undefined), 'readAll carries every link');
  // The read-ahead leaves the hash chain's links out (read models never read them: bench chain, cold replay).
  const unlinked = all.map((e) => ({ ...e, metadata: splitMetadata(e.metadata).own }));
  t.same(await catchUp(store), unlinked, 'from the start');
  t.same(await catchUp(store, all[999]!.position), unlinked.slice(1000), 'from a position: exclusive');
});

t.test('a page leaves out the link, and only the link', async (t) => {
  const own = '{"actor":"a","at":"t","request_id":"r","schema":1}';
  const link = JSON.stringify({ v: 1, seq: 1, prev: '0'.repeat(64), digest: '1'.repeat(64), hash: '2'.repeat(64) });
  const row = (metadata: string) => [1n, 's', 0n, 'i', 'T', '{}', metadata] as const;
  t.same(parsePage(pageText([row(`${own.slice(0, -1)},"chain":${link}}`)]))[0]!.metadata, JSON.parse(own));
  t.same(parsePage(pageText([row(`{"chain":${link}}`)]))[0]!.metadata, {}, 'metadata that is only a link');
  // Not a link: a caller's own member that happens to be called chain, nested, stays.
  for (const nested of ['{"actor":"a","x":{"y":1,"chain":{"z":2}}}', '{"actor":"a","x":{"y":1,"chain":{"z":"}"}}}', '{"actor":"a","chain":{"z":{"w":1}}}']) {
    t.same(parsePage(pageText([row(nested)]))[0]!.metadata, JSON.parse(nested), `kept whole: ${nested}`);
  }
});

t.test('readAhead stops at head and cancel ends it early', async (t) => {
  const { store, path } = await storeWith(t, 1000);
  const head = (await store.headPosition())!;
  const reader = readAhead(path, 10n, head - 5n, { pageSize: 100, pageBytes: UNBOUNDED, pagesAhead: 2 });
  const positions: bigint[] = [];
  for (let page = await reader.next(); page !== undefined; page = await reader.next()) positions.push(...page.map((e) => e.position));
  t.equal(positions.length, Number(head - 5n - 10n), 'every event after `after` up to head');
  t.equal(positions[0], 11n);
  t.equal(positions[positions.length - 1], head - 5n);
  t.equal(await reader.next(), undefined, 'stays ended');

  const cancelled = readAhead(path, undefined, head, { pageSize: 10, pageBytes: UNBOUNDED, pagesAhead: 1 });
  t.equal((await cancelled.next())?.length, 10);
  cancelled.cancel();
  t.equal(await cancelled.next(), undefined, 'nothing after cancel');
});

t.test('a page ends with the row whose data reaches pageBytes; nothing is missed', async (t) => {
  t.same([rowsWithin([], 10), rowsWithin([3, 3, 3], 10), rowsWithin([3n, 7n, 1n], 10), rowsWithin([20, 1], 10)], [0, 3, 2, 1], 'rowsWithin: up to and with the row that reaches the bound');
  const { store, path } = await storeWith(t, 0);
  const sizes = [100, 400, 700, 50, 2000, 10, 10, 10, 900, 100];
  await store.append('sized', sizes.map((size, n) => event(n, { pad: 'x'.repeat(size) })), 'no_stream');
  const bytes = (e: RecordedEvent): number => Buffer.byteLength(JSON.stringify(e.data));
  const reader = readAhead(path, undefined, (await store.headPosition())!, { pageSize: 100, pageBytes: 1000, pagesAhead: 2 });
  const pages: RecordedEvent[][] = [];
  for (let page = await reader.next(); page !== undefined; page = await reader.next()) pages.push(page);
  t.same(pages.flat().map((e) => (e.data as { n: number }).n), sizes.map((_, n) => n), 'every event, in order');
  // Data of 116, 416, 716 | 66, 2016 | 26, 26, 26, 916, 117 bytes: cut where 1,000 is reached.
  t.same(pages.map((page) => page.length), [3, 2, 5], 'the 100-row pages were cut by bytes');
  for (const [i, page] of pages.entries()) {
    const total = page.reduce((sum, e) => sum + bytes(e), 0);
    t.ok(total - bytes(page[page.length - 1]!) < 1000, `page ${i}: every row but the last is under the bound`);
    if (i < pages.length - 1) t.ok(total >= 1000, `page ${i}: a page before the last reached it`);
  }
});

t.test('a row the worker cannot parse stops the subscription with an error, not a hang', async (t) => {
  const { store, path } = await storeWith(t, 300, { readAheadFrom: 10, readAheadPageSize: 50 });
  const db = new Database(path);
  db.prepare("UPDATE events SET data = '{broken' WHERE position = 120").run();
  db.close();
  const seen: bigint[] = [];
  const error = await new Promise<Error>((resolve) => {
    store.subscribe(undefined, { onEvent: (e) => void seen.push(e.position), onError: resolve, onCaughtUp: () => resolve(new Error('caught up')) });
  });
  t.match(error.message, /JSON/, 'the parse failure is reported');
  t.equal(seen.length, 100, 'the pages before the bad one were delivered, nothing after');
});

t.test('a reader on a missing file fails with a store error', async (t) => {
  const reader = readAhead(join(tmpdir(), 'no-such-dir-rulevault', 'events.db'), undefined, 10n, { pageSize: 10, pageBytes: UNBOUNDED, pagesAhead: 1 });
  await t.rejects(reader.next(), { name: 'StoreUnavailableError' });
});
