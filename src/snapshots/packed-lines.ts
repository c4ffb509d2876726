/**
 * A snapshot member's item lines kept as bytes (JsonLines), copied out of
 * the reader's buffer into chunks (the first as large as the snapshot, when
 * the reader says, then 16 MiB each): a line is never split between
 * chunks, and no chunk is ever copied to grow. At 1M rules this is ~650 MB
 * of text outside the JS heap instead of ~930 MB of decoded records in it
 * (bench: million).
 */
import type { JsonLines, LineKeeper } from '../../projections';

const CHUNK_BYTES = 1 << 24;
/** Offsets are int32s. */
const MAX_CHUNK_BYTES = 2 ** 31 - 1;
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
  /**
   * Per line: its leading id, read as the line is added: its bytes are in
   * the cache then, not later (reading 1M ids from the chunks afterwards
   * was ~0.2 s of memory stalls, bench: million).
   */
  readonly #leading: (string | undefined)[] = [];
  #count = 0;

  /** Bytes the first chunk takes (the lines' size at most, when known). */
  readonly #firstChunk: number;

  /**
   * `expectedBytes`, the lines' size or more when known (the snapshot's size), is taken as one first
   * chunk: memory taken in 16 MiB steps made V8 answer each with a GC (external memory pressure: ~0.3 s
   * of a 1M-rule start, bench: million). Pages never written are never resident, so more costs no RSS.
   */
  constructor(expectedLines = 0, expectedBytes = 0) {
    this.#where = new Int32Array(3 * Math.max(expectedLines, 16));
    this.#firstChunk = Math.min(Math.max(expectedBytes, CHUNK_BYTES), MAX_CHUNK_BYTES);
  }

  get count(): number {
    return this.#count;
  }

  /** Appends the line `bytes[start, end)`. */
  add(bytes: Buffer, start: number, end: number): void {
    const chunk = this.#room(end - start);
    // TypedArray set, not Buffer.copy: the latter took 6x as long over 1M lines in Node 20 (bench: million).
    chunk.set(bytes.subarray(start, end), this.#used);
    this.#note(this.#used, bytes, start, end);
    this.#used += end - start;
  }

  /**
   * Appends the newline-ended lines of `bytes` from `start`, at most `max`
   * of them, each without its newline; returns where the first line not
   * taken starts. The lines that fit a chunk are copied in one piece (with
   * their newlines): a copy per line was ~0.4 s of a 1M-rule start, most of
   * it the call and a view per line (bench: million).
   */
  addLines(bytes: Buffer, start: number, max: number): number {
    let at = start;
    let left = max;
    while (left > 0) {
      let end = bytes.indexOf(10, at);
      if (end === -1) break;
      const chunk = this.#room(end + 1 - at);
      // The run: this line, then every next whole line that still fits the chunk.
      const from = at;
      const base = this.#used - from;
      const room = chunk.length - this.#used;
      do {
        this.#note(base + at, bytes, at, end);
        at = end + 1;
        left -= 1;
        end = left > 0 ? bytes.indexOf(10, at) : -1;
      } while (end !== -1 && end + 1 - from <= room);
      chunk.set(bytes.subarray(from, at), this.#used);
      this.#used += at - from;
    }
    return at;
  }

  text(i: number): string {
    const w = this.#at(i);
    const offset = this.#where[w + 1]!;
    return this.#chunks[this.#where[w]!]!.toString('utf8', offset, offset + this.#where[w + 2]!);
  }

  leadingId(i: number): string | undefined {
    this.#at(i);
    return this.#leading[i];
  }

  /**
   * Lines that sit next to each other in one chunk (a newline at most
   * between them) are copied as one run, and each keeps the leading id read
   * when it was added: a copy and an id read per line made a re-pack of
   * 500k lines at 1M rules a ~1 s stall (bench: audit-stall, a listing
   * every record passes).
   */
  keeper(lines: readonly number[]): LineKeeper {
    let bytes = 0;
    for (const i of lines) bytes += this.#where[this.#at(i) + 2]! + 1;
    const kept = new PackedLines(lines.length, bytes);
    let n = 0;
    return { lines: kept, step: (count) => (n = this.#copyInto(kept, lines, n, Math.min(lines.length, n + count))) === lines.length };
  }

  /** Copies `lines[n, stop)` into `kept`, in runs; returns `stop`. */
  #copyInto(kept: PackedLines, lines: readonly number[], n: number, stop: number): number {
    while (n < stop) {
      const w = 3 * lines[n]!;
      const source = this.#where[w]!;
      const from = this.#where[w + 1]!;
      let end = from + this.#where[w + 2]!;
      let m = n + 1;
      for (; m < stop; m++) {
        const v = 3 * lines[m]!;
        const offset = this.#where[v + 1]!;
        if (this.#where[v] !== source || offset < end || offset > end + 1) break;
        end = offset + this.#where[v + 2]!;
      }
      const chunk = kept.#room(end - from);
      chunk.set(this.#chunks[source]!.subarray(from, end), kept.#used);
      const base = kept.#used - from;
      for (let k = n; k < m; k++) {
        const v = 3 * lines[k]!;
        kept.#noteAt(base + this.#where[v + 1]!, this.#where[v + 2]!, this.#leading[lines[k]!]);
      }
      kept.#used += end - from;
      n = m;
    }
    return stop;
  }

  /** The last chunk, or a new one when `length` more bytes do not fit it. */
  #room(length: number): Buffer {
    const chunk = this.#chunks[this.#chunks.length - 1];
    if (chunk !== undefined && this.#used + length <= chunk.length) return chunk;
    const fresh = Buffer.allocUnsafeSlow(Math.max(chunk === undefined ? this.#firstChunk : CHUNK_BYTES, length));
    this.#chunks.push(fresh);
    this.#used = 0;
    return fresh;
  }

  /** Notes the line `bytes[start, end)`, copied to `offset` of the last chunk. */
  #note(offset: number, bytes: Buffer, start: number, end: number): void {
    this.#noteAt(offset, end - start, leadingIdIn(bytes, start, end));
  }

  /** Notes a line of `length` bytes at `offset` of the last chunk, whose leading id is `leading`. */
  #noteAt(offset: number, length: number, leading: string | undefined): void {
    if (3 * this.#count + 3 > this.#where.length) {
      const wider = new Int32Array(this.#where.length * 2);
      wider.set(this.#where);
      this.#where = wider;
    }
    const w = 3 * this.#count++;
    this.#where[w] = this.#chunks.length - 1;
    this.#where[w + 1] = offset;
    this.#where[w + 2] = length;
    this.#leading.push(leading);
  }

  /** Where line `i`'s chunk, offset and length are in #where. */
  #at(i: number): number {
    if (!(i >= 0 && i < this.#count)) throw new RangeError(`line ${i} of ${this.#count}`);
    return 3 * i;
  }
}

/** The id a line `bytes[start, end)` starts with (`{"id":"<id>"`, no escape in it), else undefined. */
function leadingIdIn(bytes: Buffer, start: number, end: number): string | undefined {
  const from = start + ID_PREFIX.length;
  if (from > end) return undefined;
  // Byte by byte: Buffer.compare's call cost was most of this at 1M lines (bench: million).
  for (let k = 0; k < ID_PREFIX.length; k++) if (bytes[start + k] !== ID_PREFIX[k]) return undefined;
  for (let at = from; at < end; at++) {
    const byte = bytes[at];
    if (byte === QUOTE) return bytes.toString('utf8', from, at);
    if (byte === BACKSLASH) return undefined;
  }
  return undefined;
}
