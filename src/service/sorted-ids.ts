/**
 * The rule ids in id order for the rule listing (queries.ts), kept between
 * listings: sorting 1M ids takes ~0.6 s, and a listing after a few creates
 * or deletes merges them into the last order in one pass instead. Pure: the
 * caller notes each change and asks for the list.
 */
import { compareText, indexAfter } from './listing';

export class SortedIds {
  /** The last list handed out (never changed after: a walk in progress may hold it); undefined until the first. */
  #sorted: string[] | undefined;
  /** Ids the set gained, and lost, since `#sorted` was made. */
  readonly #added = new Set<string>();
  readonly #removed = new Set<string>();

  /** After a change to `id`: `present` says whether the set of ids now holds it (asked only once a list was handed out: not during a replay). */
  note(id: string, present: () => boolean): void {
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
  list(all: () => Iterable<string>): readonly string[] {
    if (this.#sorted === undefined) {
      this.#sorted = [...all()].sort(compareText);
    } else if (this.#added.size > 0 || this.#removed.size > 0) {
      this.#sorted = merged(this.#sorted, [...this.#added].sort(compareText), this.#removed);
      this.#added.clear();
      this.#removed.clear();
    }
    return this.#sorted;
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
