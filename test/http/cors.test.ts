/** Black-box: the browser-origin policy on both public endpoints and the admin API (contract §1.2). */
import t from 'tap';
import { call } from '../support/http';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'cors', (t, cell) => {
  const ALLOWED = 'https://app.example.com';
  const ALIAS = 'http://localhost:5173';
  const PUBLIC = 'https://vault.example.com';
  const STRANGER = 'https://evil.example.net';

  const live = withNode(t, { cell, env: {
    RULEVAULT_ALLOWED_CORS_ORIGINS: ALLOWED,
    RULEVAULT_ALLOWED_ORIGINS: ALIAS,
    RULEVAULT_PUBLIC_URL: PUBLIC,
  } });

  const publicPaths = ['/api/rule-engine/evaluate', '/api/vault/get-secrets'];

  t.test('preflight from an allowed origin: 204 with exact-origin headers', async (t) => {
    for (const path of publicPaths) {
      for (const origin of [ALLOWED, ALIAS, PUBLIC]) {
        const answer = await call(live.url, 'OPTIONS', path, {
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
        });
        t.equal(answer.status, 204, `${path} from ${origin}`);
        t.equal(answer.headers.get('access-control-allow-origin'), origin);
        t.match(answer.headers.get('vary') ?? '', /Origin/);
        t.match(answer.headers.get('access-control-allow-methods') ?? '', /POST/);
        t.equal(answer.headers.get('access-control-allow-headers'), 'Content-Type, Authorization');
      }
    }
  });

  t.test('a request from an allowed origin gets the origin back and Vary', async (t) => {
    const key = (await live.admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate', 'secrets:read'] })).json.key;
    for (const path of publicPaths) {
      const answer = await call(live.url, 'POST', path, { key, headers: { origin: ALLOWED }, body: { entity_type: 'context', fields: {} } });
      t.equal(answer.status, 200);
      t.equal(answer.headers.get('access-control-allow-origin'), ALLOWED);
      t.match(answer.headers.get('vary') ?? '', /Origin/);
    }
  });

  t.test('a stranger origin gets 403, no CORS headers, and nothing runs', async (t) => {
    for (const path of publicPaths) {
      const preflight = await call(live.url, 'OPTIONS', path, { headers: { origin: STRANGER, 'access-control-request-method': 'POST' } });
      t.equal(preflight.status, 403);
      t.same(preflight.json, { err: 'Origin not allowed', code: 'forbidden' });
      t.equal(preflight.headers.get('access-control-allow-origin'), null);
      const request = await call(live.url, 'POST', path, { headers: { origin: STRANGER }, body: {} });
      t.equal(request.status, 403, `${path}: 403 even for get-secrets, before the always-200 rule`);
      t.same(request.json, { err: 'Origin not allowed', code: 'forbidden' });
      t.equal(request.headers.get('access-control-allow-origin'), null);
    }
    const admin = live.admin;
    const before = (await admin.get('/api/contexts')).json.contexts.length;
    const write = await call(live.url, 'POST', '/api/contexts', { key: live.node.adminKey, headers: { origin: STRANGER }, body: { name: 'x', content: 'y' } });
    t.equal(write.status, 403);
    t.equal((await admin.get('/api/contexts')).json.contexts.length, before, 'the write was not executed');
    const nullOrigin = await call(live.url, 'POST', publicPaths[0]!, { headers: { origin: 'null' }, body: {} });
    t.equal(nullOrigin.status, 403, 'the opaque "null" origin is a stranger');
  });

  t.test('no Origin header (server to server) needs no configuration', async (t) => {
    const answer = await call(live.url, 'POST', '/api/vault/get-secrets', { body: {} });
    t.equal(answer.status, 200);
    t.equal(answer.headers.get('access-control-allow-origin'), null);
  });
});
