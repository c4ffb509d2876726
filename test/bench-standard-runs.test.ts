import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aggregate, type ScenarioReport } from '../bench/run';
import type { CaseResult } from '../bench/scenario';
import { appendRun, currentBuild, daySummaries, dayVerdict, floorBands, readRuns, sinceTime, standardRun, type StandardRun } from '../bench/standard-runs';

const machine = { cpu: 'AMD EPYC', cores: 2, node: 'v20.20.2', os: 'Linux', memory_gb: 24, load_1m: 1.5 };

/** One window of http-evaluate as the scenario reports it: the floor case with its ratio, CPU and the floor's timing. */
function window(ratio: number, floorRps: number): CaseResult[] {
  const figures = { pipelining: 1, rps_vs_floor: ratio, cpu_us: 30 / ratio, floor_cpu_us: 30 };
  const timing = (ops: number) => ({ samples: ops * 10, p50_us: 1000, p99_us: 9000, ops_per_s: ops });
  return [
    { case: 'evaluate 10k vs no-op route, p=1', subject: timing(floorRps * ratio), figures },
    { case: 'evaluate 10k vs honest floor, p=1', subject: timing(floorRps * ratio), baseline: { name: 'floor', ...timing(floorRps) }, figures },
  ];
}

function report(windows: readonly [number, number][], overrides: Partial<ScenarioReport> = {}): ScenarioReport {
  return {
    name: 'http-evaluate', description: '', date: '2026-11-29T00:09:30.000Z', command: 'node dist/bench/run.js --runs 3 --only http-evaluate',
    runs: windows.length, quick: false, machine, cases: aggregate(windows.map(([ratio, floor]) => window(ratio, floor))), ...overrides,
  };
}

t.test('a standard run makes one line: the median of its windows, each window, the floor\'s req/s', async (t) => {
  const run = standardRun(report([[0.97, 29_000], [0.85, 30_000], [0.91, 28_000]]), 'abc1234')!;
  t.equal(run.ratio, 0.91);
  t.same(run.windows, [0.97, 0.85, 0.91], 'in run order');
  t.equal(run.floor_rps, 29_000, 'the median of the floor windows');
  t.equal(run.build, 'abc1234');
  t.equal(run.at, '2026-11-29T00:09:30.000Z');
  t.equal(run.floor_cpu_us, 30);
});

t.test('anything but a standard run makes none', async (t) => {
  const three: [number, number][] = [[0.9, 30_000], [0.9, 30_000], [0.9, 30_000]];
  t.equal(standardRun(report(three, { quick: true }), 'x'), undefined, '--quick');
  t.equal(standardRun(report(three.slice(0, 1)), 'x'), undefined, '--runs 1');
  t.equal(standardRun(report(three, { name: 'http-secrets' }), 'x'), undefined, 'another scenario');
});

function run(at: string, ratio: number, floor_rps = 30_000, cpu_us = 30): StandardRun {
  return { at, build: 'b', cpu: 'c', load_1m: 1, ratio, windows: [ratio, ratio, ratio], rps: floor_rps * ratio, floor_rps, cpu_us, floor_cpu_us: 30 };
}

t.test('the day\'s verdict: every run at or above 0.8x, a fast hour included, counted by UTC day', async (t) => {
  const day = '2026-11-29';
  t.match(dayVerdict([], day), { met: false, reason: 'no standard run that day' });
  const slow = [run('2026-11-29T00:05:00.000Z', 0.9), run('2026-11-29T12:00:00.000Z', 0.8)];
  t.match(dayVerdict(slow, day), { met: false, fastest_floor_rps: 30_000, reason: /no fast hour/ }, 'exactly 0.8x holds; a slow floor does not close it');
  const fast = [...slow, run('2026-11-29T23:59:59.000Z', 1.0, 36_000)];
  t.match(dayVerdict(fast, day), { met: true, reason: 'every run of 3 at or above 0.8x, a fast hour included' });
  const under = [...fast, run('2026-11-29T18:00:00.000Z', 0.79)];
  const verdict = dayVerdict(under, day);
  t.equal(verdict.met, false);
  t.equal(verdict.reason, '1 of 4 runs under 0.8x');
  t.same(verdict.under.map((r) => r.at), ['2026-11-29T18:00:00.000Z']);
  t.equal(dayVerdict([...fast, run('2026-11-28T23:59:59.000Z', 0.5), run('2026-11-30T00:00:00.000Z', 0.5)], day).met, true, 'the days around it do not count');
  const before = dayVerdict([run('2026-11-28T22:26:00.000Z', 1.0, 36_000)], '2026-11-28');
  t.match(before, { met: false, reason: /not judged from the log: it began at 2026-11-28T22:19/ }, 'a day that began before the log is not judged from it');
});

t.test('the days in a line each: runs, how many under, the spread, the floor\'s range, the verdict', async (t) => {
  t.same(daySummaries([]), [], 'no runs, no days');
  const days = daySummaries([
    run('2026-11-30T01:00:00.000Z', 0.95, 36_000),
    run('2026-11-29T00:05:00.000Z', 0.9, 22_000),
    run('2026-11-29T09:00:00.000Z', 0.75, 28_000),
    run('2026-11-29T23:59:59.000Z', 1.1, 25_000),
  ]);
  t.same(days.map((d) => d.day), ['2026-11-29', '2026-11-30'], 'in order, by UTC day');
  t.match(days[0], { runs: 3, under: 1, median: 0.9, lowest: 0.75, highest: 1.1, floor_rps: { lowest: 22_000, highest: 28_000 }, met: false });
  t.match(days[1], { runs: 1, under: 0, median: 0.95, met: true, judged: true }, 'the verdict is dayVerdict\'s: a fast hour, none under');
  t.match(daySummaries([run('2026-11-28T22:26:00.000Z', 1.0, 36_000)]), [{ day: '2026-11-28', runs: 1, met: false, judged: false }], 'the day the log began is not judged');
});

t.test('by the floor\'s speed: each band\'s runs, how many under, the median, the lowest, the service\'s CPU over the floor\'s', async (t) => {
  t.same(floorBands([]), [], 'no runs, no bands');
  const runs = [
    run('2026-11-29T01:00:00.000Z', 1.2, 11_000, 60),
    run('2026-11-29T02:00:00.000Z', 0.9, 28_000, 33),
    run('2026-11-29T03:00:00.000Z', 0.7, 29_999, 40),
    run('2026-11-29T04:00:00.000Z', 1.0, 30_000, 30),
    run('2026-11-29T05:00:00.000Z', 0.85, 35_000, 34),
    run('2026-11-29T06:00:00.000Z', 0.95, 54_000, 32),
  ];
  const bands = floorBands(runs);
  t.same(bands.map((b) => [b.low, b.high, b.runs]), [[0, 20_000, 1], [27_500, 30_000, 2], [30_000, 35_000, 1], [35_000, Infinity, 2]],
    'a band holds its lower edge, not its upper; empty bands are left out; the last is open');
  t.match(bands[1], { under: 1, median: 0.7, lowest: 0.7, cpu_over_floor_us: 3 }, 'the floor\'s 30 µs taken from each run\'s service CPU (3 and 10 µs), then the median (of two, the lower: bench/stats.ts)');
  t.match(bands[3], { under: 0, median: 0.85, lowest: 0.85, cpu_over_floor_us: 2 });
  t.same(floorBands(runs, '2026-11-29T04:00:00.000Z').map((b) => b.runs), [1, 2], 'since a time: the runs at or after it');
  t.equal(sinceTime('2026-11-29T09:40'), '2026-11-29T09:40:00.000Z', 'a time without a zone is UTC');
  t.equal(sinceTime('2026-11-29'), '2026-11-29T00:00:00.000Z', 'a day: its start');
  t.equal(sinceTime('2026-11-29T09:40:05.5Z'), '2026-11-29T09:40:05.500Z');
  for (const bad of ['', 'yesterday', '2026-11-29 09:40', '2026-13-01', '2026-02-30', '2026-11-31T09:40', '2026-11-29T24:00', '2026-11-29T09:40+01:00']) t.equal(sinceTime(bad), undefined, `${JSON.stringify(bad)} is refused`);
});

t.test('the log: lines appended are read back in order; the build names the commit', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rulevault-standard-runs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'standard-runs.ndjson');
  t.same(readRuns(file), [], 'no file: no runs');
  appendRun(run('2026-11-29T00:05:00.000Z', 0.9), file);
  appendRun(run('2026-11-29T00:15:00.000Z', 0.7), file);
  t.same(readRuns(file).map((r) => r.ratio), [0.9, 0.7]);
  t.match(currentBuild(path.resolve(__dirname, '..', '..', 'bench')), /^([0-9a-f]{7,}(-dirty)?|unknown)$/, 'a short commit here, unknown outside git');
  t.equal(currentBuild(dir), 'unknown', 'outside a checkout');
});
