/**
 * A 64-bit signature of the characters and adjacent character pairs in a
 * text (two int32 words, one bit per hashed character or pair). If a value
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

/**
 * OR-s into `into` the signature of everything `text` contains: word 0 has
 * a bit per character (its code mod 32: `1 << n` shifts by n mod 32), word
 * 1 a bit per hashed pair of adjacent characters. Branch-free, one pass
 * (bench: engine, 10k mixed: computed once per text value per request).
 */
export function addSignature(text: string, into: Int32Array): void {
  let units = into[0];
  let pairs = into[1];
  let previous = text.length > 0 ? text.charCodeAt(0) : 0;
  units |= text.length > 0 ? 1 << previous : 0;
  for (let i = 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    units |= 1 << code;
    pairs |= 1 << (Math.imul((previous << 16) ^ code, 0x9e3779b1) >>> 27);
    previous = code;
  }
  into[0] = units;
  into[1] = pairs;
}

/** The signature every value containing all of `literals` has ([0, 0] when there are none). */
export function requiredSignature(literals: Iterable<string>): Int32Array {
  const signature = new Int32Array(2);
  for (const literal of literals) addSignature(literal, signature);
  return signature;
}
