/**
 * Fuzz: the admin API with near-valid and hostile bodies, path ids, query
 * strings, If-Match and Authorization headers, on a real node. Every answer
 * is a documented status with a JSON `{err}` on failure, never carries a
 * secret value, and the node stays up and unpolluted.
 */
import fc from 'fast-check';
import t from 'tap';
import { adminBodies, anyKey, authorization, bodyBytes, contentType, jsonTree, mostly, pathId, type JsonTree } from './arbitraries';
import { propertyOptions } from '../support/seeds';
import { STATUSES, checkAnswer, checkHealthy, send, startFuzzNode, type FuzzNode } from './harness';

const RUNS = 400;
let fuzz: FuzzNode;
const known = { rule: [] as string[], context: [] as string[], prompt: [] as string[], secret: [] as string[], apiKey: [] as string[] };

t.before(async () => {
  fuzz = await startFuzzNode();
  const headers = { authorization: `Bearer ${fuzz.keys.admin}` };
  const create = async (path: string, body: unknown) => {
    const answer = await send(fuzz.url, { method: 'POST', path, headers, body: JSON.stringify(body) });
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${answer.text}`);
    return (answer.json as { id: string }).id;
  };
  // Targets of their own, so fuzzed deletes never touch the seeded secrets, keys or canary rule.
  for (let i = 0; i < 2; i += 1) {
    known.context.push(await create('/api/contexts', { name: `c${i}`, content: 'c' }));
    known.prompt.push(await create('/api/prompts', { name: `p${i}`, prompt: 'Hi {{name}}' }));
    known.secret.push(await create('/api/vault/secrets', { key: `FUZZ_TARGET_${i}`, value: 'not a canary' }));
    known.apiKey.push(await create('/api/api-keys', { name: `k${i}`, scopes: ['evaluate'] }));
    known.rule.push(await create('/api/rule-engine/rules', {
      name: `r${i}`, condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
      entities: [{ entity_type: 'context', entity_id: known.context[i] }],
    }));
  }
});
t.teardown(() => fuzz.stop());

interface Route {
  readonly method: string;
  readonly path: (id: string) => string;
  readonly ids: keyof typeof known | undefined;
  readonly body: fc.Arbitrary<JsonTree> | undefined;
}

const anyBody = mostly(jsonTree);
const ROUTES: readonly Route[] = [
  { method: 'POST', path: () => '/api/rule-engine/rules', ids: undefined, body: mostly(adminBodies.rule) },
  { method: 'GET', path: () => '/api/rule-engine/rules', ids: undefined, body: undefined },
  { method: 'GET', path: (id) => `/api/rule-engine/rules/${id}`, ids: 'rule', body: undefined },
  { method: 'GET', path: (id) => `/api/rule-engine/rules/${id}/history`, ids: 'rule', body: undefined },
  { method: 'PATCH', path: (id) => `/api/rule-engine/rules/${id}`, ids: 'rule', body: mostly(adminBodies.rule) },
  { method: 'DELETE', path: (id) => `/api/rule-engine/rules/${id}`, ids: 'rule', body: undefined },
  { method: 'POST', path: () => '/api/contexts', ids: undefined, body: mostly(adminBodies.context) },
  { method: 'GET', path: (id) => `/api/contexts/${id}`, ids: 'context', body: undefined },
  { method: 'PATCH', path: (id) => `/api/contexts/${id}`, ids: 'context', body: mostly(adminBodies.context) },
  { method: 'DELETE', path: (id) => `/api/contexts/${id}`, ids: 'context', body: undefined },
  { method: 'POST', path: () => '/api/prompts', ids: undefined, body: mostly(adminBodies.prompt) },
  { method: 'POST', path: (id) => `/api/prompts/${id}/versions`, ids: 'prompt', body: mostly(adminBodies.prompt) },
  { method: 'GET', path: (id) => `/api/prompts/${id}`, ids: 'prompt', body: undefined },
  { method: 'PATCH', path: (id) => `/api/prompts/${id}`, ids: 'prompt', body: mostly(adminBodies.prompt) },
  { method: 'DELETE', path: (id) => `/api/prompts/${id}`, ids: 'prompt', body: undefined },
  { method: 'POST', path: () => '/api/vault/secrets', ids: undefined, body: mostly(adminBodies.secret) },
  { method: 'GET', path: () => '/api/vault/secrets', ids: undefined, body: undefined },
  { method: 'PATCH', path: (id) => `/api/vault/secrets/${id}`, ids: 'secret', body: mostly(adminBodies.secret) },
  { method: 'DELETE', path: (id) => `/api/vault/secrets/${id}`, ids: 'secret', body: undefined },
  { method: 'POST', path: () => '/api/api-keys', ids: undefined, body: mostly(adminBodies.apiKey) },
  { method: 'GET', path: () => '/api/api-keys', ids: undefined, body: undefined },
  { method: 'DELETE', path: (id) => `/api/api-keys/${id}`, ids: 'apiKey', body: undefined },
  { method: 'GET', path: () => '/api/audit/events', ids: undefined, body: undefined },
  { method: 'GET', path: () => '/api/audit/digest', ids: undefined, body: undefined },
  { method: 'POST', path: () => '/api/audit/evaluate', ids: undefined, body: anyBody },
];

/** Query strings: the parameters the routes read, with hostile values, repeated, or bracketed. */
const queryString = fc.option(
  fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom('after', 'limit', 'version', 'stream', 'type', 'actor', 'from', 'to', 'limit[a]', '__proto__', 'constructor[prototype]'), anyKey),
      fc.oneof(fc.constantFrom('0', '1', '1000', '1001', '-1', '1e3', '99999999999999999999999', '1.0.0', 'rule-', 'rule-*', '2026-01-01T00:00:00Z', '', 'NaN'), fc.string({ unit: 'binary', maxLength: 12 })),
    ),
    { minLength: 1, maxLength: 4 },
  ).map((pairs) => '?' + pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&')),
  { nil: '' },
);

const ifMatch = fc.option(fc.oneof(
  fc.constantFrom('0', '1', '"2"', 'W/"0"', '*', '', '-1', '99999999999999999999', '1.5', 'abc'),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
), { nil: undefined, freq: 2 });

/** One request to ROUTES[index]; the route travels as its index, so a counterexample prints small. */
function requestFor(index: number) {
  const route = ROUTES[index]!;
  return fc.record({
    index: fc.constant(index),
    id: route.ids === undefined ? fc.constant('') : pathId(known[route.ids]),
    query: queryString,
    body: route.body === undefined ? fc.option(bodyBytes(jsonTree), { nil: undefined, freq: 4 }) : bodyBytes(route.body),
    type: contentType,
    auth: authorization(fuzz.keys.admin, fuzz.keys.evaluate),
    ifMatch,
  });
}

t.test('the admin API answers documented statuses with JSON errors and never a secret value', async (t) => {
  const request = fc.integer({ min: 0, max: ROUTES.length - 1 }).chain(requestFor);
  const property = fc.asyncProperty(request, async ({ index, id, query, body, type, auth, ifMatch }) => {
    const route = ROUTES[index]!;
    const headers: Record<string, string | string[]> = {};
    if (auth !== undefined) headers.authorization = auth;
    if (type !== undefined) headers['content-type'] = type;
    if (ifMatch !== undefined) headers['if-match'] = ifMatch;
    if (body?.contentEncoding !== undefined) headers['content-encoding'] = body.contentEncoding;
    const answer = await send(fuzz.url, { method: route.method, path: route.path(id) + query, headers, body: body?.bytes });
    const problems = checkAnswer(fuzz, answer, { statuses: STATUSES.admin });
    if (problems.length > 0) throw new Error(`${route.method} ${route.path(id)}${query}: ${problems.join('; ')}`);
  });
  for (const options of propertyOptions(RUNS)) await fc.assert(property, options);
  await checkHealthy(t, fuzz);
});
