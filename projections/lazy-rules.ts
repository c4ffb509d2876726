/**
 * The rule records a snapshot restores, each kept as its snapshot line until
 * first read (a match in an answer, a GET, a listing), then decoded once and
 * kept. A start at 1M rules then parses no record (bench: million).
 *
 * It answers as a Map would, in the same order: the restored records keep
 * their places (the snapshot's order, in which the engine image is written
 * and restored, src/engine/image.ts), whether read or replaced; a record set
 * with a new id, or again after its deletion, comes after them, in the order
 * set. The restored ids are found through an IdTable (building a Map of 1M
 * ids was ~0.5 s of the start, src/base/id-table.ts); a decoded record is found in an
 * ordinary Map, so a record read once is a Map lookup away, as before.
 *
 * Memory stays bounded as records are read: once half the lines left are
 * decoded, the rest are copied into lines of their own and the old ones
 * dropped (once none is left, no lines are held), so the lines never hold
 * more than twice the text of the records still unread. Except once a
 * read-ahead has begun (readAhead: its caller reads every record): then the
 * lines go all at once with the last unread one, since re-packing on the
 * way copied the text of ~1M lines again (at 1M rules: 2.3 s of CPU, one
 * re-pack of ~1 s, and a peak of copies besides; bench: audit-stall, the
 * digest). A re-pack runs at once unless a runner is set (runRepacksWith):
 * the service runs them in slices (src/service/read-ahead.ts), since one
 * at once at 1M held the node 1-2 s when evaluate answers had decoded half
 * the records; the old lines serve until the new ones are whole.
 */
import { IdTable } from '../src/base/id-table';
import type { EntityLink } from '../src/events';
import type { Steps } from '../src/base/steps';
import { copyMap } from './copy-steps';
import { RawJson, type JsonLines, type LineKeeper } from './json-lines';
import type { RuleRecord } from './records';
import type { RulesState } from './rules';

/**
 * False when `rules` holds record `id` unread and its JSON lacks one of
 * `texts`, or its JSON lower-cased lacks one of `folded` (see
 * LazyRuleRecords.mayHold); true for any other record. A string value `v`
 * of a record is in its JSON as `JSON.stringify(v)`, so a test that needs
 * a value gives that text; foldedMention says when a case-folded search may be tested so.
 */
export function mayHold(rules: RulesState, id: string, texts: readonly string[], folded: readonly string[] = []): boolean {
  return !(rules instanceof LazyRuleRecords) || rules.mayHold(id, texts, folded);
}

/**
 * The text a record's JSON, lower-cased, holds when one of its string
 * values `v` has `v.toLowerCase().includes(query)` (`query` lower-cased
 * already), or undefined when that cannot be said from the JSON: `query`
 * holds a character JSON escapes (a quote, a backslash, a control
 * character), half of a surrogate pair (a pair's half is never escaped
 * alone in `v`'s JSON), or a lower-case sigma: Σ is the one letter whose
 * lower case depends on its neighbours (final ς or σ), and an escape's last
 * letter (`\n`, `\u001f`) beside it in the JSON is a neighbour `v` lacks.
 * Any other character lower-cases alone, and escaping is per character.
 */
export function foldedMention(query: string): string | undefined {
  return /["\\\u0000-\u001f\ud800-\udfff\u03c2\u03c3]/.test(query) ? undefined : query;
}

/** How many records of `rules` are still unread snapshot lines (0 for a plain Map): what iterating them all would decode. */
export function unreadRules(rules: RulesState): number {
  return rules instanceof LazyRuleRecords ? rules.unread : 0;
}

/**
 * Decodes up to `count` of the records `rules` still holds as lines, in
 * order, and returns how many are left (0 for a plain Map): what lets a
 * caller that needs every record read them in slices, between which other
 * work runs, rather than in one blocking walk (src/service/read-ahead.ts).
 */
export function readRulesAhead(rules: RulesState, count: number): number {
  return rules instanceof LazyRuleRecords ? rules.readAhead(count) : 0;
}

/** Copies up to `lines` more lines of a re-pack; true once it is done (or dropped: nothing left to re-pack). */
export type RepackStep = (lines: number) => boolean;

/** From now on `rules`' re-packs are handed to `run`, which calls the step until it answers true (a plain Map has none). */
export function runRepacksWith(rules: RulesState, run: (step: RepackStep) => void): void {
  if (rules instanceof LazyRuleRecords) rules.runRepacksWith(run);
}

/** The JSON text of each record `rules` still holds as a line, in order, undecoded (none for a plain Map): what a size can be told from. */
export function unreadRuleTexts(rules: RulesState): Iterable<string> {
  return rules instanceof LazyRuleRecords ? rules.unreadTexts() : [];
}

/**
 * About how many characters of JSON the records `rules` still holds as lines
 * come to (0 for a plain Map): their number times the mean length of up to
 * `sample` of them, spread over the places. What decoding them all would put
 * on the heap is told from it (src/base/memory-room.ts) without reading them.
 */
export function unreadRuleChars(rules: RulesState, sample = 256): number {
  return rules instanceof LazyRuleRecords ? rules.unread * rules.meanUnreadLength(sample) : 0;
}

/** A copy of `rules` the caller may change without touching them, in steps (copy-steps.ts); records still unread stay so (no decoding). */
export function copyRules(rules: RulesState): Steps<RulesState> {
  return rules instanceof LazyRuleRecords ? rules.copySteps() : copyMap(rules);
}

/** True when `rule` links `link` (its type and id). */
export function linksEntity(rule: RuleRecord, link: EntityLink): boolean {
  return rule.entities.some((l) => l.entity_type === link.entity_type && l.entity_id === link.entity_id);
}

/**
 * The records of `rules` that link `link`, in order. A rule linking it holds its id as a JSON string: records still
 * unread since a snapshot are searched as text first (rulesWhere).
 */
export function rulesLinking(rules: RulesState, link: EntityLink): RuleRecord[] {
  return rulesWhere(rules, JSON.stringify(link.entity_id), (r) => linksEntity(r, link));
}

/** The records of `rules` that `keep` accepts, in order; `mention`: a text every record it accepts holds (mayHold). */
export function rulesWhere(rules: RulesState, mention: string, keep: (record: RuleRecord) => boolean): RuleRecord[] {
  const found: RuleRecord[] = [];
  for (const id of rules.keys()) {
    if (!mayHold(rules, id, [mention])) continue;
    const record = rules.get(id)!;
    if (keep(record)) found.push(record);
  }
  return found;
}

/** A restored place's record: decoded or replaced, still a line (UNREAD), or deleted (GONE). */
const UNREAD = undefined;
const GONE = null;
type Place = RuleRecord | typeof UNREAD | typeof GONE;

export class LazyRuleRecords implements RulesState {
  /** The restored ids, by place (fixed; the engine keeps these very strings). */
  readonly #ids: readonly string[];
  readonly #table: IdTable;
  /** Per place: its record, UNREAD or GONE. */
  readonly #places: Place[];
  /** Per place still UNREAD: its line in #lines. */
  #lineOf: Int32Array;
  #lines: JsonLines | undefined;
  /** Set by the first readAhead: every record is being read, so the lines are not re-packed on the way. */
  #readingAll = false;
  #unread: number;
  /** Places not GONE. */
  #live: number;
  /** Every record decoded or set, by id: a record read once is one Map lookup away. */
  readonly #decoded: Map<string, RuleRecord>;
  /** Records set with an id that has no live place, in the order set (they come after the places). */
  readonly #after: Map<string, RuleRecord>;
  readonly #decode: (text: string) => RuleRecord;
  /** readAhead's place: every place before it is no longer a line. */
  #cursor = 0;
  /** Who runs a re-pack; unset: at once. */
  #repackRunner: ((step: RepackStep) => void) | undefined;
  /** A re-pack handed to the runner, not yet done: the new line of each place, and the copy being made. */
  #pack: { readonly lineOf: Int32Array; readonly keeper: LineKeeper } | undefined;

  private constructor(
    from: { ids: readonly string[]; table: IdTable; places: Place[]; lineOf: Int32Array; lines: JsonLines | undefined; unread: number; live: number },
    decoded: Map<string, RuleRecord>, after: Map<string, RuleRecord>, decode: (text: string) => RuleRecord,
  ) {
    this.#ids = from.ids;
    this.#table = from.table;
    this.#places = from.places;
    this.#lineOf = from.lineOf;
    this.#lines = from.lines;
    this.#unread = from.unread;
    this.#live = from.live;
    this.#decoded = decoded;
    this.#after = after;
    this.#decode = decode;
  }

  /** The records of `lines`, in their order; a line without a leading id is decoded now to learn it. */
  static restore(lines: JsonLines, decode: (text: string) => RuleRecord): LazyRuleRecords {
    const ids: string[] = [];
    const table = new IdTable(ids, lines.count);
    const places: Place[] = [];
    const lineOf = new Int32Array(lines.count);
    const decoded = new Map<string, RuleRecord>();
    let unread = 0;
    for (let i = 0; i < lines.count; i++) {
      const leading = lines.leadingId(i);
      const record = leading === undefined ? decode(lines.text(i)) : undefined;
      const place = ids.length;
      ids.push(leading ?? record!.id);
      const held = table.add(place);
      if (held !== place) {
        // The same id twice (no snapshot this service writes has it): the later line replaces the earlier in its place, as Map.set would.
        ids.pop();
        if (places[held] === UNREAD) unread -= 1;
        places[held] = record ?? decode(lines.text(i));
        decoded.set(ids[held], places[held]!);
        continue;
      }
      places.push(record);
      lineOf[place] = i;
      if (record === undefined) unread += 1;
      else decoded.set(record.id, record);
    }
    const from = { ids, table, places, lineOf, lines: unread === 0 ? undefined : lines, unread, live: places.length };
    return new LazyRuleRecords(from, decoded, new Map(), decode);
  }

  get size(): number {
    return this.#live + this.#after.size;
  }

  get(id: string): RuleRecord | undefined {
    // A record read before: one Map lookup (evaluate asks for every match).
    return this.#decoded.get(id) ?? this.#readById(id);
  }

  has(id: string): boolean {
    return this.#decoded.has(id) || this.#unreadPlace(id) !== -1;
  }

  set(id: string, record: RuleRecord): this {
    const place = this.#livePlace(id);
    if (place !== -1) {
      const wasLine = this.#places[place] === UNREAD;
      this.#places[place] = record;
      if (wasLine) this.#lineLeft();
    } else {
      this.#after.set(id, record);
    }
    this.#decoded.set(id, record);
    return this;
  }

  delete(id: string): boolean {
    const place = this.#livePlace(id);
    if (place !== -1) {
      const wasLine = this.#places[place] === UNREAD;
      this.#places[place] = GONE;
      this.#live -= 1;
      this.#decoded.delete(id);
      if (wasLine) this.#lineLeft();
      return true;
    }
    if (!this.#after.delete(id)) return false;
    this.#decoded.delete(id);
    return true;
  }

  *keys(): MapIterator<string> {
    for (let place = 0; place < this.#places.length; place++) if (this.#places[place] !== GONE) yield this.#ids[place];
    yield* this.#after.keys();
  }

  *values(): MapIterator<RuleRecord> {
    for (let place = 0; place < this.#places.length; place++) {
      const item = this.#places[place];
      if (item !== GONE) yield item ?? this.#read(place);
    }
    yield* this.#after.values();
  }

  *entries(): MapIterator<[string, RuleRecord]> {
    for (let place = 0; place < this.#places.length; place++) {
      const item = this.#places[place];
      if (item !== GONE) yield [this.#ids[place], item ?? this.#read(place)];
    }
    yield* this.#after.entries();
  }

  [Symbol.iterator](): MapIterator<[string, RuleRecord]> {
    return this.entries();
  }

  forEach(visit: (record: RuleRecord, id: string, map: ReadonlyMap<string, RuleRecord>) => void): void {
    for (const [id, record] of this.entries()) visit(record, id, this);
  }

  /**
   * A copy the fold may change without touching this one (time travel), in
   * steps (copy-steps.ts: the maps of decoded and added records are what take
   * time), while nothing changes or reads this one: the ids, their table and
   * the lines are shared, never changed (a re-pack makes new lines and a new
   * #lineOf). Its re-packs go to this one's runner.
   */
  *copySteps(): Steps<LazyRuleRecords> {
    const from = {
      ids: this.#ids, table: this.#table, places: this.#places.slice(), lineOf: this.#lineOf, lines: this.#lines, unread: this.#unread, live: this.#live,
    };
    const decoded = yield* copyMap(this.#decoded);
    const after = yield* copyMap(this.#after);
    const copy = new LazyRuleRecords(from, decoded, after, this.#decode);
    copy.#repackRunner = this.#repackRunner;
    return copy;
  }

  /** The snapshot's items, in order: a decoded record as `encode` makes it, an unread one as its line, unparsed. */
  *snapshotItems(encode: (record: RuleRecord) => unknown): Generator<unknown> {
    for (let place = 0; place < this.#places.length; place++) {
      const item = this.#places[place];
      if (item !== GONE) yield item === UNREAD ? new RawJson(this.#lines!, this.#lineOf[place]) : encode(item);
    }
    for (const record of this.#after.values()) yield encode(record);
  }

  /**
   * False when record `id` is unread and its line lacks one of `texts`, or
   * the line lower-cased lacks one of `folded`: then no test that needs
   * them can accept it, and it stays unread (a search of 1M mostly unread
   * records decodes only the few that may match). True otherwise (a
   * decoded record is for the caller's test to judge).
   */
  mayHold(id: string, texts: readonly string[], folded: readonly string[] = []): boolean {
    if ((texts.length === 0 && folded.length === 0) || this.#decoded.has(id)) return true;
    const place = this.#unreadPlace(id);
    if (place === -1) return true;
    const line = this.#lines!.text(this.#lineOf[place]);
    if (!texts.every((text) => line.includes(text))) return false;
    if (folded.length === 0) return true;
    const lower = line.toLowerCase();
    return folded.every((text) => lower.includes(text));
  }

  /** Decodes up to `count` unread records, first places first; returns how many are left unread. */
  readAhead(count: number): number {
    this.#readingAll = true;
    let read = 0;
    // Places before the cursor are all read, replaced or gone, and never become lines again.
    for (; this.#cursor < this.#places.length && read < count && this.#unread > 0; this.#cursor++) {
      if (this.#places[this.#cursor] !== UNREAD) continue;
      this.#read(this.#cursor);
      read += 1;
    }
    return this.#unread;
  }

  runRepacksWith(run: (step: RepackStep) => void): void {
    this.#repackRunner = run;
  }

  /** The lines of the records still unread, in place order; records read or changed meanwhile are skipped (a re-pack moves the lines: looked up each time). */
  *unreadTexts(): Generator<string> {
    for (let place = 0; place < this.#places.length; place++) {
      if (this.#places[place] === UNREAD) yield this.#lines!.text(this.#lineOf[place]);
    }
  }

  /** The mean length of up to `sample` unread lines, taken at even steps over the places (0 when none is unread). */
  meanUnreadLength(sample: number): number {
    if (this.#unread === 0) return 0;
    const stride = Math.max(1, Math.floor(this.#places.length / sample));
    let chars = 0;
    let seen = 0;
    for (let place = 0; place < this.#places.length && seen < sample; place += stride) {
      if (this.#places[place] !== UNREAD) continue;
      chars += this.#lines!.text(this.#lineOf[place]).length;
      seen += 1;
    }
    // Every sampled place was read already (a read-ahead walks from the first): the first unread lines stand in.
    if (seen === 0) {
      for (const text of this.unreadTexts()) {
        chars += text.length;
        if (++seen === sample) break;
      }
    }
    return chars / seen;
  }

  /** How many records are still lines (tests; the start's log line). */
  get unread(): number {
    return this.#unread;
  }

  /** How many lines are held, read or not (tests: never more than twice `unread`). */
  get heldLines(): number {
    return this.#lines?.count ?? 0;
  }

  #readById(id: string): RuleRecord | undefined {
    const place = this.#unreadPlace(id);
    return place === -1 ? undefined : this.#read(place);
  }

  /** The restored place of `id` when its record is still a line, else -1. */
  #unreadPlace(id: string): number {
    const place = this.#table.placeOf(id);
    return place !== -1 && this.#places[place] === UNREAD ? place : -1;
  }

  /** The restored place of `id` unless there is none or it was deleted (a record set again goes after the places), else -1. */
  #livePlace(id: string): number {
    const place = this.#table.placeOf(id);
    return place !== -1 && this.#places[place] !== GONE ? place : -1;
  }

  #read(place: number): RuleRecord {
    const record = this.#decode(this.#lines!.text(this.#lineOf[place]));
    this.#places[place] = record;
    this.#decoded.set(this.#ids[place], record);
    this.#lineLeft();
    return record;
  }

  /** One record is no longer a line (decoded, replaced or deleted; #places already says so): the bound above kept. */
  #lineLeft(): void {
    this.#unread -= 1;
    if (this.#unread === 0) {
      this.#lines = undefined;
      this.#pack = undefined;
    } else if (!this.#readingAll && this.#pack === undefined && this.#unread * 2 <= this.#lines!.count) this.#repack();
  }

  /**
   * The unread lines into lines of their own, renumbered; the places stay (a
   * new #lineOf: a copy may share the old). Handed to the runner, the old
   * lines serve until the copy is whole: no place becomes a line again, so
   * every place still unread then was unread now, and is in the copy.
   */
  #repack(): void {
    const kept: number[] = [];
    const lineOf = new Int32Array(this.#places.length);
    for (let place = 0; place < this.#places.length; place++) {
      if (this.#places[place] !== UNREAD) continue;
      lineOf[place] = kept.length;
      kept.push(this.#lineOf[place]);
    }
    const pack = { lineOf, keeper: this.#lines!.keeper(kept) };
    this.#pack = pack;
    const step: RepackStep = (lines) => {
      // Dropped meanwhile: every record was read, so there are no lines left to re-pack.
      if (this.#pack !== pack) return true;
      let done: boolean;
      try {
        done = pack.keeper.step(lines);
      } catch (error) {
        // The copy failed (memory): the old lines go on serving, and the next record read starts a new re-pack.
        this.#pack = undefined;
        throw error;
      }
      if (!done) return false;
      this.#lines = pack.keeper.lines;
      this.#lineOf = pack.lineOf;
      this.#pack = undefined;
      return true;
    };
    if (this.#repackRunner === undefined) step(kept.length);
    else this.#repackRunner(step);
  }
}
