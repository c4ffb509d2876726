import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cpuSeconds, ownHeaders, peakRssMb, SERVICE_NODE_FLAGS, startBare } from '../bench/http-harness';

t.test('the bench starts the service with the node flags `npm start` uses', async (t) => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: { start: string } };
  // npm start runs the service through scripts/start.js (the build check, then dist/src/main.js in the same process; issue 16.5).
  const start = /node ((?:--\S+ )*)scripts\/start\.js/.exec(pkg.scripts.start);
  t.ok(start, 'npm start runs scripts/start.js with node');
  t.same(start![1].trim().split(/\s+/).filter(Boolean), SERVICE_NODE_FLAGS);
});

t.test('peakRssMb reads a live process and answers undefined for a gone one', async (t) => {
  const mb = peakRssMb(process.pid);
  if (process.platform === 'linux') t.ok(mb !== undefined && mb > 10 && mb < 100_000, `this process peaked at ${mb} MB`);
  t.equal(peakRssMb(2 ** 22 + 1), undefined);
});

t.test('cpuSeconds reads a live process\'s CPU time and answers undefined for a gone one', async (t) => {
  if (process.platform === 'linux') {
    // Burn at least 0.3 s of CPU here, then the reading must have grown by about that much.
    const before = cpuSeconds(process.pid)!;
    const own = process.cpuUsage();
    while (process.cpuUsage(own).user < 300_000);
    const after = cpuSeconds(process.pid)!;
    t.ok(after - before >= 0.25, `grew by ${(after - before).toFixed(2)} s for ~0.3 s of work`);
    t.ok(Math.abs(after - process.cpuUsage().user / 1e6 - process.cpuUsage().system / 1e6) < 0.1, 'agrees with process.cpuUsage');
  }
  t.equal(cpuSeconds(2 ** 22 + 1), undefined);
});

t.test('the honest floor parses the body and answers the same JSON; the bare server parses nothing', async (t) => {
  const answer = JSON.stringify({ matchingRuleIds: ['a', 'b'], entities: [{ rule_id: 'a' }] });
  for (const mode of ['floor', 'bare'] as const) {
    const server = await startBare(answer, { mode });
    try {
      const ok = await fetch(server.url, { method: 'POST', body: '{"fields":{"x":1}}' });
      t.equal(ok.status, 200, `${mode}: a JSON body is answered`);
      t.equal(await ok.text(), answer, `${mode}: with the same bytes as the service's answer`);
      const bad = await fetch(server.url, { method: 'POST', body: '{"fields":' });
      t.equal(bad.status, mode === 'floor' ? 400 : 200, mode === 'floor' ? 'the floor refuses a body it cannot parse' : 'the bare server never looks at the body');
      await bad.text();
    } finally {
      await server.stop();
    }
  }
});

t.test('the floor with a busy loop per request (--spin-us) still answers as the floor', async (t) => {
  const answer = JSON.stringify({ matchingRuleIds: ['a'], entities: [] });
  const server = await startBare(answer, { mode: 'floor', spinUs: 2 });
  try {
    const ok = await fetch(server.url, { method: 'POST', body: '{"fields":{"x":1}}' });
    t.equal(await ok.text(), answer);
    const bad = await fetch(server.url, { method: 'POST', body: '{' });
    t.equal(bad.status, 400);
    await bad.text();
  } finally {
    await server.stop();
  }
});

t.test('the floor with the subject\'s headers sends them, a UUID minted afresh per answer and any other value as given', async (t) => {
  const answer = JSON.stringify({ matchingRuleIds: ['a'], entities: [] });
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const headers: [string, string][] = [['x-request-id', '0219090b-e1af-40b9-8115-2074752d1b8f'], ['cache-control', 'no-store']];
  const server = await startBare(answer, { mode: 'floor', headers });
  try {
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const ok = await fetch(server.url, { method: 'POST', body: '{"fields":{"x":1}}' });
      t.equal(await ok.text(), answer, 'the floor\'s answer, unchanged');
      const id = ok.headers.get('x-request-id')!;
      t.match(id, uuid, 'a UUID');
      t.not(id, headers[0][1], 'not the sample\'s own');
      seen.add(id);
      t.equal(ok.headers.get('cache-control'), 'no-store', 'a value that is not a UUID is sent as given');
      // What ownHeaders would take from this answer: the added headers, none of node:http's own.
      t.same(ownHeaders(ok).map(([name]) => name).sort(), ['cache-control', 'x-request-id']);
    }
    t.equal(seen.size, 3, 'a fresh id per answer');
  } finally {
    await server.stop();
  }
});
