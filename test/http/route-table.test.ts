/**
 * The lean path's route table (src/http/route-table.ts, src/http/fast-path.ts
 * LEAN_ROUTES) as a table: request line -> the row it names (or none) and
 * its parameters, one row per rule of route-table.ts; then the rules that
 * refuse a table (overlapping rows, patterns out of form). Pure: no server.
 */
import t from 'tap';
import { AppError } from '../../src/base/errors';
import { LEAN_ROUTES } from '../../src/http/fast-path';
import { MALFORMED_PATH } from '../../src/http/errors';
import { collapseLeadingSlashes, createRouteTable, pathOf, type Row } from '../../src/http/route-table';

const EVALUATE = '/api/rule-engine/evaluate';
const SECRETS = '/api/vault/get-secrets';
const COMPILED = '/api/prompt/get-compiled';
const STREAM = '/api/rule-engine/stream';
const RULES = '/api/rule-engine/rules';

/** [method, URL, the row's method and pattern or null for none, its parameters] */
type Case = readonly [string, string, string | null, Record<string, string>?];

const CASES: readonly Case[] = [
  // The canonical spellings.
  ['POST', EVALUATE, `POST ${EVALUATE}`],
  ['POST', SECRETS, `POST ${SECRETS}`],
  ['POST', COMPILED, `POST ${COMPILED}`],
  ['GET', STREAM, `GET ${STREAM}`],
  ['POST', RULES, `POST ${RULES}`],
  ['PATCH', `${RULES}/r1`, `PATCH ${RULES}/:id`, { id: 'r1' }],
  ['DELETE', `${RULES}/r1`, `DELETE ${RULES}/:id`, { id: 'r1' }],
  ['POST', '/api/contexts', 'POST /api/contexts'],
  ['PATCH', '/api/contexts/c1', 'PATCH /api/contexts/:id', { id: 'c1' }],
  ['DELETE', '/api/contexts/c1', 'DELETE /api/contexts/:id', { id: 'c1' }],
  ['POST', '/api/prompts', 'POST /api/prompts'],
  ['PATCH', '/api/prompts/greet', 'PATCH /api/prompts/:id', { id: 'greet' }],
  ['DELETE', '/api/prompts/greet', 'DELETE /api/prompts/:id', { id: 'greet' }],
  ['POST', '/api/prompts/greet/versions', 'POST /api/prompts/:id/versions', { id: 'greet' }],
  // Rule 2: the query is not the path.
  ['POST', `${EVALUATE}?x=1`, `POST ${EVALUATE}`],
  ['POST', `${EVALUATE}?`, `POST ${EVALUATE}`],
  ['PATCH', `${RULES}/r1?dry=1&x=/y`, `PATCH ${RULES}/:id`, { id: 'r1' }],
  // Rule 3: any letter case; a parameter keeps its own.
  ['POST', EVALUATE.toUpperCase(), `POST ${EVALUATE}`],
  ['POST', '/Api/Vault/Get-Secrets', `POST ${SECRETS}`],
  ['GET', STREAM.toUpperCase(), `GET ${STREAM}`],
  ['PATCH', `${RULES.toUpperCase()}/R1`, `PATCH ${RULES}/:id`, { id: 'R1' }],
  ['POST', '/API/PROMPTS/Greet/VERSIONS', 'POST /api/prompts/:id/versions', { id: 'Greet' }],
  // Rule 4: one trailing slash, not two.
  ['POST', `${EVALUATE}/`, `POST ${EVALUATE}`],
  ['POST', `${EVALUATE.toUpperCase()}/?x=1`, `POST ${EVALUATE}`],
  ['POST', `${RULES}/`, `POST ${RULES}`],
  ['PATCH', `${RULES}/r1/`, `PATCH ${RULES}/:id`, { id: 'r1' }],
  ['POST', `${EVALUATE}//`, null],
  ['PATCH', `${RULES}/r1//`, null],
  // Rule 5: a parameter is one segment or more characters, %-decoded when it holds a `%`.
  ['PATCH', `${RULES}/%6eope`, `PATCH ${RULES}/:id`, { id: 'nope' }],
  ['PATCH', `${RULES}/a%2Fb`, `PATCH ${RULES}/:id`, { id: 'a/b' }],
  ['DELETE', '/api/prompts/caf%C3%A9', 'DELETE /api/prompts/:id', { id: 'café' }],
  ['PATCH', `${RULES}/a+b`, `PATCH ${RULES}/:id`, { id: 'a+b' }],
  ['PATCH', `${RULES}/`, null],
  ['PATCH', `${RULES}/a/b`, null],
  // Rule 6: the rest as written: an escaped letter, a `//` inside, a longer or shorter path is another path.
  ['POST', '/api/rule-engine/evaluat%65', null],
  ['POST', '/api//rule-engine/evaluate', null],
  ['POST', `${EVALUATE}/x`, null],
  ['POST', '/api/rule-engine', null],
  ['POST', '/api/rule-engine/evaluatex', null],
  ['POST', `${RULES}/r1/versions`, null],
  // Rule 1 happens before routing: an uncollapsed `//api` is no row.
  ['POST', `/${EVALUATE}`, null],
  // Rule 7: a row's own method (GET takes HEAD); the public endpoints take every method.
  ['HEAD', STREAM, `GET ${STREAM}`],
  ['POST', STREAM, null],
  ['OPTIONS', STREAM, null],
  ['GET', RULES, null],
  ['PUT', `${RULES}/r1`, null],
  ['GET', `${RULES}/r1`, null],
  ['GET', '/api/prompts/greet', null],
  ['PUT', '/api/prompts/greet/labels/production', null],
  ['OPTIONS', RULES, null],
  ['GET', EVALUATE, `POST ${EVALUATE}`],
  ['HEAD', SECRETS, `POST ${SECRETS}`],
  ['OPTIONS', SECRETS, `POST ${SECRETS}`],
  ['DELETE', `${COMPILED}/`, `POST ${COMPILED}`],
  ['BREW', EVALUATE, `POST ${EVALUATE}`],
  // Everything else is express's.
  ['GET', '/healthz', null],
  ['GET', '/api/contexts', null],
  ['POST', '/api/vault/secrets', null],
  ['POST', '/api/rule-engine/dry-run', null],
  ['GET', '/', null],
  ['GET', '', null],
];

t.test('each request line names the row the table says, with its parameters', async (t) => {
  for (const [method, url, expected, params] of CASES) {
    const found = LEAN_ROUTES.match(method, url);
    const named = found === undefined ? null : `${found.row.method} ${found.row.pattern}`;
    t.equal(named, expected, `${method} ${url}`);
    if (found !== undefined && expected !== null) t.same(found.params, params ?? {}, `${method} ${url}: parameters`);
  }
});

t.test('a parameter whose %-escape is malformed still routes, carrying the 400 (rule 5)', async (t) => {
  for (const url of [`${RULES}/%zz`, `${RULES}/%`, '/api/prompts/%E0%A4%A/versions']) {
    const found = LEAN_ROUTES.match(url.endsWith('versions') ? 'POST' : 'PATCH', url);
    t.ok(found !== undefined, `${url} routes`);
    t.ok(found?.params instanceof AppError, `${url}: the match carries an error`);
    t.match(found?.params, { status: 400, code: 'bad_request', message: MALFORMED_PATH });
  }
});

t.test('no method, no URL: no row', async (t) => {
  t.equal(LEAN_ROUTES.match(undefined, EVALUATE)?.row.pattern, EVALUATE, 'the public endpoints take any method, even none');
  t.equal(LEAN_ROUTES.match('POST', undefined), undefined);
  t.equal(LEAN_ROUTES.match(undefined, RULES), undefined);
});

t.test('every row is reached by its own pattern and by no other row', async (t) => {
  for (const row of LEAN_ROUTES.rows) {
    const url = row.pattern.replace(/:[a-z_]+/g, 'sample');
    t.equal(LEAN_ROUTES.match(row.method, url)?.row, row, `${row.method} ${row.pattern}`);
  }
  t.equal(LEAN_ROUTES.rows.length, 16, 'three public endpoints, the two OFREP routes, the stream, ten catalog writes');
});

t.test('leading slashes collapse before routing, and only leading ones (rule 1); the path stops at the query (rule 2)', async (t) => {
  const cases: [string | undefined, string | undefined][] = [
    ['//api/prompt/get-compiled', '/api/prompt/get-compiled'],
    ['///api/x?a=//b', '/api/x?a=//b'],
    ['/api//x', '/api//x'],
    ['/', '/'],
    ['//', '/'],
    [undefined, undefined],
  ];
  for (const [url, collapsed] of cases) {
    const req: { url?: string } = url === undefined ? {} : { url };
    collapseLeadingSlashes(req);
    t.equal(req.url, collapsed, String(url));
  }
  t.equal(pathOf('/a/b?c=d?e'), '/a/b');
  t.equal(pathOf('/a/b'), '/a/b');
  t.equal(pathOf(undefined), '');
});

const row = (method: Row<string>['method'], pattern: string, anyMethod?: boolean): Row<string> => ({ method, pattern, anyMethod, handler: `${method} ${pattern}` });

t.test('a table whose rows one request could match is refused when made (rule 8)', async (t) => {
  const overlapping: [string, Row<string>[]][] = [
    ['a parameter over a name', [row('POST', '/a/:id'), row('POST', '/a/b')]],
    ['two parameters', [row('PATCH', '/a/:id'), row('PATCH', '/a/:ref')]],
    ['a row of any method', [row('GET', '/a'), row('POST', '/a', true)]],
    ['GET takes HEAD', [row('GET', '/a/:id'), row('HEAD', '/a/b')]],
  ];
  for (const [name, rows] of overlapping) t.throws(() => createRouteTable(rows), /overlap/, name);
  const disjoint = createRouteTable([row('POST', '/a/:id'), row('PATCH', '/a/b'), row('POST', '/a/b/c'), row('POST', '/a', true), row('GET', '/b')]);
  t.equal(disjoint.match('POST', '/a/b')?.row.handler, 'POST /a/:id');
  t.equal(disjoint.match('PATCH', '/a/b')?.row.handler, 'PATCH /a/b');
  t.equal(disjoint.match('PUT', '/a')?.row.handler, 'POST /a');
  t.equal(disjoint.match('HEAD', '/b/')?.row.handler, 'GET /b');
});

t.test('a pattern out of form is refused when made', async (t) => {
  for (const pattern of ['/A', '/a/', 'a', '/a//b', '/', '/a/:', '/a/:Id', '/a%20b', '/a/*']) {
    t.throws(() => createRouteTable([row('GET', pattern)]), /route pattern/, pattern);
  }
});
