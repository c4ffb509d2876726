/**
 * The rule records a snapshot restores, each kept as its snapshot line until
 * first read (a match in an answer, a GET, a listing), then decoded once and
 * kept. A start at 1M rules then parses no record (bench: million). A
 * decoded record takes its line's place in one Map, so the order of keys()
 * and values() is the snapshot's and stays one order (the engine image is
 * written and restored in it, src/engine/image.ts). Records the fold writes
 * after the restore are ordinary ones.
 *
 * Memory stays bounded as records are read: once half the lines left are
 * decoded, the rest are copied into lines of their own and the old ones
 * dropped (once none is left, no lines are held), so the lines never hold
 * more than twice the text of the records still unread.
 */
import { RawJson, type JsonLines } from './json-lines';
import type { RuleRecord } from './records';
import type { RulesState } from './rules';

/**
 * False when `rules` holds record `id` unread and its JSON lacks one of
 * `texts` (see LazyRuleRecords.mayHold); true for any other record. A
 * string value `v` of a record is in its JSON as `JSON.stringify(v)`, so a
 * test that needs a value gives that text.
 */
export function mayHold(rules: RulesState, id: string, texts: readonly string[]): boolean {
  return !(rules instanceof LazyRuleRecords) || rules.mayHold(id, texts);
}

/** A copy of `rules` the caller may change without touching them; records still unread stay so (no decoding). */
export function copyRules(rules: RulesState): RulesState {
  return rules instanceof LazyRuleRecords ? rules.copy() : new Map(rules);
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

export class LazyRuleRecords implements RulesState {
  /** A record, or the number of its line in `lines`. */
  readonly #items: Map<string, RuleRecord | number>;
  #lines: JsonLines | undefined;
  /** Lines not decoded yet (numbers among #items). */
  #unread: number;
  readonly #decode: (text: string) => RuleRecord;

  private constructor(items: Map<string, RuleRecord | number>, lines: JsonLines | undefined, unread: number, decode: (text: string) => RuleRecord) {
    this.#items = items;
    this.#lines = lines;
    this.#unread = unread;
    this.#decode = decode;
  }

  /** The records of `lines`, in their order; a line without a leading id is decoded now to learn it. */
  static restore(lines: JsonLines, decode: (text: string) => RuleRecord): LazyRuleRecords {
    const items = new Map<string, RuleRecord | number>();
    let unread = 0;
    for (let i = 0; i < lines.count; i++) {
      const id = lines.leadingId(i);
      if (id === undefined) {
        const record = decode(lines.text(i));
        items.set(record.id, record);
      } else {
        items.set(id, i);
        unread += 1;
      }
    }
    return new LazyRuleRecords(items, unread === 0 ? undefined : lines, unread, decode);
  }

  get size(): number {
    return this.#items.size;
  }

  get(id: string): RuleRecord | undefined {
    const item = this.#items.get(id);
    return typeof item === 'number' ? this.#read(id, item) : item;
  }

  has(id: string): boolean {
    return this.#items.has(id);
  }

  set(id: string, record: RuleRecord): this {
    const wasLine = typeof this.#items.get(id) === 'number';
    this.#items.set(id, record);
    if (wasLine) this.#lineLeft();
    return this;
  }

  delete(id: string): boolean {
    const wasLine = typeof this.#items.get(id) === 'number';
    const deleted = this.#items.delete(id);
    if (wasLine) this.#lineLeft();
    return deleted;
  }

  keys(): MapIterator<string> {
    return this.#items.keys();
  }

  *values(): MapIterator<RuleRecord> {
    for (const [id, item] of this.#items) yield typeof item === 'number' ? this.#read(id, item) : item;
  }

  *entries(): MapIterator<[string, RuleRecord]> {
    for (const [id, item] of this.#items) yield [id, typeof item === 'number' ? this.#read(id, item) : item];
  }

  [Symbol.iterator](): MapIterator<[string, RuleRecord]> {
    return this.entries();
  }

  forEach(visit: (record: RuleRecord, id: string, map: ReadonlyMap<string, RuleRecord>) => void): void {
    for (const [id, record] of this.entries()) visit(record, id, this);
  }

  /** A copy the fold may change without touching this one (time travel); the lines are shared, never changed. */
  copy(): LazyRuleRecords {
    return new LazyRuleRecords(new Map(this.#items), this.#lines, this.#unread, this.#decode);
  }

  /** The snapshot's items, in order: a decoded record as `encode` makes it, an unread one as its line, unparsed. */
  *snapshotItems(encode: (record: RuleRecord) => unknown): Generator<unknown> {
    for (const item of this.#items.values()) yield typeof item === 'number' ? new RawJson(this.#lines!, item) : encode(item);
  }

  /**
   * False when record `id` is unread and its line lacks one of `texts`:
   * then no test that needs them can accept it, and it stays unread (a
   * search of 1M mostly unread records decodes only the few that may match).
   * True otherwise (a decoded record is for the caller's test to judge).
   */
  mayHold(id: string, texts: readonly string[]): boolean {
    const item = this.#items.get(id);
    if (typeof item !== 'number' || texts.length === 0) return true;
    const line = this.#lines!.text(item);
    return texts.every((text) => line.includes(text));
  }

  /** How many records are still lines (tests; the start's log line). */
  get unread(): number {
    return this.#unread;
  }

  /** How many lines are held, read or not (tests: never more than twice `unread`). */
  get heldLines(): number {
    return this.#lines?.count ?? 0;
  }

  #read(id: string, line: number): RuleRecord {
    const record = this.#decode(this.#lines!.text(line));
    this.#items.set(id, record);
    this.#lineLeft();
    return record;
  }

  /** One record is no longer a line (decoded, replaced or deleted; #items already says so): the bound above kept. */
  #lineLeft(): void {
    this.#unread -= 1;
    if (this.#unread === 0) this.#lines = undefined;
    else if (this.#unread * 2 <= this.#lines!.count) this.#repack();
  }

  /** The unread lines into lines of their own, renumbered (a value set in place keeps the Map's order). */
  #repack(): void {
    const kept: number[] = [];
    for (const [id, item] of this.#items) {
      if (typeof item !== 'number') continue;
      this.#items.set(id, kept.length);
      kept.push(item);
    }
    this.#lines = this.#lines!.keep(kept);
  }
}
