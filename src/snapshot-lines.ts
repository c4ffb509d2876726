/**
 * A snapshot member's item lines kept as bytes (JsonLines), copied out of
 * the reader's buffer into chunks of 16 MiB: a line is never split between
 * chunks, and no chunk is ever copied to grow. At 1M rules this is ~650 MB
 * of text outside the JS heap instead of ~930 MB of decoded records in it
 * (bench: million).
 */
import type { JsonLines } from '../projections';

const CHUNK_BYTES = 1 << 24;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** `{"id":"`, the start of every record line the snapshot writes. */
const ID_PREFIX = Buffer.from('{"id":"', 'latin1');

export class PackedLines implements JsonLines {
  readonly #chunks: Buffer[] = [];
  /** Bytes used of the last chunk. */
  #used = 0;
  /** Per line: its chunk, its offset there, its length. */
  #where: Int32Array;
  #count = 0;

  constructor(expectedLines = 0) {
    this.#where = new Int32Array(3 * Math.max(expectedLines, 16));
  }

  get count(): number {
    return this.#count;
  }

  /** Appends the line `bytes[start, end)`. */
  add(bytes: Uint8Array, start: number, end: number): void {
    const length = end - start;
    let chunk = this.#chunks[this.#chunks.length - 1];
    if (chunk === undefined || this.#used + length > chunk.length) {
      chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length));
      this.#chunks.push(chunk);
      this.#used = 0;
    }
    // TypedArray set, not Buffer.copy: the latter took 6x as long over 1M lines in Node 20 (bench: million).
    chunk.set(bytes.subarray(start, end), this.#used);
    if (3 * this.#count + 3 > this.#where.length) {
      const wider = new Int32Array(this.#where.length * 2);
      wider.set(this.#where);
      this.#where = wider;
    }
    const w = 3 * this.#count++;
    this.#where[w] = this.#chunks.length - 1;
    this.#where[w + 1] = this.#used;
    this.#where[w + 2] = length;
    this.#used += length;
  }

  text(i: number): string {
    const w = this.#at(i);
    const offset = this.#where[w + 1]!;
    return this.#chunks[this.#where[w]!]!.toString('utf8', offset, offset + this.#where[w + 2]!);
  }

  leadingId(i: number): string | undefined {
    const w = this.#at(i);
    const chunk = this.#chunks[this.#where[w]!]!;
    const offset = this.#where[w + 1]!;
    const end = offset + this.#where[w + 2]!;
    const from = offset + ID_PREFIX.length;
    if (from > end) return undefined;
    // Byte by byte: Buffer.compare's call cost was most of this at 1M lines (bench: million).
    for (let k = 0; k < ID_PREFIX.length; k++) if (chunk[offset + k] !== ID_PREFIX[k]) return undefined;
    for (let at = from; at < end; at++) {
      const byte = chunk[at];
      if (byte === QUOTE) return chunk.toString('utf8', from, at);
      if (byte === BACKSLASH) return undefined;
    }
    return undefined;
  }

  keep(lines: readonly number[]): PackedLines {
    const kept = new PackedLines(lines.length);
    for (const i of lines) {
      const w = this.#at(i);
      const offset = this.#where[w + 1]!;
      kept.add(this.#chunks[this.#where[w]!]!, offset, offset + this.#where[w + 2]!);
    }
    return kept;
  }

  /** Where line `i`'s chunk, offset and length are in #where. */
  #at(i: number): number {
    if (!(i >= 0 && i < this.#count)) throw new RangeError(`line ${i} of ${this.#count}`);
    return 3 * i;
  }
}
