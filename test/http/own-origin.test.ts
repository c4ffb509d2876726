/**
 * Black-box (issue 14.10): on a default install (no allowlist, no
 * RULEVAULT_PUBLIC_URL) the service's own pages, such as Swagger UI's "Try it
 * out" at /docs, can call its API by whatever loopback name they were opened
 * with, while every other origin, DNS-rebinding pages included, is still
 * refused. And the first-start admin key is a banner on stderr, not a log line.
 */
import { request } from 'node:http';
import t from 'tap';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../support/node';
import { freePort, runService } from '../support/process';

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A request as a browser sends it: the Host it opened and the Origin of the page (fetch cannot set Host). */
function send(node: TestNode, method: string, route: string, headers: Record<string, string>, body?: unknown): Promise<RawAnswer> {
  const url = new URL(node.url);
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path: route, headers: { authorization: `Bearer ${node.adminKey}`, 'content-type': 'application/json', ...headers } },
      (res) => {
        let answer = '';
        res.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: answer }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

t.test('a default install', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const node = await startTestNode(testEnv(dir));
  t.teardown(() => node.stop());
  const port = new URL(node.url).port;

  await t.test('the docs page opened by any loopback name can write through the admin API', async (t) => {
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `127.0.0.2:${port}`]) {
      const created = await send(node, 'POST', '/api/contexts', { host, origin: `http://${host}`, referer: `http://${host}/docs/` }, { name: `from ${host}`, content: 'x' });
      t.equal(created.status, 201, `${host}: ${created.body}`);
      t.equal(created.headers['access-control-allow-origin'], `http://${host}`);
    }
  });

  await t.test('and call the public endpoints', async (t) => {
    const host = `localhost:${port}`;
    for (const route of ['/api/rule-engine/evaluate', '/api/vault/get-secrets']) {
      const answer = await send(node, 'POST', route, { host, origin: `http://${host}` }, { entity_type: 'context', fields: {} });
      // The admin key lacks these endpoints' scopes: the answer is theirs (403 scope, or 200 {err}), past the origin check.
      t.notMatch(answer.body, /Origin not allowed/, route);
      t.match(answer.body, /lacks the (evaluate|secrets:read) scope/, route);
      t.equal(answer.headers['access-control-allow-origin'], `http://${host}`);
    }
  });

  await t.test('every other origin is still refused, on every route', async (t) => {
    const strangers: [string, string][] = [
      [`localhost:${port}`, 'https://evil.example.net'],
      [`localhost:${port}`, 'http://localhost:5173'], // another app on this machine
      [`localhost:${port}`, `https://localhost:${Number(port) + 1}`],
      [`localhost:${port}`, 'null'],
      [`attacker.example:${port}`, `http://attacker.example:${port}`], // DNS rebinding: same origin by name, not loopback
      [`192.168.1.20:${port}`, `http://192.168.1.20:${port}`], // a LAN name needs RULEVAULT_PUBLIC_URL
    ];
    for (const [host, origin] of strangers) {
      for (const route of ['/api/contexts', '/api/rule-engine/evaluate', '/api/vault/get-secrets']) {
        const answer = await send(node, 'POST', route, { host, origin }, { name: 'evil', content: 'x', entity_type: 'context', fields: {} });
        t.equal(answer.status, 403, `${origin} via ${host} on ${route}`);
        t.same(JSON.parse(answer.body), { err: 'Origin not allowed', code: 'forbidden' });
        t.equal(answer.headers['access-control-allow-origin'], undefined);
      }
    }
    const listed = await send(node, 'GET', '/api/contexts', { host: `localhost:${port}` });
    t.notOk(JSON.parse(listed.body).contexts.some((c: { name: string }) => c.name === 'evil'), 'no refused request was executed');
  });
});

t.test('the first-start admin key is a banner on stderr, never in the JSON log', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const { RULEVAULT_ADMIN_KEY: _none, ...env } = testEnv(dir, { PORT: String(await freePort()) });
  const { stdout, stderr } = await runService(env, /"msg":"ready"/);

  const key = /^ {4}(rv_[A-Za-z0-9_-]{43})$/m.exec(stderr)?.[1];
  t.ok(key, `the key stands on its own line of the banner: ${stderr}`);
  t.match(stderr, /={72}\n {2}RuleVault created an admin API key\. It is shown only this once: store it now\.\n\n {4}rv_/);
  const lines = stdout.split('\n').filter(Boolean);
  t.ok(lines.every((line) => JSON.parse(line)), 'stdout is JSON lines only');
  t.notOk(stdout.includes(key!), 'the key is in no log line');
  t.match(lines.map((line) => JSON.parse(line)), [{ msg: /created a new master key/ }, { msg: /created the hash chain's signing key/, public_key: /.+/ }, { msg: /created the first admin API key; it was printed once on stderr/, key_id: /.+/ }, { msg: 'ready' }]);
});
