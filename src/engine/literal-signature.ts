/**
 * A 64-bit signature of the characters and adjacent character pairs in a
 * text (two int32 halves, one bit per hashed character or pair). If a value
 * contains a literal, the value's signature has every bit of the literal's.
 * The residual drivers of a field (contains, regex, negations) keep the
 * signature of the literals they require (a contains operand; the
 * literals every match of a regex must contain, regex-prefilter.ts), so a
 * request value skips most of them on one comparison of two words, without
 * reading the driver (bench: engine, 10k mixed: ~40 residual tests per
 * request before, most on values that lack a required literal).
 *
 * Code units, as String.prototype.includes compares them.
 */

/** Bit index (0..63) of one character. */
function unitBit(code: number): number {
  return Math.imul(code, 0x9e3779b1) >>> 26;
}

/** Bit index (0..63) of the pair (a, b). */
function pairBit(a: number, b: number): number {
  return Math.imul((a << 16) ^ b ^ 0x5bd1e995, 0x85ebca77) >>> 26;
}

/** OR-s into `into` ([low 32 bits, high 32 bits]) the signature of everything `text` contains. */
export function addSignature(text: string, into: Int32Array): void {
  let lo = into[0];
  let hi = into[1];
  let previous = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const u = unitBit(code);
    if (u < 32) lo |= 1 << u;
    else hi |= 1 << (u - 32);
    if (previous >= 0) {
      const p = pairBit(previous, code);
      if (p < 32) lo |= 1 << p;
      else hi |= 1 << (p - 32);
    }
    previous = code;
  }
  into[0] = lo;
  into[1] = hi;
}

/** The signature every value containing all of `literals` has ([0, 0] when there are none). */
export function requiredSignature(literals: Iterable<string>): Int32Array {
  const signature = new Int32Array(2);
  for (const literal of literals) addSignature(literal, signature);
  return signature;
}
