/**
 * The compiled engine as bytes and back, so a start from a snapshot compiles
 * nothing (bench: million; a --cpu-prof of a 200k start put about half of
 * its CPU in compiling rules). An image is a few named sections: the
 * arena's words and the posting handle table as they are, each rule's entry
 * as int32s, the sort keys as float64s, JSON for the field slots and
 * pools, and the shared predicates as one JSON row per line, which a
 * restored engine reads after its start (shared-predicates.ts). No rule ids: the rules are written
 * in the order of the ids the caller gives (the snapshot's rule records) and
 * restored from the same ids. A predicate's compiled
 * regex is no bytes: its pattern is compiled again, re2js's part on its
 * first test (predicates.ts, restoreRegex).
 *
 * Taking an image copies what may change (the arena's words, the handle
 * table), so the caller can write it out across awaits while events apply.
 * A restored engine answers and changes exactly as the one imaged
 * (test/engine/image.test.ts). Restoring trusts the bytes' structure only
 * as far as it checks it: the snapshot's checksums guard their integrity.
 */
import { Deferred, type Steps } from '../base/steps';
import { createAffixIndex, type AffixIndex } from './affix-index';
import { engineOver, type EngineOptions } from './engine';
import { createFieldSlot, type FieldSlot } from './field-index';
import { Layout } from './layout';
import { regexEntry, type RegexEntry } from './code';
import { compileRegex, Kind, restoreRegex, type Predicate } from './predicates';
import { NO_FILTER } from './regex-prefilter';
import { createResiduals, type Residuals } from './residuals';
import { entryWords, RuleTable } from './rule-table';
import { SharedPredicates } from './shared-predicates';
import { createState, stateOf, type RuleEntry, type SharedPredicate } from './state';
import { createThresholds, type Thresholds } from './thresholds';
import type { Engine } from './types';

/** One named part of an image. */
export interface ImageSection {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** Section names, in the order they are written. */
export const IMAGE_SECTIONS = ['engine.meta', 'engine.predicates', 'engine.keys', 'engine.rules', 'engine.arena', 'engine.postings'] as const;

/** In the rules section: the id at this place in the order has no entry (inactive or removed). */
const ABSENT = -2;
/** While imaging: the id's entry is held as an object (rule-table.ts), not as words of the image restored from. */
const HELD = -3;

/** A number JSON keeps exactly: NaN, ±Infinity and -0 as strings. */
type Num = number | string;
const num = (x: number): Num => (Number.isFinite(x) && !Object.is(x, -0) ? x : Object.is(x, -0) ? '-0' : String(x));
const unnum = (x: Num): number => (typeof x === 'number' ? x : Number(x));

const json = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');
const bytesOf = (array: Int32Array | Float64Array): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength).slice();

/** A predicate row's empty texts or nums. */
const NONE: never[] = [];

/** [key, kind, field, text, num, num2, texts, nums, refs] */
type PredicateRow = [string, Kind, string, string, Num, Num, string[], Num[], number];

interface ThresholdsRow { size: number; bound: Num[]; high: Num[]; inclusive: number[]; handle: number[] }
interface AffixRow { byOperand: Array<[string, number]>; lengths: number[]; filters: number[]; bitCounts: number[][] }
interface ResidualsRow { size: number; needLo: number[]; needHi: number[]; handle: number[] }
interface SlotRow {
  name: string; index: number; refs: number; textReads: number; numReads: number; boolReads: number;
  /** [value, count, 1 when the value is a number] */
  named: Array<[Num, number, number]>;
  valueIds: Array<[string, number]>; valueRefs: number[]; freeValueIds: number[]; textPostings: number[];
  numPostings: Array<[Num, number]>; boolPostings: [number, number];
  above: ThresholdsRow; below: ThresholdsRow; between: ThresholdsRow; prefixes: AffixRow; suffixes: AffixRow; scan: ResidualsRow;
}
interface Meta {
  arenaFree: Array<number[] | null>;
  freeHandles: number[];
  freeRuleIndexes: number[];
  /** Rule numbers issued (in use or free). */
  ruleNumbers: number;
  slots: SlotRow[]; freeSlots: number[]; slotCount: number; viewLength: number;
  strings: { items: string[]; entries: Array<[string, number, number]>; free: number[] };
  /** `patterns`: each entry's regex, so a restore compiles them without reading the predicates. */
  regexes: { length: number; entries: Array<[string, number, number]>; free: number[]; patterns: string[] };
  /** Rows in the predicates section. */
  predicateCount: number;
  keyed: Array<[string, number]>;
  /** The imaged engine's evaluation epoch: the restored one goes on after it, so no restored stamp reads as its own. */
  epoch: number;
}

const thresholdsRow = (t: Thresholds): ThresholdsRow => ({
  size: t.size, bound: [...t.bound.subarray(0, t.size)].map(num), high: [...t.high.subarray(0, t.size)].map(num),
  inclusive: [...t.inclusive.subarray(0, t.size)], handle: [...t.handle.subarray(0, t.size)],
});
const affixRow = (a: AffixIndex<number>): AffixRow => ({
  byOperand: [...a.byOperand], lengths: a.lengths, filters: a.filters, bitCounts: a.bitCounts.map((counts) => [...counts]),
});
const residualsRow = (r: Residuals): ResidualsRow => ({
  size: r.size, needLo: [...r.needLo.subarray(0, r.size)], needHi: [...r.needHi.subarray(0, r.size)], handle: [...r.handle.subarray(0, r.size)],
});
const slotRow = (s: FieldSlot): SlotRow => ({
  name: s.name, index: s.index, refs: s.refs, textReads: s.textReads, numReads: s.numReads, boolReads: s.boolReads,
  named: [...s.named].map(([value, count]) => (typeof value === 'number' ? [num(value), count, 1] : [value, count, 0])),
  valueIds: [...s.valueIds], valueRefs: s.valueRefs, freeValueIds: s.freeValueIds, textPostings: s.textPostings,
  numPostings: [...s.numPostings].map(([value, h]) => [num(value), h]), boolPostings: s.boolPostings,
  above: thresholdsRow(s.above), below: thresholdsRow(s.below), between: thresholdsRow(s.between),
  prefixes: affixRow(s.prefixes), suffixes: affixRow(s.suffixes), scan: residualsRow(s.scan),
});

/**
 * The engine's image: its sections, copied, so the engine may change while
 * they are written. The rules are written in the order of `ids` (which must
 * name every rule the engine holds; others are written as absent), and
 * restored in that order from the same ids: the image keeps no ids of its
 * own. The snapshot's rule records are that order (snapshotter.ts), so a
 * start neither parses nor hashes 1M id strings a second time (bench:
 * million, 1M: ~0.7 s CPU and ~56 MB of strings).
 */
export function engineImage(engine: Engine, ids: Iterable<string>): ImageSection[] {
  const state = stateOf(engine);
  // By object first (an identity hash), by key for the rare equal copy a rule holds (build.ts shares by key): bench: million, 1M.
  const byObject = new Map<Predicate, number>();
  const byKey = new Map<string, number>();
  const predicates: PredicateRow[] = [];
  for (const [key, { predicate: p, refs }] of state.predicates) {
    byObject.set(p, predicates.length);
    byKey.set(key, predicates.length);
    const texts = p.texts.size === 0 ? NONE : [...p.texts];
    const nums = p.nums.size === 0 ? NONE : [...p.nums].map(num);
    predicates.push([key, p.kind, p.field, p.text, num(p.num), num(p.num2), texts, nums, refs]);
  }
  // Each rule: index, record, recordWords, group count, each group (offset, words, target, driver count, drivers), use count, uses
  // (rule-table.ts). Each id's entry looked up once: the offset of a restored rule's words (the most, after a start from an
  // image), HELD for one held as an object (in `objects`, in order), ABSENT for one the engine does not hold.
  const where: number[] = [];
  const objects: RuleEntry[] = [];
  const imaged = state.rules.imagedWords;
  let words = 0;
  for (const id of ids) {
    const entry = state.rules.locate(id);
    if (entry === undefined) {
      where.push(ABSENT);
      words += 1;
    } else if (typeof entry === 'number') {
      where.push(entry);
      words += entryWords(imaged!.words, entry);
    } else {
      where.push(HELD);
      objects.push(entry);
      words += 5 + entry.uses.length;
      for (const group of entry.groups) words += 4 + group.drivers.length;
    }
  }
  let held = 0;
  for (const k of where) if (k !== ABSENT) held += 1;
  if (held !== state.rules.size) throw new Error(`the order names ${held} of the engine's ${state.rules.size} rules`);
  const rules = new Int32Array(words);
  let w = 0;
  const ref = (p: Predicate): number => byObject.get(p) ?? byKey.get(p.key)!;
  // A restored rule's words are copied as they are but for their predicate numbers, renumbered: no entry object is made.
  const renumber = imaged === undefined ? undefined : Int32Array.from(imaged.predicates(), (p) => byObject.get(p) ?? byKey.get(p.key) ?? -1);
  let next = 0;
  for (const k of where) {
    if (k === ABSENT) {
      rules[w++] = ABSENT;
      continue;
    }
    if (k !== HELD) {
      w = copyEntry(imaged!.words, k, rules, w, renumber!);
      continue;
    }
    const entry = objects[next++];
    rules[w++] = entry.index;
    rules[w++] = entry.record;
    rules[w++] = entry.recordWords;
    rules[w++] = entry.groups.length;
    for (const group of entry.groups) {
      rules[w++] = group.offset;
      rules[w++] = group.words;
      rules[w++] = group.target;
      rules[w++] = group.drivers.length;
      for (const driver of group.drivers) rules[w++] = ref(driver);
    }
    rules[w++] = entry.uses.length;
    for (const use of entry.uses) rules[w++] = ref(use);
  }
  const arena = state.arena.image();
  const postings = state.postings.image();
  const operands = state.operands.image();
  const regexEntries = [...operands.regexes.entries] as Meta['regexes']['entries'];
  const meta: Meta = {
    arenaFree: arena.free.map((list) => (list === null ? null : [...list])),
    freeHandles: [...postings.freeHandles],
    freeRuleIndexes: state.freeRuleIndexes,
    ruleNumbers: state.ruleIds.length,
    slots: operands.slots.map(slotRow),
    freeSlots: [...operands.freeSlots],
    slotCount: operands.slotCount,
    viewLength: operands.viewLength,
    strings: { items: [...operands.strings.items], entries: [...operands.strings.entries] as Meta['strings']['entries'], free: [...operands.strings.free] },
    regexes: {
      length: operands.regexes.items.length, entries: regexEntries, free: [...operands.regexes.free],
      patterns: regexEntries.map(([key]) => {
        const row = byKey.get(key);
        if (row === undefined) throw new Error(`the engine's regex ${JSON.stringify(key)} has no predicate`);
        return predicates[row]![3];
      }),
    },
    predicateCount: predicates.length,
    keyed: [...state.drivers.keyed],
    epoch: state.operands.view.epoch,
  };
  const sections: Record<(typeof IMAGE_SECTIONS)[number], Uint8Array> = {
    'engine.meta': json(meta),
    'engine.predicates': Buffer.from(predicates.map((row) => JSON.stringify(row)).join('\n'), 'utf8'),
    'engine.keys': bytesOf(Float64Array.from(state.ruleKeys)),
    'engine.rules': bytesOf(rules),
    'engine.arena': bytesOf(arena.words),
    'engine.postings': bytesOf(postings.at),
  };
  return IMAGE_SECTIONS.map((name) => ({ name, bytes: sections[name] }));
}

/** Copies the entry at `from` in `source` to `target` at `to`, its predicate numbers through `renumber`; returns the word after it. */
function copyEntry(source: Int32Array, from: number, target: Int32Array, to: number, renumber: Int32Array): number {
  let r = from;
  let w = to;
  target[w++] = source[r++];
  target[w++] = source[r++];
  target[w++] = source[r++];
  let groups = (target[w++] = source[r++]);
  for (; groups > 0; groups--) {
    target[w++] = source[r++];
    target[w++] = source[r++];
    target[w++] = source[r++];
    let drivers = (target[w++] = source[r++]);
    for (; drivers > 0; drivers--) target[w++] = renumber[source[r++]];
  }
  let uses = (target[w++] = source[r++]);
  for (; uses > 0; uses--) target[w++] = renumber[source[r++]];
  return w;
}

const parse = <T>(bytes: Uint8Array): T => JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;

/** Typed words over `bytes` (copied when not aligned for them). */
function wordsOf<T extends Int32Array | Float64Array>(bytes: Uint8Array, make: new (buffer: ArrayBufferLike, offset: number, length: number) => T, size: number): T {
  if (bytes.byteLength % size !== 0) throw new Error(`a section of ${bytes.byteLength} bytes is not whole ${size}-byte words`);
  const aligned = bytes.byteOffset % size === 0 ? bytes : bytes.slice();
  return new make(aligned.buffer, aligned.byteOffset, aligned.byteLength / size);
}

function thresholdsFrom(row: ThresholdsRow, direction: 1 | -1): Thresholds {
  const t = createThresholds(direction);
  const n = Math.max(4, row.size);
  t.size = row.size;
  t.bound = new Float64Array(n);
  t.bound.set(row.bound.map(unnum));
  t.high = new Float64Array(n);
  t.high.set(row.high.map(unnum));
  t.inclusive = new Uint8Array(n);
  t.inclusive.set(row.inclusive);
  t.handle = new Int32Array(n);
  t.handle.set(row.handle);
  return t;
}

function affixFrom(row: AffixRow, suffix: boolean): AffixIndex<number> {
  const a = createAffixIndex<number>(suffix);
  for (const [operand, h] of row.byOperand) a.byOperand.set(operand, h);
  a.lengths.push(...row.lengths);
  a.filters.push(...row.filters);
  a.bitCounts.push(...row.bitCounts.map((counts) => Int32Array.from(counts)));
  return a;
}

function residualsFrom(row: ResidualsRow): Residuals {
  const r = createResiduals();
  const n = Math.max(4, row.size);
  r.size = row.size;
  r.needLo = new Int32Array(n);
  r.needLo.set(row.needLo);
  r.needHi = new Int32Array(n);
  r.needHi.set(row.needHi);
  r.handle = new Int32Array(n);
  r.handle.set(row.handle);
  return r;
}

function slotFrom(row: SlotRow): FieldSlot {
  const fresh = createFieldSlot(row.name, row.index);
  const slot: FieldSlot = {
    ...fresh,
    refs: row.refs, textReads: row.textReads, numReads: row.numReads, boolReads: row.boolReads,
    named: new Map(row.named.map(([value, count, isNumber]) => [isNumber === 1 ? unnum(value) : (value as string), count])),
    valueIds: new Map(row.valueIds), valueRefs: row.valueRefs, freeValueIds: row.freeValueIds, textPostings: row.textPostings,
    numPostings: new Map(row.numPostings.map(([value, h]) => [unnum(value), h])), boolPostings: row.boolPostings,
    above: thresholdsFrom(row.above, 1), below: thresholdsFrom(row.below, -1),
    between: thresholdsFrom(row.between, 1), prefixes: affixFrom(row.prefixes, false), suffixes: affixFrom(row.suffixes, true), scan: residualsFrom(row.scan),
  };
  return slot;
}

const NO_TEXTS: ReadonlySet<string> = new Set();
const NO_NUMS: ReadonlySet<number> = new Set();

function predicateFrom([key, kind, field, text, n, n2, texts, nums]: PredicateRow): Predicate {
  const regex = kind === Kind.REGEX ? restoreRegex(text) : null;
  return {
    key, field, kind, text, num: unnum(n), num2: unnum(n2), texts: texts.length === 0 ? NO_TEXTS : new Set(texts),
    nums: nums.length === 0 ? NO_NUMS : new Set(nums.map(unnum)),
    re: regex?.re ?? null, filter: regex?.filter ?? NO_FILTER, fast: regex?.fast ?? null,
  };
}

/** Section buffers read with zeroed room past the section, from offset 0, owned by the image (markRoom). */
const roomy = new WeakSet<ArrayBufferLike>();

/**
 * Bytes of room worth reading a section of `bytes` into (src/snapshots/engine-image-file.ts):
 * a quarter more for the arena, none for the rest. Restored at its image's size,
 * a 1M-rule arena (125 MB) was copied whole into a doubled buffer by the first
 * write after the start, the node held 0.1-0.4 s (bench: audit-stall's write probe).
 */
export function sectionRoom(name: string, bytes: number): number {
  return name === 'engine.arena' ? Math.ceil(bytes / 32) * 8 : 0;
}

/**
 * Says that `section` starts its own buffer and the buffer past it is zeroed
 * room: the restored arena grows into it in place. Only for a buffer made so
 * (never a pooled one, whose bytes past a section are another's).
 */
export function markRoom(section: Uint8Array): void {
  if (section.byteOffset === 0) roomy.add(section.buffer);
}

/**
 * An engine from its image's sections (by name), live: it answers, upserts
 * and removes as the engine imaged did. Throws, naming what is wrong, when a
 * section is missing or does not fit, or `ids` are not the order it was
 * imaged in (engineImage): the engine keeps these very id strings.
 */
export function engineFromImage(sections: ReadonlyMap<string, Uint8Array>, ids: Iterable<string>, options: EngineOptions = {}): Engine {
  const section = (name: string): Uint8Array => {
    const bytes = sections.get(name);
    if (bytes === undefined) throw new Error(`the engine image has no ${name} section`);
    return bytes;
  };
  const meta = parse<Meta>(section('engine.meta'));
  const predicateCount = meta.predicateCount;
  if (!Number.isInteger(predicateCount) || predicateCount < 0) throw new Error('the engine image has no predicate count');
  const ruleIds = new Array<string>(meta.ruleNumbers).fill('');
  const ruleKeys = numbersOf(wordsOf(section('engine.keys'), Float64Array, 8));
  const stream = wordsOf(section('engine.rules'), Int32Array, 4);
  const arenaSection = section('engine.arena');
  const arenaWords = wordsOf(arenaSection, Int32Array, 4);
  // The room a reader gave the arena (markRoom), whole float64s of it.
  const arenaCapacity = arenaWords.buffer === arenaSection.buffer && roomy.has(arenaSection.buffer) ? (arenaSection.buffer.byteLength >> 3) << 1 : undefined;
  const at = wordsOf(section('engine.postings'), Int32Array, 4);
  if (!Number.isInteger(meta.epoch) || meta.epoch < 0) throw new Error('the engine image has no evaluation epoch');
  if (ruleKeys.length !== ruleIds.length) throw new Error(`the engine image has ${ruleIds.length} rule numbers and ${ruleKeys.length} sort keys`);

  // Made from their rows and indexed by key in steps after the start (shared-predicates.ts); only writes and images read them.
  const shared = new Deferred(sharedFromRows(section('engine.predicates'), predicateCount));
  let numbered: Predicate[] | undefined;
  const byNumber = (): readonly Predicate[] => (numbered ??= shared.value().map((s) => s.predicate));
  // Each rule's words stay where they are, found by its number (rule-table.ts); read here only to check them and find the next.
  const entryAt = new Int32Array(ruleIds.length).fill(-1);
  const neverMatch = new Map<string, RuleEntry>();
  let count = 0;
  let w = 0;
  const next = (): number => {
    if (w >= stream.length) throw new Error('the engine image\'s rules end early');
    return stream[w++];
  };
  const refs = (n: number): void => {
    for (let i = 0; i < n; i++) {
      const k = next();
      if (!(k >= 0 && k < predicateCount)) throw new Error(`the engine image names predicate ${k} of ${predicateCount}`);
    }
  };
  for (const id of ids) {
    const start = w;
    const index = next();
    if (index === ABSENT) continue;
    if (index === Layout.NEVER_MATCHES) {
      // No number to find it by, and nothing in it: held as an object (rare: a rule no input can satisfy).
      w += 4;
      if (w > stream.length || stream[start + 3] !== 0 || stream[start + 4] !== 0) throw new Error(`the engine image gives never-matching rule ${JSON.stringify(id)} records`);
      neverMatch.set(id, { index, record: Layout.NONE, recordWords: 0, groups: [], uses: [] });
      continue;
    }
    if (!(index >= 0 && index < ruleIds.length) || ruleIds[index] !== '') throw new Error(`the engine image gives rule number ${index} twice or out of range`);
    ruleIds[index] = id;
    entryAt[index] = start;
    count += 1;
    next();
    next();
    for (let g = next(); g > 0; g--) {
      next();
      next();
      next();
      refs(next());
    }
    refs(next());
  }
  if (w !== stream.length) throw new Error('the engine image holds more rules than the ids given');
  const rules = new RuleTable(ruleIds, { words: stream, at: entryAt, predicates: byNumber, count }, neverMatch);

  const regexItems: RegexEntry[] = new Array(meta.regexes.length);
  if (!Array.isArray(meta.regexes.patterns) || meta.regexes.patterns.length !== meta.regexes.entries.length) throw new Error('the engine image\'s regexes have no patterns');
  meta.regexes.entries.forEach(([, index], i) => {
    regexItems[index] = regexEntry(restoreRegex(meta.regexes.patterns[i]!));
  });
  // Indexes of released regexes are read by nothing but the epoch wrap, which resets their memo: any entry will do.
  for (let i = 0; i < regexItems.length; i++) regexItems[i] ??= placeholderRegex();

  const state = createState({
    arena: { words: arenaWords, free: meta.arenaFree, capacity: arenaCapacity },
    postings: { at, freeHandles: meta.freeHandles },
    operands: {
      slots: meta.slots.map(slotFrom), freeSlots: meta.freeSlots, slotCount: meta.slotCount, viewLength: meta.viewLength,
      strings: meta.strings, regexes: { items: regexItems, entries: meta.regexes.entries, free: meta.regexes.free },
    },
    keyed: new Map(meta.keyed),
    rules, ruleIds, ruleKeys, freeRuleIndexes: meta.freeRuleIndexes, predicates: new SharedPredicates(shared),
  });
  // Before the evaluator is made: it starts from this epoch (match.ts).
  state.operands.view.epoch = meta.epoch;
  return engineOver(state, options);
}

/** Rows made into predicates per step. */
const ROW_STEP = 2048;

/**
 * The shared predicates of the image's rows (one JSON row per line), in steps, after the start: the
 * section's checksum has vouched for the rows this module wrote, as the snapshot's for its rule lines.
 */
function* sharedFromRows(section: Uint8Array, count: number): Steps<SharedPredicate[]> {
  const bytes = Buffer.from(section.buffer, section.byteOffset, section.byteLength);
  const shared: SharedPredicate[] = [];
  for (let at = 0; at < bytes.length;) {
    let end = bytes.indexOf(10, at);
    if (end === -1) end = bytes.length;
    const row = JSON.parse(bytes.toString('utf8', at, end)) as PredicateRow;
    shared.push({ predicate: predicateFrom(row), refs: row[8] });
    at = end + 1;
    if (shared.length % ROW_STEP === 0) yield;
  }
  if (shared.length !== count) throw new Error(`the engine image holds ${shared.length} predicates, its meta says ${count}`);
  return shared;
}

/**
 * A plain array of `words`: Array.from's iteration took ~0.1 s for 1M sort keys (bench: start-from-snapshot).
 * Pushed, not written into `new Array(n)`: the array stays packed (no hole checks where answers are sorted).
 */
function numbersOf(words: Float64Array): number[] {
  const numbers: number[] = [];
  for (let i = 0; i < words.length; i++) numbers.push(words[i]!);
  return numbers;
}

function placeholderRegex(): RegexEntry {
  return regexEntry(compileRegex('x^')!);
}
