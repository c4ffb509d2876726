/**
 * readAllRules (src/service/read-ahead.ts): the records a snapshot start left
 * unread are all read, in slices with the event loop free between them, and
 * callers at the same time share one read; a read the memory cannot hold is
 * refused before any record is read. sortInSlices sorts as
 * Array.prototype.sort does.
 */
import t from 'tap';
import { evolve, initialState, LazyRuleRecords, unreadRules, type CatalogState } from '../../projections';
import { AppError } from '../../src/base/errors';
import { FULL_READ_COST } from '../../src/base/memory-room';
import { readAllRules, repackInSlices, sortInSlices } from '../../src/service/read-ahead';
import { seededRandom } from '../engine/random-rules';
import { countTurns } from '../support/turns';
import { decodeSnapshot, encodeSnapshot } from '../../src/snapshots';
import type { RecordedEvent } from '../../src/store/port';

function restoredRules(count: number): { readonly lazy: LazyRuleRecords; readonly state: CatalogState } {
  const state = initialState();
  for (let n = 0; n < count; n++) {
    evolve(state, {
      id: `e${n}`, stream: `rule-r${n}`, type: 'RuleCreated', revision: 0n, position: BigInt(n + 1),
      data: { id: `r${n}`, name: `rule ${n}`, description: '', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'n', operator: 'equals', value: String(n), data_type: 'string' }] }], entities: [] },
      metadata: { actor: 'test', at: '2026-11-24T12:00:00.000Z', request_id: `q${n}`, schema: 1 },
    } as RecordedEvent);
  }
  const decoded = decodeSnapshot(encodeSnapshot(state, 'log-1', { id: 'e1', chain: null }));
  if (!decoded.ok || !(decoded.snapshot.state.rules instanceof LazyRuleRecords)) throw new Error('not restored as lines');
  return { lazy: decoded.snapshot.state.rules, state };
}

t.test('every record read, in slices between which other work runs; callers at once share the read', async (t) => {
  const { lazy, state } = restoredRules(300);
  let turns = 0;
  // Counts the event loop's turns while the read goes on: one per slice.
  const tick = (): void => {
    turns += 1;
    if (unreadRules(lazy) > 0) setImmediate(tick);
  };
  setImmediate(tick);
  // A zero-millisecond slice reads one batch of 16 per turn: 300 records, 19 slices.
  const first = readAllRules(lazy, { sliceMs: 0, batch: 16 });
  const second = readAllRules(lazy, { sliceMs: 0, batch: 16 });
  t.equal(second, first, 'a second caller waits on the same read');
  t.ok(unreadRules(lazy) > 0 && unreadRules(lazy) < 300, 'the first slice ran at once, and only a slice');
  await first;
  t.equal(unreadRules(lazy), 0, 'every record read');
  t.ok(turns >= 18, `the event loop had a turn between slices (${turns})`);
  t.same([...lazy.values()], [...state.rules.values()], 'the records the lines came from');
  const done = readAllRules(lazy);
  t.not(done, first, 'once read, a new call is a resolved promise of its own');
  await done;
});

t.test('a read the heap cannot hold is refused with a 503 before any record is read; with room, it reads', async (t) => {
  const { lazy } = restoredRules(300);
  const chars = [...lazy.unreadTexts()].reduce((sum, text) => sum + text.length, 0);
  const heapNeed = chars * FULL_READ_COST.heapPerChar;
  const heap = (free: number) => ({ heap: { used_heap_size: 0, heap_size_limit: free }, rss: 0, constrained: undefined, total: 2 ** 34 });
  const refused = await readAllRules(lazy, { readings: heap(heapNeed * 0.8) }).then(() => undefined, (error: unknown) => error);
  t.ok(refused instanceof AppError && refused.code === 'unavailable' && refused.status === 503, 'a 503');
  t.match((refused as Error).message, /^reading the 300 rule records a snapshot start left unread needs about \d+ MB of heap/);
  t.equal(unreadRules(lazy), 300, 'and nothing read');
  await readAllRules(lazy, { readings: heap(heapNeed * 1.2) });
  t.equal(unreadRules(lazy), 0, 'room for it: every record read');
});

t.test('a plain Map, or nothing unread: resolved at once', async (t) => {
  let resolved = false;
  void readAllRules(new Map()).then(() => {
    resolved = true;
  });
  await Promise.resolve();
  t.ok(resolved, 'no turn of the event loop needed');
});

t.test('sortInSlices: what a stable Array.prototype.sort gives, runs merged across turns', async (t) => {
  const random = seededRandom(4242);
  const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;
  for (const size of [0, 1, 4095, 4096, 4097, 9000, 20_000]) {
    // Few distinct keys: many ties, so an unstable merge would reorder equal items.
    const items = Array.from({ length: size }, (_, at) => ({ key: Math.floor(random() * 50), at }));
    const expected = [...items].sort(byKey);
    const turning = countTurns();
    const sorted = await sortInSlices(items, byKey, { sliceMs: 0 });
    const turns = turning.stop();
    t.same(sorted.map((item) => item.at), expected.map((item) => item.at), `${size} items in the same order`);
    if (size > 4096) t.ok(turns > 1, `${size} items: the event loop had ${turns} turns meanwhile`);
  }
  t.same(await sortInSlices(['b', 'a', 'c'], (a, b) => (a < b ? -1 : a > b ? 1 : 0)), ['a', 'b', 'c']);
});

t.test('repackInSlices: a re-pack runs in slices with turns between, the old lines serving meanwhile', async (t) => {
  const { lazy, state } = restoredRules(300);
  repackInSlices(lazy, { sliceMs: 0, lines: 1 });
  for (let n = 0; n < 150; n++) lazy.get(`r${n * 2}`);
  t.same([lazy.unread, lazy.heldLines], [150, 300], 'half read: the re-pack began, one line copied, the old lines still held');
  t.equal(lazy.get('r1')?.name, 'rule 1', 'a record read from the old lines meanwhile');
  const turning = countTurns();
  while (lazy.heldLines > 150) await new Promise((resolve) => setImmediate(resolve));
  const turns = turning.stop();
  t.equal(lazy.heldLines, 150, 'the copy serves: the lines unread when it began');
  t.ok(turns >= 100, `a line a slice: the event loop had ${turns} turns meanwhile`);
  t.same([...lazy.values()], [...state.rules.values()], 'every record as the lines held it');
});
