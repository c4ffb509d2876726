/**
 * Rule records restored from a snapshot stay lines until read
 * (projections/lazy-rules.ts over src/snapshots/packed-lines.ts): every read answers
 * as a Map of the decoded records would, in the same order, through random
 * reads, writes, deletes and copies (seeded), with the lines re-packed as
 * records are read; and a snapshot of them writes unread lines as they came.
 */
import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import { copyRules, evolve, foldedMention, initialState, LazyRuleRecords, mayHold, RawJson, readRulesAhead, rulesWhere, runRepacksWith, snapshotMembers, unreadRuleChars, unreadRules, type JsonLines, type RepackStep, type RuleRecord } from '../../projections';
import { ruleSearch } from '../../src/service/listing';
import { decodeSnapshot, encodeSnapshot, PackedLines } from '../../src/snapshots';
import type { RecordedEvent } from '../../src/store/port';
import { seededRandom } from '../engine/random-rules';
import { perSeed, replayHint, testSeeds } from '../support/seeds';
import { runCountingSteps } from '../support/turns';
import { runSteps } from '../../src/base/steps';

/** The event a snapshot names at its position: these are only decoded, never checked against a log. */
const MARK = { id: 'e49', chain: null };

const record = (id: string, n: number): RuleRecord => ({
  id, name: `rule ${n} ✓`, description: 'é'.repeat(n % 5), status: n % 3 === 0 ? 'INACTIVE' : 'ACTIVE', group_operator: 'AND',
  condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'tier', operator: 'equals', value: `v${n}`, data_type: 'string' }] }],
  entities: [], created_by: 'k', created_at: '2026-11-24T00:00:00.000Z', updated_at: '2026-11-24T00:00:00.000Z', revision: BigInt(n), position: BigInt(n + 1),
});
const line = (r: RuleRecord) => JSON.stringify({ ...r, revision: r.revision.toString(), position: r.position.toString() });
const decode = (text: string): RuleRecord => {
  const r = JSON.parse(text) as RuleRecord & { revision: string; position: string };
  return { ...r, revision: BigInt(r.revision), position: BigInt(r.position) };
};

/** The lines `picked` of `lines` as one copy, made in one step. */
function keepLines(lines: JsonLines, picked: readonly number[]): JsonLines {
  const keeper = lines.keeper(picked);
  keeper.step(picked.length);
  return keeper.lines;
}

function packed(texts: readonly string[]): PackedLines {
  const lines = new PackedLines();
  for (const text of texts) {
    const bytes = Buffer.from(`#${text}#`, 'utf8');
    lines.add(bytes, 1, bytes.length - 1);
  }
  return lines;
}

t.test('packed lines: each line as added, its leading id only when plain', async (t) => {
  const texts = ['{"id":"a","x":1}', '{"id":"b\\"c","x":2}', '{"x":3,"id":"d"}', '{"id":"é😀","x":4}', '', '{"id":"'];
  const lines = packed(texts);
  t.equal(lines.count, texts.length);
  t.same(texts.map((_, i) => lines.text(i)), texts, 'every text as added');
  t.same(texts.map((_, i) => lines.leadingId(i)), ['a', undefined, undefined, 'é😀', undefined, undefined], 'an escaped, a later or an unfinished id is not taken');
  const kept = keepLines(lines, [3, 0]);
  t.same([kept.count, kept.text(0), kept.text(1)], [2, texts[3], texts[0]], 'keep: those lines, in that order');
  t.throws(() => lines.text(6), RangeError, 'a line past the end is refused');
});

t.test('packed lines: keep gives the lines asked, in that order, with their leading ids, however they sit in the chunks', async (t) => {
  const random = seededRandom(909);
  const texts = Array.from({ length: 300 }, (_, i) => (i % 17 === 0 ? `{"x":${i}}` : `{"id":"r${i}","pad":"${'z'.repeat(i % 23)}é"}`));
  // Lines added one by one (no newline between them), then a run of newline-ended lines, then one by one again.
  const lines = new PackedLines();
  for (const text of texts.slice(0, 100)) {
    const bytes = Buffer.from(text, 'utf8');
    lines.add(bytes, 0, bytes.length);
  }
  lines.addLines(Buffer.from(`${texts.slice(100, 200).join('\n')}\n`, 'utf8'), 0, 100);
  for (const text of texts.slice(200)) {
    const bytes = Buffer.from(`##${text}`, 'utf8');
    lines.add(bytes, 2, bytes.length);
  }
  for (let trial = 0; trial < 60; trial++) {
    // Mostly ascending runs with gaps (what a re-pack keeps), sometimes shuffled or repeated.
    let picked = Array.from({ length: texts.length }, (_, i) => i).filter(() => random() < 0.6);
    if (trial % 5 === 0) picked = picked.map((i) => picked[Math.floor(random() * picked.length)] ?? i);
    const kept = keepLines(lines, picked);
    const got = picked.map((_, k) => [kept.text(k), kept.leadingId(k)]);
    const want = picked.map((i) => [texts[i], lines.leadingId(i)]);
    if (JSON.stringify(got) !== JSON.stringify(want)) return t.fail(`trial ${trial}: ${JSON.stringify(picked.slice(0, 20))}`);
    const again = keepLines(kept, picked.map((_, k) => k).reverse());
    if (again.text(0) !== texts[picked[picked.length - 1]!]) return t.fail(`trial ${trial}: a kept set kept again`);
  }
  t.pass('60 seeded subsets kept exactly');
  t.equal(keepLines(lines, []).count, 0, 'nothing kept');
  t.throws(() => keepLines(lines, [0, 300]), RangeError, 'a line past the end is refused');
});

t.test('packed lines: a line never split between chunks, one longer than a chunk kept whole', async (t) => {
  const lines = new PackedLines();
  const big = `{"id":"big","pad":"${'x'.repeat((1 << 24) + 10)}"}`;
  const texts = [...Array.from({ length: 3 }, (_, i) => `{"id":"r${i}","pad":"${'y'.repeat(7_000_000)}"}`), big, '{"id":"after"}'];
  for (const text of texts) {
    const bytes = Buffer.from(text, 'latin1');
    lines.add(bytes, 0, bytes.length);
  }
  t.ok(texts.every((text, i) => lines.text(i) === text), 'every line whole across chunk boundaries');
  t.same(texts.map((_, i) => lines.leadingId(i)), ['r0', 'r1', 'r2', 'big', 'after']);
});

t.test('packed lines: addLines takes whole lines up to its count, in runs that never split a line between chunks', async (t) => {
  const texts = [...Array.from({ length: 5 }, (_, i) => `{"id":"r${i}","pad":"${'y'.repeat(5_000_000 + i)}"}`), '', '{"id":"é"}', '{"id":"last"}'];
  const bytes = Buffer.from(`${texts.join('\n')}\n{"id":"unfinished`, 'utf8');
  const lines = new PackedLines();
  const after = lines.addLines(bytes, 0, 3);
  t.equal(lines.count, 3, 'no more than the count asked');
  t.equal(bytes.toString('utf8', after, after + 9), '{"id":"r3', 'returns where the next line starts');
  const rest = lines.addLines(bytes, after, 100);
  t.equal(lines.count, texts.length, 'every newline-ended line, and no more');
  t.equal(bytes.toString('utf8', rest), '{"id":"unfinished', 'the unfinished line is left');
  t.ok(texts.every((text, i) => lines.text(i) === text), 'every line whole, without its newline, across chunk boundaries');
  t.same(texts.map((_, i) => lines.leadingId(i)), ['r0', 'r1', 'r2', 'r3', 'r4', undefined, 'é', 'last']);
  t.equal(lines.addLines(bytes, rest, 5), rest, 'no newline: nothing taken');
});

t.test('lazy records answer as a Map of the decoded records, through random reads and changes', async (t) => {
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    const count = 40 + Math.floor(random() * 60);
    const records = Array.from({ length: count }, (_, n) => record(`rule-${String(n).padStart(3, '0')}`, n));
    // A line written with its members in another order has no leading id: decoded at the restore.
    const texts = records.map((r, n) => (n % 17 === 5 ? JSON.stringify({ name: r.name, ...JSON.parse(line(r)) }) : line(r)));
    let lazy = LazyRuleRecords.restore(packed(texts), decode);
    let model = new Map(records.map((r) => [r.id, r]));
    t.equal(lazy.unread, count - records.filter((_, n) => n % 17 === 5).length, `seed ${seed}: only plain lines wait`);
    const steps = perSeed(600);
    let problems = 0;
    for (let step = 0; step < steps && problems === 0; step++) {
      const id = `rule-${String(Math.floor(random() * (count + 10))).padStart(3, '0')}`;
      const roll = random();
      if (roll < 0.4) {
        if (!isDeepStrictEqual(lazy.get(id), model.get(id))) problems++;
      } else if (roll < 0.55) {
        const changed = record(id, 1000 + step);
        lazy.set(id, changed);
        model.set(id, changed);
      } else if (roll < 0.65) {
        if (lazy.delete(id) !== model.delete(id)) problems++;
      } else if (roll < 0.7) {
        // A copy diverges from its original (time travel's snapshots): both keep answering for themselves.
        const copy = runSteps(lazy.copySteps());
        copy.delete(id);
        if (copy.has(id) || lazy.has(id) !== model.has(id)) problems++;
        if (random() < 0.5) {
          lazy = copy;
          model = new Map(model);
          model.delete(id);
        }
      } else if (roll < 0.72) {
        if (!isDeepStrictEqual([...lazy.values()], [...model.values()])) problems++;
      }
      if (lazy.size !== model.size || lazy.has(id) !== model.has(id)) problems++;
      // However records leave the lines (read, replaced, deleted), the text held stays within twice the unread.
      if (lazy.heldLines > 2 * lazy.unread) problems++;
      if ([...lazy.keys()].join() !== [...model.keys()].join()) problems++;
      if (problems > 0) t.fail(`seed ${seed}, step ${step}: differs from the Map after this step${replayHint(seed)}`);
    }
    t.ok(isDeepStrictEqual([...lazy.entries()], [...model.entries()]), `seed ${seed}: the same entries in the same order`);
    t.equal(lazy.unread, 0, `seed ${seed}: everything read, no line held`);
  }
});

t.test('an id on two lines (no snapshot written here has one) is one record, the later line in the earlier place, as Map.set', async (t) => {
  const [a1, b, a2] = [record('a', 1), record('b', 2), record('a', 3)];
  const lazy = LazyRuleRecords.restore(packed([line(a1), line(b), line(a2)]), decode);
  t.same([[...lazy.keys()], lazy.size, lazy.unread], [['a', 'b'], 2, 1]);
  t.same(lazy.get('a'), a2);
  t.same([...lazy.values()], [a2, b]);
});

t.test('a search by a text the wanted records hold decodes only the lines holding it', async (t) => {
  const records = Array.from({ length: 30 }, (_, n) => ({ ...record(`r${n}`, n), entities: n % 10 === 3 ? [{ entity_type: 'context' as const, entity_id: 'ctx "1"' }] : [] }));
  const lazy = LazyRuleRecords.restore(packed(records.map(line)), decode);
  const links = (r: RuleRecord) => r.entities.some((l) => l.entity_id === 'ctx "1"');
  const found = rulesWhere(lazy, JSON.stringify('ctx "1"'), links);
  t.same(found.map((r) => r.id), ['r3', 'r13', 'r23'], 'the linking records, in order');
  t.equal(lazy.unread, 27, 'only those three decoded');
  t.same(rulesWhere(new Map(records.map((r) => [r.id, r])), JSON.stringify('ctx "1"'), links).map((r) => r.id), ['r3', 'r13', 'r23'], 'a Map: the same');
  t.same([mayHold(lazy, 'r4', ['"v4"', '"ACTIVE"']), mayHold(lazy, 'r4', ['"v4"', '"v5"']), mayHold(lazy, 'r3', ['"v5"']), mayHold(lazy, 'r4', [])],
    [true, false, true, true], 'every text on an unread line; a decoded record or no texts: for the caller to judge');
  t.equal(lazy.unread, 27, 'testing texts decodes nothing');
  const copy = runSteps(copyRules(lazy));
  t.ok(copy instanceof LazyRuleRecords && copy.unread === 27 && lazy.unread === 27, 'a copy (time travel\'s) decodes nothing');
  copy.set('draft', record('draft', 99));
  t.same([copy.size, lazy.size, lazy.has('draft')], [31, 30, false], 'and changes apart from its original');
});

t.test('a q search tests an unread line lower-cased and never drops a record the search keeps (seeded nasty texts)', async (t) => {
  // Letters whose lower case is special (Σ final or not, İ, ß, Greek, a pair), and what JSON escapes (quotes, backslashes,
  // controls, lone surrogates): the cases a lower-cased JSON line could answer differently from the value.
  const alphabet = ['a', 'B', 'n', 'Σ', 'σ', 'ς', 'İ', 'ß', 'Ω', '😀', '"', '\\', '\n', '\u001f', '\ud83d', '\ude00', ' ', 'f'];
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    const word = (n: number, from = alphabet) => Array.from({ length: n }, () => from[Math.floor(random() * from.length)]).join('');
    // Ids JSON writes as they are (else the line is decoded at the restore, and tests nothing here).
    const plain = alphabet.filter((c) => JSON.stringify(c).length === c.length + 2);
    const records = Array.from({ length: perSeed(120) }, (_, n) => ({ ...record(`r${n}${word(2, plain)}`, n), name: word(1 + (n % 6)), description: word(n % 4) }));
    const lazy = LazyRuleRecords.restore(packed(records.map(line)), decode);
    const unread = lazy.unread;
    let dropped = 0;
    let skipped = 0;
    for (let i = 0; i < perSeed(300); i++) {
      const from = records[Math.floor(random() * records.length)];
      const source = [from.id, from.name, from.description][Math.floor(random() * 3)];
      const start = Math.floor(random() * (source.length + 1));
      const raw = random() < 0.8 ? source.slice(start, start + 1 + Math.floor(random() * 3)) : word(2);
      const q = random() < 0.5 ? raw.toUpperCase() : raw;
      if (q === '') continue;
      const { keep, foldedMentions } = ruleSearch({ q });
      for (const r of records) {
        const may = mayHold(lazy, r.id, [], foldedMentions);
        if (keep(r) && !may) dropped++;
        if (!may) skipped++;
      }
    }
    t.equal(dropped, 0, `seed ${seed}: no record the search keeps is skipped unread${replayHint(seed)}`);
    t.ok(skipped > 0, `seed ${seed}: and lines that cannot match are skipped (${skipped})`);
    t.ok(unread === records.length && lazy.unread === unread, `seed ${seed}: testing decodes nothing (${unread} unread)`);
  }
  // "\nΣ" lower-cases to "\nσ", its JSON to "\\nς": an escape's letter makes the sigma final.
  const sigma = { ...record('sigma', 1), name: '\nΣ' };
  const one = LazyRuleRecords.restore(packed([line(sigma)]), decode);
  const bySigma = ruleSearch({ q: 'Σ' });
  t.same([bySigma.keep(sigma), mayHold(one, 'sigma', [], bySigma.foldedMentions)], [true, true], 'a sigma beside an escape: kept, not skipped');
  t.same(['a"b', 'a\\b', 'x\ny', '\ud83d', 'σ', 'ς', 'ab'].map(foldedMention), [undefined, undefined, undefined, undefined, undefined, undefined, 'ab'],
    'a query JSON would escape, half a pair or a sigma is not tested on the text');
});

t.test('records deleted or replaced unread leave the lines too: re-packed at half, none held at the end', async (t) => {
  const records = Array.from({ length: 10 }, (_, n) => record(`r${n}`, n));
  const lazy = LazyRuleRecords.restore(packed(records.map(line)), decode);
  for (let n = 0; n < 6; n++) lazy.delete(`r${n}`);
  t.same([lazy.unread, lazy.heldLines], [4, 5], 'six deleted unread: re-packed when five were gone, within twice the unread');
  for (let n = 6; n < 10; n++) lazy.set(`r${n}`, record(`r${n}`, 100 + n));
  t.same([lazy.unread, lazy.heldLines], [0, 0], 'the rest replaced: no line held');
  t.same([...lazy.values()].map((r) => r.revision), [106n, 107n, 108n, 109n], 'the replacements, in order');
});

t.test('reading half the lines re-packs the rest, and reads go on answering the same', async (t) => {
  const records = Array.from({ length: 64 }, (_, n) => record(`r${n}`, n));
  const lazy = LazyRuleRecords.restore(packed(records.map(line)), decode);
  // 48 distinct records in a scattered order: re-packed at 32 read and again at 48.
  for (let n = 0; n < 48; n += 1) t.equal(lazy.get(`r${(n * 5) % 64}`)?.name, records[(n * 5) % 64]!.name);
  t.equal(lazy.unread, 16);
  const items = [...lazy.snapshotItems((r) => r)];
  t.equal(items.filter((item) => item instanceof RawJson).length, 16, 'the unread go out as their lines');
  t.same(items.map((item) => (item instanceof RawJson ? decode(item.text) : item)), records, 'in the restored order, each as it was');
});

t.test('a snapshot restored, written again unread, is the same file; read, changed and written, the same as never lazy', async (t) => {
  const state = initialState();
  for (let n = 0; n < 50; n++) {
    const r = record(`rule-${n}`, n);
    const data = { id: r.id, name: r.name, description: r.description, status: r.status, group_operator: r.group_operator, condition_groups: r.condition_groups, entities: r.entities };
    evolve(state, { id: `e${n}`, stream: `rule-${r.id}`, type: 'RuleCreated', revision: 0n, position: BigInt(n + 1), data, metadata: { actor: 'k', at: r.created_at, request_id: 'q', schema: 1 } } as unknown as RecordedEvent);
  }
  const text = encodeSnapshot(state, 'log-1', MARK);
  const restored = decodeSnapshot(text);
  if (!restored.ok) return t.fail(restored.reason);
  const lazy = restored.snapshot.state;
  t.ok(lazy.rules instanceof LazyRuleRecords && lazy.rules.unread === 50, 'restored as lines, none decoded');
  t.equal(encodeSnapshot(lazy, 'log-1', MARK), text, 'written again unread: byte for byte the same');
  lazy.rules.get('rule-7');
  evolve(lazy, { id: 'e99', stream: 'rule-rule-8', type: 'RuleDeleted', revision: 1n, position: 51n, data: { id: 'rule-8' }, metadata: { actor: 'k', at: '2026-11-24T01:00:00.000Z', request_id: 'q', schema: 1 } } as unknown as RecordedEvent);
  evolve(state, { id: 'e99', stream: 'rule-rule-8', type: 'RuleDeleted', revision: 1n, position: 51n, data: { id: 'rule-8' }, metadata: { actor: 'k', at: '2026-11-24T01:00:00.000Z', request_id: 'q', schema: 1 } } as unknown as RecordedEvent);
  t.equal(encodeSnapshot(lazy, 'log-1', MARK), encodeSnapshot(state, 'log-1', MARK), 'one read, one deleted: the same snapshot as the state never restored');
  t.same(JSON.parse(JSON.stringify(snapshotMembers(lazy))), JSON.parse(JSON.stringify(snapshotMembers(state))), 'members stringify to the same values (RawJson as its value)');
});

t.test('readAhead decodes the unread lines in slices, in order, around records read, replaced or deleted meanwhile', async (t) => {
  const records = Array.from({ length: 40 }, (_, n) => record(`r${n}`, n));
  const lazy = LazyRuleRecords.restore(packed(records.map(line)), decode);
  lazy.get('r3');
  lazy.set('r5', record('r5', 105));
  t.equal(lazy.readAhead(10), 28, '10 more read: 38 unread less the 10');
  const held = lazy.heldLines;
  t.equal(lazy.readAhead(9), 19, 'past half read');
  t.equal(lazy.heldLines, held, 'a read-ahead reads every record: no re-pack on the way');
  lazy.delete('r25');
  lazy.get('r30');
  t.equal(readRulesAhead(lazy, 5), 12, 'one deleted and one read meanwhile, then 5 more: 19 - 2 - 5 left');
  t.equal(lazy.readAhead(1_000), 0, 'the rest');
  t.equal(lazy.readAhead(1_000), 0, 'nothing left: nothing to do');
  t.same([lazy.unread, lazy.heldLines], [0, 0], 'no line held once all are read');
  const want = records.filter((r) => r.id !== 'r25').map((r) => (r.id === 'r5' ? record('r5', 105) : r));
  t.same([...lazy.values()], want, 'every record as a Map of them would hold it, in order');
  t.equal(readRulesAhead(new Map(), 10), 0, 'a plain Map has nothing unread');
  t.equal(unreadRules(lazy), 0);
});

t.test('a re-pack handed to a runner: the old lines serve until the copy is whole, and a copy is dropped once every record is read', async (t) => {
  const records = Array.from({ length: 40 }, (_, n) => record(`r${n}`, n));
  const lazy = LazyRuleRecords.restore(packed(records.map(line)), decode);
  const steps: RepackStep[] = [];
  runRepacksWith(lazy, (step) => steps.push(step));
  for (let n = 0; n < 40; n += 2) lazy.get(`r${n}`);
  t.same([lazy.unread, lazy.heldLines, steps.length], [20, 40, 1], 'half read: a re-pack handed over, the old lines still held');
  lazy.get('r1');
  lazy.set('r3', record('r3', 103));
  lazy.delete('r5');
  t.equal(steps.length, 1, 'one re-pack at a time');
  let calls = 0;
  while (!steps[0]!(3)) calls += 1;
  t.equal(calls, 6, 'three lines a step: the 20 unread when it began, in 7 steps');
  t.same([lazy.unread, lazy.heldLines], [17, 20], 'the copy now serves: the lines unread when it began');
  t.same([...lazy.values()], records.filter((r) => r.id !== 'r5').map((r) => (r.id === 'r3' ? record('r3', 103) : r)), 'every record as a Map would hold it, in order');
  t.same([lazy.unread, lazy.heldLines], [0, 0], 'all read: nothing held');

  const other = LazyRuleRecords.restore(packed(records.map(line)), decode);
  const pending: RepackStep[] = [];
  runRepacksWith(other, (step) => pending.push(step));
  for (let n = 0; n < 20; n++) other.get(`r${n}`);
  t.equal(pending.length, 1);
  t.equal(pending[0]!(5), false, 'a step of 5 of the 20');
  for (let n = 20; n < 40; n++) other.get(`r${n}`);
  t.same([other.unread, other.heldLines], [0, 0], 'every record read before the copy was whole: no line held');
  t.equal(pending[0]!(5), true, 'the copy is dropped: its next step says done');
  t.same([other.unread, other.heldLines], [0, 0], 'and it swaps nothing in');
});

t.test('a copy made in steps equals the one made at once, and hands its re-packs to the original\'s runner', async (t) => {
  // More decoded records than one copy step (copy-steps.ts COPY_STEP, 4096): the decoded map takes two steps.
  const records = Array.from({ length: 9000 }, (_, n) => record(`r${n}`, n));
  const lazy = LazyRuleRecords.restore(packed(records.map(line)), decode);
  for (let n = 0; n < 9000; n++) if (n % 9 < 5) lazy.get(`r${n}`);
  const steps: RepackStep[] = [];
  runRepacksWith(lazy, (step) => steps.push(step));
  const { value: copy, yields } = runCountingSteps(copyRules(lazy));
  t.ok(yields >= 1, `the copy gave way ${yields} times`);
  t.ok(copy instanceof LazyRuleRecords && copy.unread === 4000, 'a lazy copy, unread lines still unread');
  for (let n = 0; n < 9000; n++) if (n % 9 >= 5) copy.get(`r${n}`);
  t.equal(steps.length, 1, 'the copy\'s re-pack (half its lines read) went to the runner, not at once');
  t.equal(lazy.unread, 4000, 'the original read nothing');
  t.same([...copy.entries()], [...runSteps(copyRules(lazy)).entries()], 'the same entries, in the same order, as a copy at once');
});

t.test('the characters of the unread lines: exact when every line is sampled, close from a sample, none once read', async (t) => {
  const random = seededRandom(1128);
  const records = Array.from({ length: 5000 }, (_, n) => ({ ...record(`r${n}`, n), description: 'd'.repeat(Math.floor(random() * 2000)) }));
  const texts = records.map(line);
  const total = (from: number) => texts.slice(from).reduce((sum, text) => sum + text.length, 0);
  const lazy = LazyRuleRecords.restore(packed(texts), decode);
  t.equal(unreadRuleChars(lazy, 5000), total(0), 'every line sampled: their exact sum');
  const estimate = unreadRuleChars(lazy);
  t.ok(Math.abs(estimate - total(0)) < total(0) * 0.1, `256 of them sampled: ${Math.round(estimate)} for ${total(0)}, within 10%`);
  t.equal(lazy.unread, 5000, 'sampling decoded nothing');
  readRulesAhead(lazy, 4000);
  t.equal(unreadRuleChars(lazy, 1), 1000 * texts[4000]!.length, 'the first 4000 read, a sample of one: its one step lands on a read place, so the first unread line stands in');
  t.ok(Math.abs(unreadRuleChars(lazy) - total(4000)) < total(4000) * 0.15, 'a sample of 256 steps finds the unread ones, and is close');
  readRulesAhead(lazy, 1000);
  t.equal(unreadRuleChars(lazy), 0, 'all read: none');
  t.equal(unreadRuleChars(new Map(records.map((r) => [r.id, r]))), 0, 'a plain Map holds no lines');
});
