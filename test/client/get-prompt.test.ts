/**
 * The client's getPrompt against a small real HTTP server that answers
 * POST /api/prompt/get-compiled the way the service does (OpenLIT's shape),
 * mounted under a path prefix: the cache, stale-while-revalidate, the
 * fallback, and failures that name their cause. The clock is the test's, so
 * nothing here depends on timing.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { RuleVaultClient, type CompiledPrompt, type GetPromptResult } from '../../src/client';

const PREFIX = '/rulevault';
const KEY = 'rv_prompt_test_key';

interface Seen {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

/** What the stub answers next; a test changes it between calls. */
type Reply =
  | { kind: 'prompt'; text: string; version: string }
  | { kind: 'err'; err: string }
  | { kind: 'status'; status: number; contentType: string; body: string }
  | { kind: 'hang' };

interface Stub {
  readonly url: string;
  readonly seen: Seen[];
  reply: Reply;
  close(): Promise<void>;
}

async function startStub(): Promise<Stub> {
  const seen: Seen[] = [];
  const hanging: http.ServerResponse[] = [];
  const stub = { reply: { kind: 'prompt', text: 'Hello {{name}}', version: '1.0.0' } as Reply };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    seen.push({ path: request.url ?? '', authorization: request.headers.authorization, body });
    if (request.method !== 'POST' || request.url !== `${PREFIX}/api/prompt/get-compiled`) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ err: `no route ${request.url}` }));
      return;
    }
    const reply = stub.reply;
    if (reply.kind === 'hang') {
      hanging.push(response);
      return;
    }
    if (reply.kind === 'status') {
      response.writeHead(reply.status, { 'content-type': reply.contentType }).end(reply.body);
      return;
    }
    if (reply.kind === 'err') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ err: reply.err, res: null }));
      return;
    }
    const variables = (body.variables ?? {}) as Record<string, unknown>;
    const compiled = body.shouldCompile === true ? reply.text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => String(variables[name] ?? '')) : reply.text;
    const res: CompiledPrompt = {
      promptId: 'p-1', versionId: `p-1@${reply.version}`, name: String(body.name ?? 'by-id'), version: reply.version,
      tags: ['t'], metaProperties: { model: 'm' }, prompt: reply.text, compiledPrompt: compiled,
      type: 'text', config: null, variables: [], missingVariables: [],
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ err: null, res }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(stub, {
    url: `http://127.0.0.1:${port}${PREFIX}`,
    seen,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  });
}

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance(ms: number): void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => { time += ms; } };
}

function compiledText(result: GetPromptResult): string | undefined {
  if (result.err !== null) return undefined;
  const compiled = result.res.compiledPrompt;
  return typeof compiled === 'string' ? compiled : undefined;
}

t.test('a fresh answer comes from the cache; past its TTL the old one is served at once and refreshed in the background', async (t) => {
  const stub = await startStub();
  t.teardown(() => stub.close());
  const clock = manualClock();
  const client = new RuleVaultClient({ url: stub.url, apiKey: KEY, clock: clock.now, promptTtlMs: 60_000 });
  const ask = () => client.getPrompt('greeting', { label: 'production', variables: { name: 'Ada' } });

  const first = await ask();
  t.match(first, { err: null, source: 'service', ageMs: 0, lastError: null, res: { compiledPrompt: 'Hello Ada', version: '1.0.0', promptId: 'p-1' } });
  t.same(stub.seen[0], {
    path: `${PREFIX}/api/prompt/get-compiled`,
    authorization: `Bearer ${KEY}`,
    body: { name: 'greeting', label: 'production', variables: { name: 'Ada' }, shouldCompile: true },
  }, 'the route, the key and the body as specified');

  stub.reply = { kind: 'prompt', text: 'Hi {{name}}', version: '1.1.0' };
  clock.advance(59_999);
  t.match(await ask(), { source: 'cache', ageMs: 59_999, res: { compiledPrompt: 'Hello Ada' } });
  t.equal(stub.seen.length, 1, 'no request within the TTL');

  clock.advance(1);
  t.match(await ask(), { source: 'stale', ageMs: 60_000, lastError: null, res: { compiledPrompt: 'Hello Ada' } }, 'the old answer at once');
  await client.whenIdle();
  t.equal(stub.seen.length, 2, 'one background refresh');
  t.match(await ask(), { source: 'cache', ageMs: 0, res: { compiledPrompt: 'Hi Ada', version: '1.1.0' } }, 'the refreshed answer');
});

t.test('the cache key is the request: variables in another order hit, other variables or a version miss', async (t) => {
  const stub = await startStub();
  t.teardown(() => stub.close());
  const client = new RuleVaultClient({ url: stub.url, apiKey: KEY, clock: manualClock().now });
  await client.getPrompt('greeting', { variables: { name: 'Ada', tone: 'warm' } });
  t.match(await client.getPrompt('greeting', { variables: { tone: 'warm', name: 'Ada' } }), { source: 'cache' });
  t.match(await client.getPrompt('greeting', { variables: { name: 'Bob' } }), { source: 'service', res: { compiledPrompt: 'Hello Bob' } });
  t.match(await client.getPrompt('greeting', { version: '1.0.0', variables: { name: 'Bob' } }), { source: 'service' });
  t.match(await client.getPrompt({ id: 'p-1' }, { shouldCompile: false }), { source: 'service', res: { compiledPrompt: 'Hello {{name}}' } });
  t.same(stub.seen.map((seen) => seen.body), [
    { name: 'greeting', variables: { name: 'Ada', tone: 'warm' }, shouldCompile: true },
    { name: 'greeting', variables: { name: 'Bob' }, shouldCompile: true },
    { name: 'greeting', version: '1.0.0', variables: { name: 'Bob' }, shouldCompile: true },
    { id: 'p-1', shouldCompile: false },
  ]);
  const results = await Promise.all([1, 2, 3].map(() => client.getPrompt('other')));
  t.same(results.map((result) => result.source), ['service', 'service', 'service']);
  t.equal(stub.seen.length, 5, 'concurrent misses share one request');
  t.match(await client.getPrompt('greeting', { variables: { name: 'Ada', tone: 'warm' }, ttlMs: 0 }), { source: 'service' }, 'ttlMs 0 bypasses the cache');
  t.equal(stub.seen.length, 6);
});

t.test('the service unreachable: the cached answer is served stale with the cause; with nothing cached, the fallback or an err naming the cause', async (t) => {
  const stub = await startStub();
  const clock = manualClock();
  const client = new RuleVaultClient({ url: stub.url, apiKey: KEY, clock: clock.now, promptTtlMs: 1000 });
  t.match(await client.getPrompt('greeting', { variables: { name: 'Ada' } }), { source: 'service' });
  const port = new URL(stub.url).port;
  await stub.close();
  const refused = new RegExp(`connect ECONNREFUSED 127\\.0\\.0\\.1:${port}`);

  clock.advance(5000);
  t.match(await client.getPrompt('greeting', { variables: { name: 'Ada' } }), { source: 'stale', lastError: null, res: { compiledPrompt: 'Hello Ada' } });
  await client.whenIdle();
  const after = await client.getPrompt('greeting', { variables: { name: 'Ada' } });
  t.match(after, { err: null, source: 'stale', ageMs: 5000, res: { compiledPrompt: 'Hello Ada' } }, 'still the last answer');
  t.match(after.lastError, refused, 'and why it was not refreshed');
  t.notMatch(after.lastError ?? '', /fetch failed/);

  const fallback = await client.getPrompt('never-fetched', { fallback: 'You are a helpful assistant.' });
  t.match(fallback, { err: null, source: 'fallback', ageMs: null, res: { prompt: 'You are a helpful assistant.', compiledPrompt: 'You are a helpful assistant.', isFallback: true } });
  t.match(fallback.lastError, refused);

  const none = await client.getPrompt('never-fetched');
  t.match(none, { source: null, res: null });
  t.match(none.err, refused);
  t.match(none.err, new RegExp(`unreachable \\(POST http://127\\.0\\.0\\.1:${port}/rulevault/api/prompt/get-compiled\\)`), 'the err names the request');
});

t.test('the service\'s own refusal is passed on: no fallback, and a refreshed entry it refuses is dropped', async (t) => {
  const stub = await startStub();
  t.teardown(() => stub.close());
  const clock = manualClock();
  const client = new RuleVaultClient({ url: stub.url, apiKey: KEY, clock: clock.now, promptTtlMs: 1000 });
  await client.getPrompt('greeting');
  stub.reply = { kind: 'err', err: 'no prompt named greeting' };
  t.same(await client.getPrompt('missing', { fallback: 'x' }), { err: 'no prompt named greeting', source: null, res: null, ageMs: null, lastError: null });
  clock.advance(1000);
  t.match(await client.getPrompt('greeting'), { source: 'stale' });
  await client.whenIdle();
  t.match(await client.getPrompt('greeting', { fallback: 'x' }), { err: 'no prompt named greeting', source: null }, 'the deleted prompt is not served from the cache');
});

t.test('5xx, an answer that is not JSON, and a timeout count as unreachable, each named', async (t) => {
  const stub = await startStub();
  t.teardown(() => stub.close());
  const client = new RuleVaultClient({ url: stub.url, apiKey: KEY, timeoutMs: 300 });
  stub.reply = { kind: 'status', status: 503, contentType: 'application/json', body: JSON.stringify({ err: 'the read models are still catching up' }) };
  t.match(await client.getPrompt('a', { fallback: 'fb' }), { source: 'fallback', lastError: 'the read models are still catching up' });
  stub.reply = { kind: 'status', status: 503, contentType: 'application/json', body: JSON.stringify({ err: 'the read models are still catching up', code: 'unavailable' }) };
  t.same(await client.getPrompt('a2'), { err: 'the read models are still catching up', code: 'unavailable', status: 503, source: null, res: null, ageMs: null, lastError: null },
    'with no fallback: the service\'s code and the status');
  stub.reply = { kind: 'status', status: 200, contentType: 'text/html', body: '<html>proxy login</html>' };
  const html = await client.getPrompt('b', { fallback: 'fb' });
  t.match(html, { source: 'fallback' });
  t.match(html.lastError, /answered 200 \(text\/html\) without a JSON body/);
  stub.reply = { kind: 'hang' };
  const slow = await client.getPrompt('c');
  t.match(slow.err, /did not answer POST http:\/\/127\.0\.0\.1:\d+\/rulevault\/api\/prompt\/get-compiled within 300 ms/);
  t.notOk('code' in slow || 'status' in slow, 'no answer: no code, no status');
});

t.test('a setting that cannot work is named, sends nothing, and gets no fallback', async (t) => {
  const stub = await startStub();
  t.teardown(() => stub.close());
  // 2^31 is refused: Node's timers fire after 1 ms past 2^31 - 1, though AbortSignal.timeout takes up to 2^32 - 1.
  for (const timeoutMs of [1.5, 0, -1, Infinity, NaN, 2 ** 31, 2 ** 32]) {
    const result = await new RuleVaultClient({ url: stub.url, apiKey: KEY, timeoutMs }).getPrompt('greeting', { fallback: 'fb' });
    t.match(result, { source: null, res: null, err: `timeoutMs must be a whole number of milliseconds from 1 to 2147483647, not ${String(timeoutMs)}` }, `timeoutMs ${timeoutMs}`);
    t.notMatch(result.err, /unreachable/);
  }
  t.match(await new RuleVaultClient({ url: stub.url, apiKey: KEY, promptCacheSize: NaN }).getPrompt('greeting'), { source: null, err: /^promptCacheSize must be a whole number/ });
  t.match(await new RuleVaultClient({ url: stub.url, apiKey: KEY, promptCacheSize: -2 }).getPrompt('greeting'), { source: null, err: /^promptCacheSize must be a whole number of answers \(0 or more\), not -2$/ });
  t.match(await new RuleVaultClient({ url: stub.url, apiKey: KEY }).getPrompt('greeting', { ttlMs: NaN, fallback: 'fb' }), { source: null, err: /^ttlMs \(or promptTtlMs\) must be a number/ });
  t.same(stub.seen, [], 'nothing was sent');
  t.match(await new RuleVaultClient({ url: stub.url, apiKey: KEY, timeoutMs: 2 ** 31 - 1, promptCacheSize: Infinity }).getPrompt('greeting', { ttlMs: Infinity }), { err: null, source: 'service' }, 'the largest timer, an unbounded cache and a TTL that never ends work');
});

t.test('a base URL with a path prefix is honoured with and without a trailing slash', async (t) => {
  const stub = await startStub();
  t.teardown(() => stub.close());
  for (const url of [stub.url, `${stub.url}/`, `${stub.url}//`]) {
    const result = await new RuleVaultClient({ url, apiKey: KEY }).getPrompt('greeting', { variables: { name: url } });
    t.equal(compiledText(result), `Hello ${url}`, url);
  }
  t.same(stub.seen.map((seen) => seen.path), Array(3).fill(`${PREFIX}/api/prompt/get-compiled`));
  const bad = await new RuleVaultClient({ url: 'ftp://example.com', apiKey: KEY }).getPrompt('x', { fallback: 'fb' });
  t.match(bad, { source: null, err: /"ftp:\/\/example\.com" is not an http or https URL/ }, 'a wrong URL is a mistake, not an outage: no fallback');
});

t.test('variables that are not JSON are refused with the reason, without a request and without throwing', async (t) => {
  const stub = await startStub();
  t.teardown(() => stub.close());
  const client = new RuleVaultClient({ url: stub.url, apiKey: KEY });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const variables of [{ n: 1n }, cyclic]) {
    for (const ttlMs of [0, 1000]) {
      const result = await client.getPrompt('greeting', { variables, ttlMs, fallback: 'fb' });
      t.match(result, { source: null, res: null, err: /cannot be sent as JSON: .*(BigInt|circular)/i });
    }
  }
  t.equal(stub.seen.length, 0);
});
