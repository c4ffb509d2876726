/**
 * The lean path's last guard (src/http/fast-path.ts `guarded`): a throw that
 * escapes a handler answers its request 500 `internal` (or cuts its
 * connection once the head is out), is logged, and the server goes on. On a
 * real node:http server on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { guarded } from '../src/http/fast-path';
import { createLogger } from '../src/base/log';

async function serve(t: tap.Test, handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('a throw before the head: 500 internal, logged without the error\'s detail in the answer; the next request is served', async (t) => {
  const lines: string[] = [];
  const route = guarded((req, res) => {
    if (req.url === '/boom') throw new RangeError('Invalid string length');
    res.end('fine');
    return true;
  }, createLogger((line) => lines.push(line)));
  const url = await serve(t, (req, res) => {
    route(req, res);
  });
  const failed = await fetch(`${url}/boom`);
  t.equal(failed.status, 500);
  const body = (await failed.json()) as { err: string; code: string };
  t.equal(body.code, 'internal');
  t.notMatch(body.err, /Invalid string length/, 'the answer does not carry the error');
  const logged = lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request failed');
  t.match(logged, { level: 'error', path: '/boom', error: 'RangeError: Invalid string length' });
  t.equal(await (await fetch(`${url}/next`)).text(), 'fine', 'the server goes on');
});

t.test('a throw after the head: the connection is cut, the process goes on', async (t) => {
  const route = guarded((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
    throw new Error('after the head');
  }, createLogger(() => undefined));
  const url = await serve(t, (req, res) => {
    route(req, res);
  });
  await t.rejects(fetch(`${url}/x`).then((response) => response.text()), 'the answer breaks off');
});
