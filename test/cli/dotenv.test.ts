/**
 * `secrets export --format dotenv` (src/cli/dotenv.ts): what it writes,
 * Node's own dotenv reader (util.parseEnv, the reader behind
 * `node --env-file`) reads back exactly, for any value it accepts; it refuses
 * a value no quoting of that format can hold (', " and ` together, or a
 * carriage return) and a key that is not an environment variable name.
 */
import { isDeepStrictEqual, parseEnv } from 'node:util';
import fc from 'fast-check';
import t from 'tap';
import { dotenvProblem, toDotenv } from '../../src/cli/dotenv';
import { propertyOptions } from '../support/seeds';

// Characters that matter to dotenv readers, mixed with anything else.
const tricky = fc.constantFrom('\n', '\r', '\r\n', '"', "'", '`', '$', '${HOME}', '\\', '\\n', '#', ' ', '=', '\t', 'é', '😀', 'export ', 'A=B');
const value = fc.array(fc.oneof(tricky, fc.string({ unit: 'grapheme', maxLength: 4 })), { maxLength: 12 }).map((parts) => parts.join(''));
const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);

t.test('what is written reads back unchanged through Node\'s dotenv parser', async (t) => {
  const roundTrips = fc.property(fc.dictionary(name, value, { maxKeys: 6 }), (secrets) => {
    const writable = Object.fromEntries(Object.entries(secrets).filter(([k, v]) => dotenvProblem(k, v) === undefined));
    return isDeepStrictEqual({ ...parseEnv(toDotenv(writable)) }, writable);
  });
  for (const options of propertyOptions(600)) t.doesNotThrow(() => fc.assert(roundTrips, options), `seed ${options.seed}`);
});

t.test('the fixed cases: newlines, every quote, $ and backslashes', async (t) => {
  const secrets = {
    MULTI: 'line 1\nline 2\n\nline 3\n',
    SINGLE: "it's",
    DOUBLE_AND_SINGLE: `it's "quoted"`,
    DOLLAR: '$HOME and ${PATH} and $(id)',
    BACKSLASH: 'C:\\path\\n\\t',
    ALL_BUT_BACKTICK: `'"\\$\n`,
    SPACES: '  padded  ',
    HASH: 'a # not a comment',
    EMPTY: '',
  };
  const text = toDotenv(secrets);
  t.same(parseEnv(text), secrets);
  t.match(text, /^DOLLAR='\$HOME and \$\{PATH\} and \$\(id\)'$/m, 'a value with $ is single-quoted: no reader expands it');
  t.equal(dotenvProblem('ALL', `'"\``), 'the value of ALL contains \', " and ` together, which the dotenv format cannot quote; use --format json');
  t.match(dotenvProblem('my-key', 'x'), /not a valid environment variable name/);
  t.match(dotenvProblem('CRLF', 'a\r\nb'), /carriage return, which dotenv readers drop/);
  t.throws(() => toDotenv({ OK: 'x', ALL: `'"\`` }), /the value of ALL contains/);
  t.notOk(String(dotenvProblem('ALL', `'"\`secret-value`)).includes('secret-value'), 'the message never carries the value');
});
