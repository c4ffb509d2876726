/**
 * Strict `MAJOR.MINOR.PATCH` versions for prompt templates: non-negative
 * integers without leading zeros, no pre-release or build suffix. Deliberately
 * smaller than the `semver` package: prompt versions never need ranges.
 */

export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

// "0" or a digit string without a leading zero, per part.
const VERSION_PATTERN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** Parses a strict `MAJOR.MINOR.PATCH`; undefined for anything else (including parts beyond 2^53). */
export function parseVersion(text: string): Version | undefined {
  if (typeof text !== 'string') return undefined;
  const match = VERSION_PATTERN.exec(text);
  if (match === null) return undefined;
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Beyond this, Number() rounds and two different texts would compare equal.
  if (![major, minor, patch].every(Number.isSafeInteger)) return undefined;
  return { major, minor, patch };
}

/**
 * Orders two versions numerically (1.10.0 > 1.9.0): negative when a < b, 0 when
 * equal, positive when a > b. Throws on a malformed version, which callers have
 * already rejected with parseVersion.
 */
export function compareVersions(a: string, b: string): number {
  const left = requireVersion(a);
  const right = requireVersion(b);
  return Math.sign(left.major - right.major) || Math.sign(left.minor - right.minor) || Math.sign(left.patch - right.patch);
}

/** The next minor version: "1.2.3" -> "1.3.0". Throws on a malformed version. */
export function nextMinor(version: string): string {
  const { major, minor } = requireVersion(version);
  return `${major}.${minor + 1}.0`;
}

function requireVersion(text: string): Version {
  const version = parseVersion(text);
  if (version === undefined) throw new Error(`not a MAJOR.MINOR.PATCH version: ${JSON.stringify(String(text).slice(0, 64))}`);
  return version;
}
