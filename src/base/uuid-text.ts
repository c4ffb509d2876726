/**
 * Ids as text: which strings are a UUID in its canonical form (lower case,
 * as every id RuleVault mints and stores), and the hint a message adds for
 * one in another case. Apart from uuid.ts, which mints ids with node:crypto,
 * so the error catalog and the client's local evaluator can use it.
 */
const UUID_ANY_CASE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in its canonical text: hex digits in lower case. */
export function isCanonicalUuid(text: string): boolean {
  return UUID_ANY_CASE.test(text) && text === text.toLowerCase();
}

/** For a message about `text`: ` (ids are lower case: <text in lower case>)` when it is a UUID in another case, else empty. */
export function lowerCaseHint(text: string): string {
  return UUID_ANY_CASE.test(text) && text !== text.toLowerCase() ? ` (ids are lower case: ${text.toLowerCase()})` : '';
}
