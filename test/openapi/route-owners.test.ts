/**
 * One implementation per route (issue 64 item 1; docs/decisions/0051-one-implementation-per-route.md):
 * every operation the OpenAPI document lists is answered by exactly one HTTP
 * path, the lean path (its route table, src/http/fast-path.ts LEAN_ROUTES)
 * or express (src/http/app.ts), and this file says which. The lean path
 * answers exactly what its table matches (the dispatch is `match`, then the
 * row's handler); express is asked black-box: the app alone, on loopback,
 * answers a route it does not serve with its fallback's 404 `no route for`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { LEAN_ROUTES } from '../../src/http/fast-path';
import { sendRaw } from '../support/raw-http';
import { removeDir, tempDir } from '../support/node';
import { buildApp } from './build-app';
import { documentedRoutes } from './express-routes';

type Owner = 'lean' | 'express';

/** The routes the lean path answers; every other documented route is express's. */
const LEAN: readonly string[] = [
  'POST /api/rule-engine/evaluate',
  'POST /api/vault/get-secrets',
  'POST /api/prompt/get-compiled',
  'POST /ofrep/v1/evaluate/flags/{key}',
  'POST /ofrep/v1/evaluate/flags',
  'GET /api/rule-engine/stream',
  'POST /api/rule-engine/rules',
  'PATCH /api/rule-engine/rules/{id}',
  'DELETE /api/rule-engine/rules/{id}',
  'POST /api/contexts',
  'PATCH /api/contexts/{id}',
  'DELETE /api/contexts/{id}',
  'POST /api/prompts',
  'PATCH /api/prompts/{id}',
  'DELETE /api/prompts/{id}',
  'POST /api/prompts/{id}/versions',
];

/** `METHOD /path/{param}` as a request: the method and a path with each parameter filled in. */
function requestOf(route: string): { method: string; path: string } {
  const [method, template] = route.split(' ') as [string, string];
  return { method, path: template.replace(/\{(\w+)\}/g, (_m, name: string) => `sample-${name}`) };
}

t.test('every documented route is answered by exactly one path: the lean path or express', async (t) => {
  const dir = tempDir();
  const built = await buildApp(dir);
  // Caught up on an empty log: express answers its routes, not its 503 for every /api request.
  built.readModel.markCaughtUp();
  const server: Server = createServer(built.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await built.close();
    removeDir(dir);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const documented = documentedRoutes().sort();
  t.ok(documented.length > 40, `the document lists ${documented.length} routes`);
  const owners: string[] = [];
  for (const route of documented) {
    const { method, path } = requestOf(route);
    const lean = LEAN_ROUTES.match(method, path) !== undefined;
    // No key and no body: any route express serves answers something of its own (401, 200, 301, 404 for the sample id, ...).
    const answer = await sendRaw(url, { method, path, headers: { 'content-length': '0' } });
    t.notOk(answer.hung, `${route}: express answers`);
    const fallback = answer.status === 404 && /^\{"err":"no route for /.test(answer.text);
    const express = !fallback;
    const answeredBy: Owner[] = [...(lean ? ['lean' as const] : []), ...(express ? ['express' as const] : [])];
    t.equal(answeredBy.length, 1, `${route}: one path answers it (${answeredBy.join(' and ') || 'none'})`);
    t.same(answeredBy, [LEAN.includes(route) ? 'lean' : 'express'], `${route}: ${LEAN.includes(route) ? 'the lean path' : 'express'}`);
    owners.push(`${answeredBy.join('+') || 'none'}\t${route}`);
  }
  t.comment(`which path answers each route:\n${owners.join('\n')}`);
  t.same(LEAN.filter((route) => !documented.includes(route)), [], 'every lean route is documented');
  t.same(
    LEAN_ROUTES.rows.map((row) => `${row.method} ${row.pattern.replace(/:(\w+)/g, '{$1}')}`).sort(),
    [...LEAN].sort(),
    'the lean path\'s table has exactly these rows',
  );
});
