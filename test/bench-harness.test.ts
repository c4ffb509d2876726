import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuMicros, cpuSeconds, loadWithCpu, ownHeaders, peakRssMb, SERVICE_NODE_FLAGS, startBare } from '../bench/http-harness';
import { aggregate, tableRows } from '../bench/run';

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

t.test('loadWithCpu reads the server\'s CPU around the measured window only, per answered request', async (t) => {
  const server = await startBare(JSON.stringify({ ok: true }), { mode: 'floor' });
  try {
    const spec = { url: server.url, headers: {}, bodies: ['{"a":1}'], connections: 4, pipelining: 1, seconds: 1 };
    const before = cpuMicros(server.child.pid);
    const measured = loadWithCpu({ ...spec, warmupSeconds: 2 }, server.child.pid);
    const whole = cpuMicros(server.child.pid) - before;
    t.ok(measured.requests > 100, `${measured.requests} requests answered`);
    t.equal(measured.non2xx, 0);
    // A request costs a node:http server some µs of CPU: neither nothing nor a whole second shared by a few hundred.
    t.ok(measured.cpuUsPerRequest > 1 && measured.cpuUsPerRequest < 2000, `${measured.cpuUsPerRequest.toFixed(1)} µs per request`);
    t.ok(measured.systemUsPerRequest >= 0 && measured.systemUsPerRequest <= measured.cpuUsPerRequest, 'its system part is a part of it');
    // The 2 s warm-up took about twice the measured second's CPU: read around both, the figure would be ~3x the window's own.
    const share = measured.cpuUsPerRequest * measured.requests / whole;
    t.ok(share < 0.6, `the measured window is ${(100 * share).toFixed(0)}% of the server's CPU over warm-up and window`);
  } finally {
    await server.stop();
  }
});

t.test('engine-ab: two builds alternated in one process, their answers checked alike first', async (t) => {
  const dist = path.resolve(__dirname, '..');
  const tool = path.join(dist, 'bench', 'engine-ab.js');
  const run = (...args: string[]) => spawnSync(process.execPath, [tool, ...args], { encoding: 'utf8' });
  const small = ['--rules', '300', '--rounds', '4', '--batch', '40', '--warmup-rounds', '1', '--thrash-kb', '64'];

  const same = run('--base', dist, ...small);
  t.equal(same.status, 0, same.stderr);
  const medians = [...same.stdout.matchAll(/median (-?[0-9.]+) µs per evaluation/g)].map((m) => Number(m[1]));
  t.equal(medians.length, 2, 'a median per build');
  t.ok(medians.every((us) => us > 0), `positive times: ${medians.join(', ')}`);
  t.match(same.stdout, /300 rules, 40 evaluations a round, 3 rounds after 1 warm-up, 64 KiB written/);
  t.match(same.stdout, /this build - base, per round: median -?[0-9.]+ µs, from -?[0-9.]+ to -?[0-9.]+/);

  // A build whose engine answers nothing: refused before any timing, naming the first request that differs.
  const other = mkdtempSync(path.join(os.tmpdir(), 'rulevault-engine-ab-'));
  t.teardown(() => rmSync(other, { recursive: true, force: true }));
  mkdirSync(path.join(other, 'src', 'engine'), { recursive: true });
  writeFileSync(path.join(other, 'src', 'engine', 'index.js'),
    'exports.createEngine = () => ({ upsertMany() {}, evaluate: () => [], evaluateDerived: () => [] });\n');
  const differs = run('--base', other, ...small);
  t.equal(differs.status, 1);
  t.match(differs.stderr, /^the builds answer request \d+ differently: \{/);
  t.equal(differs.stdout, '', 'nothing timed');

  const missing = run('--base', path.join(other, 'nowhere'), ...small);
  t.equal(missing.status, 2);
  t.match(missing.stderr, /--base .*nowhere: no build there/);
  t.match(run('--base', dist, '--rounds', '2', '--warmup-rounds', '2').stderr, /--rounds \(2\) must exceed --warmup-rounds \(2\)/);
  t.match(run('--base', dist, '--batch', 'many').stderr, /--batch must be a whole number of at least 1, got many/);
});

t.test('the runner medians each figure across runs and keeps the run values where they differ', async (t) => {
  const run = (rps: number, ratio: number) => [{
    case: 'evaluate vs floor',
    subject: { samples: 10, p50_us: 1000, p99_us: 2000, ops_per_s: rps },
    figures: { rps_vs_floor: ratio, answer_bytes: 620, note: 'same' },
  }];
  const [row] = aggregate([run(100, 0.9), run(120, 0.7), run(110, 0.8)]);
  t.equal(row.subject?.ops_per_s, 110, 'timings: the median run');
  t.same(row.figures, { rps_vs_floor: 0.8, answer_bytes: 620, note: 'same' }, 'figures: the median, strings as given');
  t.same(row.figure_runs, { rps_vs_floor: [0.9, 0.7, 0.8] }, 'the run values of the figure that differs, in run order');
  const machine = { cpu: 'x', cores: 2, node: 'v20', os: 'Linux', memory_gb: 24, load_1m: 0 };
  const report = { name: 'http-evaluate', description: '', date: '', command: '', runs: 3, quick: false, machine, cases: [row] };
  t.match(tableRows(report)[0].at(-1), /^rps_vs_floor=0\.80 \[0\.90 0\.70 0\.80\], answer_bytes=620, note=same$/, 'the table shows the spread');
  const [single] = aggregate([run(100, 0.9)]);
  t.equal(single.figure_runs, undefined, 'one run: nothing beside the figure');
});
