/**
 * The rule ids in id order for the rule listing (queries.ts), kept between
 * listings: sorting 1M ids takes ~0.6 s, and a listing after a few creates
 * or deletes merges them into the last order in one pass instead. The first
 * sort is the caller's `sort` (the service's runs in slices: read-ahead.ts);
 * changes noted while it runs are merged in after it. The caller notes each
 * change and asks for the list.
 */
import { compareText, indexAfter } from './listing';

/** Sorts ids in compareText order (the array is the sorter's to reorder). */
export type IdSort = (ids: string[]) => Promise<readonly string[]>;

const sortAtOnce: IdSort = (ids) => Promise.resolve(ids.sort(compareText));

export class SortedIds {
  /** The last list handed out (never changed after: a walk in progress may hold it); undefined until the first. */
  #sorted: readonly string[] | undefined;
  /** Ids the set gained, and lost, since `#sorted` was made. */
  readonly #added = new Set<string>();
  readonly #removed = new Set<string>();
  /** While the first sort runs: the ids changed meanwhile, each with how to ask whether the set holds it. */
  #pending: Map<string, () => boolean> | undefined;
  #sorting: Promise<void> | undefined;

  constructor(private readonly sort: IdSort = sortAtOnce) {}

  /** After a change to `id`: `present` says whether the set of ids now holds it (asked only once a list was handed out: not during a replay). */
  note(id: string, present: () => boolean): void {
    if (this.#pending !== undefined) {
      this.#pending.set(id, present);
      return;
    }
    if (this.#sorted === undefined) return;
    const holds = present();
    if (holds === this.#holds(id)) return;
    if (holds) {
      if (!this.#removed.delete(id)) this.#added.add(id);
    } else if (!this.#added.delete(id)) {
      this.#removed.add(id);
    }
  }

  /** The ids in compareText order: `all` sorted the first time, then the last list with the noted changes merged in. */
  async list(all: () => Iterable<string>): Promise<readonly string[]> {
    if (this.#sorted === undefined) await (this.#sorting ??= this.#firstSort(all));
    // Read after the await: another caller may have merged changes in meanwhile.
    let sorted = this.#sorted as readonly string[];
    if (this.#added.size > 0 || this.#removed.size > 0) {
      sorted = this.#sorted = merged(sorted, [...this.#added].sort(compareText), this.#removed);
      this.#added.clear();
      this.#removed.clear();
    }
    return sorted;
  }

  async #firstSort(all: () => Iterable<string>): Promise<void> {
    this.#pending = new Map();
    try {
      const sorted = await this.sort([...all()]);
      const pending = this.#pending;
      this.#pending = undefined;
      this.#sorted = sorted;
      // Asked now: whether the set holds each id changed during the sort.
      for (const [id, present] of pending) this.note(id, present);
    } finally {
      this.#pending = undefined;
      this.#sorting = undefined;
    }
  }

  #holds(id: string): boolean {
    if (this.#added.has(id)) return true;
    if (this.#removed.has(id)) return false;
    const sorted = this.#sorted!;
    return sorted[indexAfter(sorted, id) - 1] === id;
  }
}

/** `sorted` without `removed`, with `added` (sorted, none of them in `sorted`) in order. */
function merged(sorted: readonly string[], added: readonly string[], removed: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let a = 0;
  for (const id of sorted) {
    while (a < added.length && added[a]! < id) out.push(added[a++]!);
    if (!removed.has(id)) out.push(id);
  }
  while (a < added.length) out.push(added[a++]!);
  return out;
}
