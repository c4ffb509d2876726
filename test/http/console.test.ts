/**
 * How the process serves the console and tells a key what it may do: the
 * page under a strict CSP (with no key and on both HTTP paths), its assets,
 * and GET /api/whoami for the env admin key, a stored key, and bad keys.
 */
import t from 'tap';
import { forCells } from '../support/matrix';
import { withNode } from '../support/with-node';

forCells(t, 'console', (t, cell) => {
  const live = withNode(t, { cell });

  t.test('/console answers the page under a strict CSP, its assets from the same origin', async (t) => {
    const redirect = await fetch(`${live.url}/console`, { redirect: 'manual' });
    t.equal(redirect.status, 301);
    t.equal(redirect.headers.get('location'), '/console/');
    const page = await fetch(`${live.url}/console/`);
    t.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    t.match(csp, /default-src 'none'/);
    t.match(csp, /script-src 'self'(;|$)/);
    t.match(csp, /connect-src 'self'(;|$)/);
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*|https?:/, 'nothing inline, nothing from elsewhere');
    const html = await page.text();
    t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in the page');
    const assets = [...html.matchAll(/(?:src|href)="(\.\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    t.ok(assets.length >= 2, 'a script and a stylesheet');
    for (const asset of assets) {
      const answer = await fetch(new URL(asset, `${live.url}/console/`));
      t.equal(answer.status, 200, asset);
      t.match(answer.headers.get('cache-control'), /immutable/, 'hashed assets are cached for good');
      t.match(answer.headers.get('content-security-policy'), /default-src 'none'/);
    }
    t.equal((await fetch(`${live.url}/console/assets/nope.js`)).status, 404);
  });

  t.test('no page can be framed by another site: frame-ancestors \'none\' and X-Frame-Options DENY outside /api', async (t) => {
    const pages = [
      '/docs/', '/docs', '/docs/swagger-ui.css', '/docs/swagger-ui-init.js', '/docs/index.html', '/openapi.json',
      '/console/', '/console', '/console/assets/nope.js', '/healthz', '/readyz', '/no-such-page',
    ];
    for (const page of pages) {
      const answer = await fetch(`${live.url}${page}`, { redirect: 'manual' });
      await answer.arrayBuffer();
      t.match(answer.headers.get('content-security-policy'), /(^|; )frame-ancestors 'none'(;|$)/, `${page} (${answer.status}): frame-ancestors`);
      t.equal(answer.headers.get('x-frame-options'), 'DENY', `${page} (${answer.status}): X-Frame-Options`);
    }
    t.match((await fetch(`${live.url}/docs/`)).headers.get('content-type'), /^text\/html/, 'the docs are a page');
  });

  t.test('GET /api/whoami tells any valid key its id, name, scopes and secret tags', async (t) => {
    const me = await live.admin.get('/api/whoami');
    t.equal(me.status, 200);
    t.same(me.json, { id: 'env-admin', name: 'RULEVAULT_ADMIN_KEY', scopes: ['admin'], secret_tags: [] });
    const created = await live.admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'], secret_tags: ['llm'] });
    const reader = live.clientFor(created.json.key);
    const who = await reader.get('/api/whoami');
    t.same(who.json, { id: created.json.id, name: 'reader', scopes: ['secrets:read'], secret_tags: ['llm'] });
    t.equal(who.headers.get('cache-control'), 'no-store');
    t.equal((await live.clientFor('rv_wrong').get('/api/whoami')).status, 401);
    t.equal((await live.clientFor('').get('/api/whoami')).status, 401);
    await live.admin.delete(`/api/api-keys/${created.json.id}`);
    t.equal((await reader.get('/api/whoami')).status, 401, 'a revoked key is told so');
  });
});
