/**
 * Secrets as a dotenv file, in the format Node reads (`node --env-file`,
 * `process.loadEnvFile`, `util.parseEnv`) and the `dotenv` package follows.
 * That format has no escape sequences inside quotes (double quotes only turn
 * `\n` into a newline), so each value is quoted with a quote character it does
 * not contain, which keeps everything else literal: newlines, `$`, `#`,
 * backslashes, spaces at either end. (A carriage return cannot be kept at all.) Readers that expand `$VAR` (dotenv-expand,
 * docker compose) leave single-quoted values alone, which is why single
 * quotes come first.
 */

/** What an environment variable name may be, portably (POSIX shells, Node, dotenv). */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a key cannot be written, or undefined when it can. Never mentions the value. */
export function dotenvProblem(key: string, value: string): string | undefined {
  if (!ENV_NAME.test(key)) return `secret ${JSON.stringify(key)} is not a valid environment variable name (letters, digits and _, not starting with a digit)`;
  // Node's reader drops carriage returns wherever they are, quoted or not.
  if (value.includes('\r')) return `the value of ${key} contains a carriage return, which dotenv readers drop; use --format json`;
  if (quoteFor(value) === undefined) {
    return `the value of ${key} contains ', " and \` together, which the dotenv format cannot quote; use --format json`;
  }
  return undefined;
}

/** The quote character that keeps `value` literal, if any. */
function quoteFor(value: string): string | undefined {
  if (!value.includes("'")) return "'";
  // Inside double quotes Node turns the two characters \n into a newline, so a backslash rules them out.
  if (!value.includes('"') && !value.includes('\\')) return '"';
  if (!value.includes('`')) return '`';
  return undefined;
}

/** One `KEY='value'` line per secret, sorted by key. Throws (naming the key, never the value) when one cannot be written. */
export function toDotenv(secrets: Readonly<Record<string, string>>): string {
  return Object.keys(secrets)
    .sort()
    .map((key) => {
      const value = secrets[key]!;
      const problem = dotenvProblem(key, value);
      if (problem !== undefined) throw new Error(problem);
      const quote = quoteFor(value)!;
      return `${key}=${quote}${value}${quote}\n`;
    })
    .join('');
}
