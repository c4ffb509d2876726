/**
 * Our one-number positions over EventStoreDB's two-number $all positions.
 *
 * EventStoreDB orders $all by (commit, prepare). The events of one append
 * share the commit (transaction) position and differ in their prepare
 * position, which is their own place in the log: commit <= prepare, and the
 * gap is less than the size of one append. So
 *
 *   position = commit * 2^24 + (prepare - commit)
 *
 * is strictly increasing along $all and decodes back to the exact pair, which
 * is what a read or subscription "from" needs (EventStoreDB rejects positions
 * that are not a record's). 2^24 bytes (16 MiB) exceeds the largest append
 * EventStoreDB accepts; the encoding stays within 20 decimal digits (our JSON
 * position format) for logs up to 2^42 bytes (4 TiB).
 */

export interface EsdbPosition {
  readonly commit: bigint;
  readonly prepare: bigint;
}

const OFFSET_BITS = 24n;
const OFFSET_LIMIT = 1n << OFFSET_BITS;

/** Throws RangeError for a pair the encoding cannot hold (never silently wrong). */
export function encodePosition({ commit, prepare }: EsdbPosition): bigint {
  const offset = prepare - commit;
  if (commit < 0n || offset < 0n || offset >= OFFSET_LIMIT) {
    throw new RangeError(`EventStoreDB position (${commit}, ${prepare}) cannot be encoded`);
  }
  return (commit << OFFSET_BITS) + offset;
}

export function decodePosition(position: bigint): EsdbPosition {
  const commit = position >> OFFSET_BITS;
  return { commit, prepare: commit + (position & (OFFSET_LIMIT - 1n)) };
}

export function comparePositions(a: EsdbPosition, b: EsdbPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}
