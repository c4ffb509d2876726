import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadWithCpu, startBare } from '../bench/http-harness';
import type { CpuProfile } from '../bench/cpu-profile';
import { formatShares, windowShares } from '../bench/profile-windows';

// A profile as V8 writes one: a tree of frames, then samples of a node each, spaced by timeDeltas (µs).
function frame(id: number, functionName: string, url = '', children: number[] = []) {
  return { id, callFrame: { functionName, url, lineNumber: -1 }, children };
}
const nodes = [
  frame(1, '(root)', '', [2, 3, 4, 5, 6]),
  frame(2, '(idle)'),
  frame(3, '(garbage collector)'),
  frame(4, 'writev'),
  frame(5, 'drive', 'file:///x/dist/src/engine/match.js', [7]),
  frame(6, 'answer', 'file:///x/dist/src/http/public-endpoints.js', [8]),
  // Called from the engine: counted as the engine's, whatever it is itself.
  frame(7, 'get', 'node:internal/map'),
  // A JavaScript function named like a write is not the kernel's.
  frame(8, 'writev', 'node:internal/stream_base_commons'),
];

t.test('windowShares counts each window\'s busy samples by category, idle left out', async (t) => {
  // Samples at 1,000 + 10 .. 100 µs.
  const samples = [2, 3, 4, 4, 5, 7, 6, 8, 2, 5];
  const profile: CpuProfile = { nodes, startTime: 1000, samples, timeDeltas: samples.map(() => 10) };
  const [all, firstHalf, none] = windowShares(profile, [
    { startUs: 0, endUs: 2000 },
    { startUs: 1010, endUs: 1060 },
    { startUs: 2000, endUs: 3000 },
  ]);
  t.equal(all.busy, 8);
  t.same(all.shares, { writes: 2 / 8, engine: 3 / 8, gc: 1 / 8, other: 2 / 8 });
  // 1,010 to 1,050 (the end is open): idle, gc, writev, writev, drive.
  t.equal(firstHalf.busy, 4);
  t.same(firstHalf.shares, { writes: 2 / 4, engine: 1 / 4, gc: 1 / 4, other: 0 });
  t.equal(none.busy, 0);
  t.ok(Number.isNaN(none.shares.engine), 'a window with no busy sample has no shares');
  t.equal(formatShares(all), 'writes 25% engine 38% gc 13% other 25%');
});

t.test('a real server\'s profile: its measured window holds its busy samples, the socket writes among them', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rulevault-profile-windows-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // Node's own profile names (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): under tap a child also runs
  // tap's module loader in a thread of its own, whose profile would overwrite the main thread's under one fixed name.
  const server = await startBare(JSON.stringify({ ok: true }), { mode: 'floor', nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  let measured;
  try {
    const spec = { url: server.url, headers: {}, bodies: ['{"a":1}'], connections: 4, pipelining: 1, seconds: 1, warmupSeconds: 1 };
    measured = loadWithCpu(spec, server.child.pid);
  } finally {
    await server.stop();
  }
  const { startUs, endUs } = measured.window;
  t.ok(endUs - startUs >= 1e6 && endUs - startUs < 1e7, `the window spans ${((endUs - startUs) / 1e6).toFixed(2)} s: the measured second and the load generator's start`);
  const mainThread = readdirSync(dir).filter((name) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(name));
  t.equal(mainThread.length, 1, `one profile of the main thread among ${readdirSync(dir).join(', ')}`);
  const profile = JSON.parse(readFileSync(path.join(dir, mainThread[0]), 'utf8')) as CpuProfile;
  const [window, before] = windowShares(profile, [measured.window, { startUs: profile.startTime, endUs: profile.startTime + 1 }]);
  // V8 samples every ~1 ms: a second of answering requests is hundreds of busy samples, some in the kernel's writes.
  t.ok(window.busy > 100, `${window.busy} busy samples in the window`);
  t.ok(window.shares.writes > 0.05, `writes ${(100 * window.shares.writes).toFixed(0)}%`);
  t.equal(window.shares.engine, 0, 'the floor has no engine');
  t.ok(before.busy <= 1, 'a microsecond before anything ran holds at most one sample');
});
