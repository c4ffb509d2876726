/**
 * Fixed-width int32 records in one growable typed array, with a free list:
 * the engine keeps its per-evaluation counters (group and rule hit counts)
 * here instead of in objects, so a hit touches one record in a dense array
 * rather than chasing pointers across the heap (bench: engine, 10k mixed,
 * where --cpu-prof put the group and rule object loads at the top).
 */
export interface RecordTable {
  /** The records; replaced when the table grows, so read it after `allocate`. */
  readonly data: Int32Array;
  /** Record `width` int32s long, zeroed; returns its index. */
  allocate(): number;
  /** Returns a record to the free list (its fields are zeroed on reuse). */
  release(index: number): void;
  /** Sets field `field` of every record to 0 (the engine's epoch wrap-around). */
  clearField(field: number): void;
}

export function createRecordTable(width: number, initialRecords = 64): RecordTable {
  let data = new Int32Array(width * initialRecords);
  let next = 0;
  const free: number[] = [];

  return {
    get data() {
      return data;
    },
    allocate() {
      const index = free.length > 0 ? free.pop()! : next++;
      if ((index + 1) * width > data.length) {
        const grown = new Int32Array(data.length * 2);
        grown.set(data);
        data = grown;
      }
      data.fill(0, index * width, (index + 1) * width);
      return index;
    },
    release(index) {
      free.push(index);
    },
    clearField(field) {
      for (let i = field; i < next * width; i += width) data[i] = 0;
    },
  };
}
