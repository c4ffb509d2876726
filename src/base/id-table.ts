/**
 * Ids to their places 0..n-1, for many ids known at once: open addressing
 * over an Int32Array, the ids themselves kept in the caller's array (so a
 * place's id may change under it: a lookup compares with what the array
 * holds now). Used where a Map of up to 1M ids was the cost: the rule
 * records a snapshot restores (projections/lazy-rules.ts: 1M ids in ~70 ms,
 * where a Map took 300-500 ms and left its outgrown tables to the GC) and a
 * restored engine's imaged rules (src/engine/rule-table.ts). A lookup costs
 * about a Map's at that size (a cache miss either way), plus hashing the id.
 *
 * Linear probing at a load of at most one half, FNV-1a over the UTF-16
 * code units. Ids come from authenticated rule writes, so no per-process
 * seed guards against chosen collisions: they would cost their writer speed, never a wrong answer.
 */
const EMPTY = -1;

export class IdTable {
  readonly #places: Int32Array;
  readonly #mask: number;
  readonly #ids: readonly string[];
  readonly #capacity: number;
  #count = 0;

  /** A table for up to `capacity` ids; `ids[place]` is the id at each place added. */
  constructor(ids: readonly string[], capacity: number) {
    let size = 16;
    while (size < 2 * capacity) size *= 2;
    this.#places = new Int32Array(size).fill(EMPTY);
    this.#mask = size - 1;
    this.#ids = ids;
    this.#capacity = capacity;
  }

  /** Adds `ids[place]` at `place`; when that id is already in, adds nothing and returns its place. */
  add(place: number): number {
    const at = this.#slotOf(this.#ids[place]);
    const held = this.#places[at];
    if (held !== EMPTY) return held;
    if (this.#count === this.#capacity) throw new RangeError(`the id table holds its ${this.#capacity} ids already`);
    this.#count += 1;
    this.#places[at] = place;
    return place;
  }

  /** The place of `id`, or -1 (EMPTY). */
  placeOf(id: string): number {
    return this.#places[this.#slotOf(id)];
  }

  /** The slot holding `id`'s place, or the empty slot where it would go. */
  #slotOf(id: string): number {
    let at = hash(id) & this.#mask;
    for (let held = this.#places[at]; held !== EMPTY && this.#ids[held] !== id; held = this.#places[at]) at = (at + 1) & this.#mask;
    return at;
  }
}

function hash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h;
}
