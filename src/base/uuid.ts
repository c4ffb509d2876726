/**
 * The ids minted per request: UUIDs version 7 (request ids, decision ids,
 * secret-read ids), each a flat string; and what an id's text may be.
 * Every id RuleVault writes is lower case, and lookups are exact, so an id
 * in another case names nothing (docs/api.md#import, "Ids").
 *
 * A UUID built by concatenation is a rope; node:http's header check runs a
 * regular expression over every header value, and V8 takes a rope off its
 * fast path to flatten it in the runtime first (perf under the evaluate
 * load: Runtime_RegExpExec, 1.5% of the service's CPU for the ids each
 * answer carried). Here the digits are written into a byte buffer and read
 * out as one latin1 string (bench: cpu-per-request --workload evaluate).
 */
import { randomFillSync } from 'node:crypto';

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const ordered = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');
// Where the 60 random bits after the version digit go, a hex digit each: `7xxx-yxxx-xxxxxxxxx` (y: the variant, 2 more bits).
const RANDOM_DIGITS_AT = [15, 16, 17, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32];
const VARIANT_AT = 19;
// Random bytes drawn 512 at a time, each used once: a draw costs ~2 µs however few bytes it gives (crypto.randomUUID
// keeps such a cache too), and under load every millisecond needs 8 (bench: cpu-per-request --workload evaluate).
const entropy = Buffer.alloc(512);
let entropyAt = entropy.length;
const COUNTER_LIMIT = 4096;
let orderedMs = NaN;
let counter = COUNTER_LIMIT;

/**
 * A UUID version 7, so ids sort by time and a sink's index grows at its end.
 * RFC 9562's method 1 (section 6.2): 48 bits of milliseconds, 62 random bits
 * drawn once per millisecond, then a 12-bit counter, so the ids of one
 * millisecond rise too. Only the counter's three digits are written per id.
 * A 4,097th id in one millisecond draws new random bits: unique still, but
 * not in order after the others.
 */
export function timeOrderedId(nowMs: number): string {
  if (nowMs !== orderedMs || counter === COUNTER_LIMIT) {
    const ms = nowMs.toString(16).padStart(12, '0');
    ordered.write(ms.slice(0, 8), 0, 'latin1');
    ordered.write(ms.slice(8, 12), 9, 'latin1');
    if (entropyAt === entropy.length) {
      randomFillSync(entropy);
      entropyAt = 0;
    }
    const r = entropyAt;
    entropyAt += 8;
    for (let i = 0; i < RANDOM_DIGITS_AT.length; i++) ordered[RANDOM_DIGITS_AT[i]] = HEX[(entropy[r + (i >> 1)] >> (4 * (i & 1))) & 15];
    ordered[VARIANT_AT] = HEX[8 | ((entropy[r + 7] >> 4) & 3)]; // RFC 9562 variant: 10xx
    orderedMs = nowMs;
    counter = 0;
  }
  const count = counter++;
  ordered[33] = HEX[count >> 8];
  ordered[34] = HEX[(count >> 4) & 15];
  ordered[35] = HEX[count & 15];
  return ordered.toString('latin1', 0, 36);
}
