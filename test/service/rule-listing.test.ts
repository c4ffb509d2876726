/**
 * The rule listing (src/service/queries.ts listRules) over a real read model:
 * its sorted ids are kept between listings with creates and deletes merged
 * in (src/service/sorted-ids.ts, checked against a fresh sort through seeded
 * random changes), so every page shows the rules there are; paging by
 * cursor starts after the cursor's id (indexAfter, checked against a linear
 * scan on seeded random ids).
 */
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import { evolve, initialState, LazyRuleRecords, unreadRules } from '../../projections';
import { DEFAULTS } from '../../src/base/config';
import { createEngine } from '../../src/engine';
import { createReadModel } from '../../src/read-model/read-model';
import { indexAfter } from '../../src/service/listing';
import { createQueries } from '../../src/service/queries';
import { SortedIds } from '../../src/service/sorted-ids';
import { decodeSnapshot, encodeSnapshot } from '../../src/snapshots';
import type { EventStore, RecordedEvent } from '../../src/store/port';
import { pick, seededRandom } from '../engine/random-rules';
import { countTurns } from '../support/turns';

let position = 0;
const metadata = () => ({ actor: 'test', at: '2026-11-24T12:00:00.000Z', request_id: `q${position}`, schema: 1 });
const created = (id: string): RecordedEvent => ({
  id: `e${++position}`, stream: `rule-${id}`, type: 'RuleCreated', revision: 0n, position: BigInt(position), metadata: metadata(),
  data: { id, name: `rule ${id}`, description: '', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'n', operator: 'equals', value: id, data_type: 'string' }] }], entities: [] },
});
const renamed = (id: string, name: string): RecordedEvent => ({
  id: `e${++position}`, stream: `rule-${id}`, type: 'RuleUpdated', revision: 1n, position: BigInt(position), metadata: metadata(), data: { id, changes: { name } },
});
const deleted = (id: string): RecordedEvent => ({
  id: `e${++position}`, stream: `rule-${id}`, type: 'RuleDeleted', revision: 2n, position: BigInt(position), metadata: metadata(), data: { id },
});

t.test('each listing shows the rules there are, in id order, through creates, updates and deletes', async (t) => {
  const readModel = createReadModel();
  for (const id of ['b', 'd', 'f']) readModel.apply(created(id));
  readModel.markCaughtUp();
  // The listing reads only the read model; the store is not asked.
  const queries = createQueries(undefined as unknown as EventStore, readModel, DEFAULTS.limits);
  const ids = async (query = {}) => (await queries.listRules(query)).rules.map((rule) => rule.id);
  t.same(await ids(), ['b', 'd', 'f']);
  readModel.apply(created('c'));
  t.same(await ids(), ['b', 'c', 'd', 'f'], 'a rule created between two listings');
  readModel.apply(renamed('d', 'renamed'));
  t.same((await queries.listRules({ q: 'renamed' })).rules.map((rule) => rule.name), ['renamed'], 'an update shows');
  readModel.apply(deleted('b'));
  readModel.apply(created('a'));
  t.same(await ids(), ['a', 'c', 'd', 'f'], 'one deleted, one created: the same count, other ids');
  const first = await queries.listRules({ limit: '2' });
  t.same(first.rules.map((rule) => rule.id), ['a', 'c']);
  t.same(await ids({ cursor: first.next_cursor! }), ['d', 'f'], 'the next page starts after the cursor');
  readModel.apply(deleted('d'));
  t.same(await ids({ cursor: first.next_cursor! }), ['f'], 'a rule deleted after the first page is not on the next');
});

t.test('indexAfter finds the first id that sorts after a key, as a linear scan does', async (t) => {
  const random = seededRandom(1807);
  const upTo = (n: number) => Math.floor(random() * (n + 1));
  const letters = [...'abcé😀'];
  const word = () => Array.from({ length: upTo(4) }, () => pick(random, letters)).join('');
  for (let round = 0; round < 200; round++) {
    const sorted = [...new Set(Array.from({ length: upTo(12) }, word))].sort();
    const key = word();
    const linear = sorted.findIndex((id) => id > key);
    t.equal(indexAfter(sorted, key), linear === -1 ? sorted.length : linear, `${JSON.stringify(sorted)} after ${JSON.stringify(key)}`);
  }
});

t.test('sorted ids: after any creates and deletes, the list is the set sorted; a list handed out never changes', async (t) => {
  const random = seededRandom(2511);
  const set = new Set<string>();
  const sorted = new SortedIds();
  const pool = Array.from({ length: 40 }, (_, n) => `id-${(n * 7919) % 101}-${n % 3 === 0 ? 'é' : 'e'}`);
  let held: { readonly list: readonly string[]; readonly copy: string[] } | undefined;
  for (let step = 0; step < 2000; step++) {
    const id = pick(random, pool);
    if (random() < 0.5) set.add(id);
    else set.delete(id);
    // Noted as the read model reports it: whether the set now holds the id (a repeat of the same state too).
    sorted.note(id, () => set.has(id));
    if (random() < 0.1) {
      const list = await sorted.list(() => set);
      if (!isDeepStrictEqual(list, [...set].sort())) return t.fail(`step ${step}: ${JSON.stringify(list)}`);
      if (held !== undefined && !isDeepStrictEqual(held.list, held.copy)) return t.fail(`step ${step}: a list handed out changed`);
      held = { list, copy: [...list] };
    }
  }
  t.pass('every list matched a fresh sort (2000 seeded changes)');
});

t.test('sorted ids: creates and deletes noted while the first sort runs are in the list it gives', async (t) => {
  const set = new Set(['b', 'd', 'f']);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let sorts = 0;
  const sorted = new SortedIds(async (ids) => {
    sorts += 1;
    await gate;
    return ids.sort();
  });
  const first = sorted.list(() => set);
  const second = sorted.list(() => set);
  // Changed while the sort holds its copy of the ids.
  for (const [id, present] of [['a', true], ['d', false], ['z', true], ['z', false], ['f', false], ['f', true]] as const) {
    if (present) set.add(id);
    else set.delete(id);
    sorted.note(id, () => set.has(id));
  }
  release();
  t.same(await first, ['a', 'b', 'f'], 'the set as it is when the list is given');
  t.same(await second, ['a', 'b', 'f'], 'a second caller shares the sort');
  t.equal(sorts, 1, 'sorted once');
  set.add('c');
  sorted.note('c', () => set.has('c'));
  t.same(await sorted.list(() => set), ['a', 'b', 'c', 'f'], 'later changes merged as before');
});

t.test('a filter no rule passes still walks the ids in slices, evaluate answered between them', async (t) => {
  // 20k rules restored from a snapshot (their records still lines): status=INACTIVE passes none, each line is tested
  // and passed over. The walk used to hand on only the rules that passed, so a filter few pass ran in one piece
  // between two clock reads (at 1M rules, 80-150 ms at a time; bench: audit-stall).
  const count = 20_000;
  const state = initialState();
  for (let i = 0; i < count; i++) evolve(state, created(`r${String(i).padStart(6, '0')}`));
  const decoded = decodeSnapshot(encodeSnapshot(state, 'log-1', { id: 'e1', chain: null }));
  if (!decoded.ok || !(decoded.snapshot.state.rules instanceof LazyRuleRecords)) throw new Error('not restored as lines');
  // The engine handed over, as a start from a snapshot's engine image does: building one would decode every record.
  const engine = createEngine();
  for (const rule of state.rules.values()) engine.upsert(rule);
  const readModel = createReadModel(decoded.snapshot.state, engine);
  readModel.markCaughtUp();
  // A turn after every id walked.
  const queries = createQueries(undefined as unknown as EventStore, readModel, DEFAULTS.limits, { sliceMs: 0, batch: 1 });
  t.equal((await queries.listRules({ limit: '1' })).rules.length, 1, 'a first listing sorts the ids');
  const unread = unreadRules(decoded.snapshot.state.rules);
  t.ok(unread > count - 10, `the records are still lines (${unread} unread)`);
  const turning = countTurns();
  const page = await queries.listRules({ status: 'INACTIVE' });
  const turns = turning.stop();
  t.same(page.rules, [], 'no rule passes');
  t.equal(unreadRules(decoded.snapshot.state.rules), unread, 'none decoded: each line tested as text');
  t.ok(turns >= count, `the event loop had ${turns} turns during a walk of ${count} ids`);
});
