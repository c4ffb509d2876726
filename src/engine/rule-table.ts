/**
 * The active rules' entries by id (state.ts: what an entry is). A restored
 * engine's rules stay in its image's entry words (image.ts) and are decoded
 * into RuleEntry objects only when one is asked for (an upsert or remove of
 * that rule, inspect.ts); rules added after the restore, and the restored
 * rules that can never match (they have no number), are held as objects.
 * Building 1M entry objects and a 1M-id Map was most of a restore's own
 * work and a good share of its GC (bench: start-from-snapshot, 1M: a
 * --cpu-prof put 1.5 s in engineFromImage).
 *
 * An imaged rule is found by its number: the image's entry offsets are kept
 * by rule number, and the id -> number table (indexOf) is built only when an
 * id not held as an object is first looked up (one pass over ruleIds), so a
 * start that changes no restored rule never builds it.
 *
 * Entry words, as engine.rules stores them (image.ts): index, record,
 * recordWords, group count, then per group offset, words, target, driver
 * count, the drivers (predicate numbers), then use count, the uses.
 */
import { IdTable } from '../base/id-table';
import { runSteps, type Steps } from '../base/steps';
import { Layout } from './layout';
import type { Predicate } from './predicates';
import type { GroupEntry, RuleEntry } from './state';

/** A restored engine's rule entries as the image holds them. */
export interface ImagedEntries {
  /** The entry words (see above). */
  readonly words: Int32Array;
  /** Each rule number's entry offset in `words`, -1 for a number with none. */
  readonly at: Int32Array;
  /** The predicates entry words name by number: made when first asked for (a restored engine makes them after its start, image.ts). */
  readonly predicates: () => readonly Predicate[];
  /** How many numbers have an entry. */
  readonly count: number;
}

const NO_ENTRY = -1;

/** The words of the entry at `w`: its groups' and uses' counts read in place. */
export function entryWords(words: Int32Array, w: number): number {
  let p = w + 4;
  for (let g = words[w + 3]; g > 0; g--) p += 4 + words[p + 3];
  return p + 1 + words[p] - w;
}

/**
 * The imaged rules' numbers by id (src/base/id-table.ts): 1M ids cost one 8 MB
 * array and a hash each, no Map entries (bench: start-from-snapshot, 1M: a
 * Map was 0.6 s CPU of the shutdown image, the first lookup after a start).
 */
function* indexOf(ruleIds: readonly string[], imaged: ImagedEntries): Steps<IdTable> {
  const table = new IdTable(ruleIds, imaged.count);
  for (let n = 0; n < imaged.at.length; n++) {
    if (imaged.at[n] !== NO_ENTRY) table.add(n);
    if ((n & (INDEX_STEP - 1)) === INDEX_STEP - 1) yield;
  }
  return table;
}

/** Ids added to the table per step: about a millisecond (1M in ~0.3 s). */
const INDEX_STEP = 4096;

export class RuleTable {
  private readonly held = new Map<string, RuleEntry>();
  private readonly imaged: ImagedEntries | undefined;
  /** Imaged entries not yet removed. */
  private imagedCount: number;
  /** Imaged rules' numbers by id (indexOf), built on the first lookup that needs it, or before by `prepare`. */
  private numbers: IdTable | undefined;
  /** The table being built by `prepare`; a lookup meanwhile builds the rest at once. */
  private building: Steps<IdTable> | undefined;

  /** `ruleIds` is the state's (read, never written here): an imaged rule's id is its number's. `held`: entries as objects. */
  constructor(private readonly ruleIds: readonly string[], imaged?: ImagedEntries, held?: ReadonlyMap<string, RuleEntry>) {
    this.imaged = imaged;
    for (const [id, entry] of held ?? []) this.held.set(id, entry);
    this.imagedCount = imaged?.count ?? 0;
  }

  get size(): number {
    return this.held.size + this.imagedCount;
  }

  /**
   * Builds the imaged rules' id table in steps, for a caller that gives the
   * event loop turns between them: the first write after a start from an
   * image built it at once (~0.3 s at 1M rules, evaluate held; bench:
   * audit-stall's write probe). Nothing to do for an engine not restored, or
   * once built; a lookup before the end builds the rest at once.
   */
  *prepare(): Steps<void> {
    if (this.imaged === undefined || this.imagedCount === 0) return;
    this.building ??= indexOf(this.ruleIds, this.imaged);
    while (this.numbers === undefined) {
      const next = this.building.next();
      if (next.done === true) this.numbers = next.value;
      else yield;
    }
  }

  /** The imaged rule number of `id`, or -1 (none, or removed since). */
  private imagedNumber(id: string): number {
    const imaged = this.imaged;
    if (imaged === undefined || this.imagedCount === 0) return NO_ENTRY;
    const n = (this.numbers ??= runSteps(this.building ??= indexOf(this.ruleIds, imaged))).placeOf(id);
    // A removed rule's number stays in the table: it may name another rule now, held as an object.
    return n !== -1 && imaged.at[n] !== NO_ENTRY ? n : NO_ENTRY;
  }

  /** The entry of an imaged rule, decoded (a new object each time). */
  private decode(n: number): RuleEntry {
    const { words, at } = this.imaged!;
    const predicates = this.imaged!.predicates();
    let w = at[n];
    const index = words[w++];
    const record = words[w++];
    const recordWords = words[w++];
    const groups = new Array<GroupEntry>(words[w++]);
    for (let g = 0; g < groups.length; g++) {
      const offset = words[w++];
      const size = words[w++];
      const target = words[w++];
      const drivers = new Array<Predicate>(words[w++]);
      for (let d = 0; d < drivers.length; d++) drivers[d] = predicates[words[w++]];
      groups[g] = { offset, words: size, target, drivers };
    }
    const uses = new Array<Predicate>(words[w++]);
    for (let u = 0; u < uses.length; u++) uses[u] = predicates[words[w++]];
    return { index, record, recordWords, groups, uses };
  }

  get(id: string): RuleEntry | undefined {
    const entry = this.held.get(id);
    if (entry !== undefined) return entry;
    const n = this.imagedNumber(id);
    return n === NO_ENTRY ? undefined : this.decode(n);
  }

  has(id: string): boolean {
    return this.held.has(id) || this.imagedNumber(id) !== NO_ENTRY;
  }

  /** Holds `entry` as `id`'s (an imaged entry of the same id is dropped: build.ts removes it first anyway). */
  set(id: string, entry: RuleEntry): this {
    this.delete(id);
    this.held.set(id, entry);
    return this;
  }

  delete(id: string): boolean {
    if (this.held.delete(id)) return true;
    const n = this.imagedNumber(id);
    if (n === NO_ENTRY) return false;
    this.imaged!.at[n] = NO_ENTRY;
    this.imagedCount -= 1;
    return true;
  }

  /** An id's entry where it is: an object, or the offset of its words in the image (`imagedWords`), or undefined. */
  locate(id: string): RuleEntry | number | undefined {
    const entry = this.held.get(id);
    if (entry !== undefined) return entry;
    const n = this.imagedNumber(id);
    return n === NO_ENTRY ? undefined : this.imaged!.at[n];
  }

  /** The image's entry words and the predicates they name (undefined for an engine not restored). */
  get imagedWords(): Pick<ImagedEntries, 'words' | 'predicates'> | undefined {
    return this.imaged;
  }

  /** Each active rule's records (group and rule records), read in place: for the epoch wrap (match.ts). */
  forEachRecord(visit: (offset: number) => void): void {
    for (const entry of this.held.values()) {
      for (const group of entry.groups) if (group.offset !== Layout.NONE) visit(group.offset);
      if (entry.record !== Layout.NONE) visit(entry.record);
    }
    const imaged = this.imaged;
    if (imaged === undefined || this.imagedCount === 0) return;
    const { words, at } = imaged;
    for (let n = 0; n < at.length; n++) {
      const w = at[n];
      if (w === NO_ENTRY) continue;
      const record = words[w + 1];
      let p = w + 4;
      for (let g = words[w + 3]; g > 0; g--) {
        if (words[p] !== Layout.NONE) visit(words[p]);
        p += 4 + words[p + 3];
      }
      if (record !== Layout.NONE) visit(record);
    }
  }

  *entries(): IterableIterator<[string, RuleEntry]> {
    yield* this.held;
    const imaged = this.imaged;
    if (imaged === undefined) return;
    for (let n = 0; n < imaged.at.length; n++) if (imaged.at[n] !== NO_ENTRY) yield [this.ruleIds[n], this.decode(n)];
  }

  [Symbol.iterator](): IterableIterator<[string, RuleEntry]> {
    return this.entries();
  }

  *keys(): IterableIterator<string> {
    yield* this.held.keys();
    const imaged = this.imaged;
    if (imaged === undefined) return;
    for (let n = 0; n < imaged.at.length; n++) if (imaged.at[n] !== NO_ENTRY) yield this.ruleIds[n];
  }

  *values(): IterableIterator<RuleEntry> {
    for (const [, entry] of this.entries()) yield entry;
  }
}
