/**
 * The log of standard runs behind issue 18's evaluate target, and the day's
 * verdict on it: `node dist/bench/standard-runs.js [YYYY-MM-DD]` (default:
 * today, UTC; exit status 0 when the day meets the target, 1 when not);
 * `--days` prints one line per UTC day in the log (the README's row);
 * `--by-floor [--since <UTC time>]` groups the runs by how fast the floor
 * was (the fast-hour question below: does the ratio fall as the host gets
 * faster?).
 *
 * A standard run is `node dist/bench/run.js --runs 3 --only http-evaluate`
 * (docs/bench-method.md): the runner appends one line per such run to
 * bench/standard-runs.ndjson, beside the results.json it rewrites, so a
 * day's runs are counted from data, not from prose. The target (README,
 * Performance) is stated met for a UTC day when every standard run of it
 * holds at or above 0.8x the honest floor's req/s (each run the median of
 * its three windows), and the day includes a fast hour: a run whose floor
 * served 35k req/s or more, since on a slow host the floor's own cost
 * hides ours.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ScenarioReport } from './run';
import { median } from './stats';

export const TARGET = 0.8;
/** When the runner began this log: a day that started before it had runs the log does not hold (bench/HISTORY.md does). */
export const LOG_BEGAN = '2026-11-28T22:19:00.000Z';
export const FAST_FLOOR_RPS = 35_000;
/** The case whose ratio the target names. */
const CASE = 'evaluate 10k vs honest floor, p=1';

export interface StandardRun {
  /** When the run ended (ISO). */
  readonly at: string;
  /** The commit the service was built from, `-dirty` when src/ or projections/ differed from it. */
  readonly build: string;
  readonly cpu: string;
  readonly load_1m: number;
  /** The median of the windows' rps_vs_floor. */
  readonly ratio: number;
  /** Each window's rps_vs_floor, in run order. */
  readonly windows: readonly number[];
  readonly rps: number;
  readonly floor_rps: number;
  readonly cpu_us: number;
  readonly floor_cpu_us: number;
}

/** The line a report makes in the log, or undefined when it is not a standard run (another scenario, --quick, other --runs). */
export function standardRun(report: ScenarioReport, build: string): StandardRun | undefined {
  if (report.name !== 'http-evaluate' || report.quick || report.runs !== 3) return undefined;
  const c = report.cases.find((each) => each.case === CASE);
  const ratio = c?.figures?.rps_vs_floor;
  if (c?.subject === undefined || c.baseline === undefined || typeof ratio !== 'number') return undefined;
  return {
    at: report.date,
    build,
    cpu: report.machine.cpu,
    load_1m: report.machine.load_1m,
    ratio,
    windows: c.figure_runs?.rps_vs_floor ?? [ratio, ratio, ratio],
    rps: c.subject.ops_per_s,
    floor_rps: c.baseline.ops_per_s,
    cpu_us: Number(c.figures?.cpu_us),
    floor_cpu_us: Number(c.figures?.floor_cpu_us),
  };
}

/** A run under the target (the day's verdict fails on one). */
const isUnder = (run: StandardRun): boolean => run.ratio < TARGET;

export interface DayVerdict {
  readonly day: string;
  readonly runs: readonly StandardRun[];
  readonly under: readonly StandardRun[];
  readonly fastest_floor_rps: number | undefined;
  readonly met: boolean;
  /** False for a day that began before the log: its earlier runs are not in it. */
  readonly judged: boolean;
  /** One sentence: met, or what is missing. */
  readonly reason: string;
}

/** The verdict on `day` (YYYY-MM-DD, UTC) from every logged run. */
export function dayVerdict(all: readonly StandardRun[], day: string): DayVerdict {
  const runs = all.filter((run) => run.at.slice(0, 10) === day);
  const under = runs.filter(isUnder);
  const fastest = runs.length === 0 ? undefined : Math.max(...runs.map((run) => run.floor_rps));
  const fast = fastest !== undefined && fastest >= FAST_FLOOR_RPS;
  const partial = `${day}T00:00:00.000Z` < LOG_BEGAN;
  const reason =
    partial ? `not judged from the log: it began at ${LOG_BEGAN}, and the day's earlier runs are in bench/HISTORY.md only`
    : runs.length === 0 ? 'no standard run that day'
    : under.length > 0 ? `${under.length} of ${runs.length} runs under ${TARGET}x`
    : !fast ? `every run at or above ${TARGET}x, but no fast hour (the floor at most ${Math.round(fastest!)} req/s, under ${FAST_FLOOR_RPS})`
    : `every run of ${runs.length} at or above ${TARGET}x, a fast hour included`;
  return { day, runs, under, fastest_floor_rps: fastest, met: !partial && runs.length > 0 && under.length === 0 && fast, judged: !partial, reason };
}

/** How a set of runs' ratios spread: how many, how many under the target, the median, the lowest and highest (a day's, a band's). */
export interface RatioSpread {
  readonly runs: number;
  readonly under: number;
  readonly median: number;
  readonly lowest: number;
  readonly highest: number;
}

/** One UTC day of the log in a line: how its runs spread, and its verdict. */
export interface DaySummary extends RatioSpread {
  readonly day: string;
  readonly floor_rps: { readonly lowest: number; readonly highest: number };
  readonly met: boolean;
  readonly judged: boolean;
  /** dayVerdict's sentence: met, what is missing, or why the day is not judged. */
  readonly reason: string;
}

function ratioSpread(runs: readonly StandardRun[]): RatioSpread {
  const ratios = runs.map((run) => run.ratio);
  return {
    runs: ratios.length,
    under: runs.filter(isUnder).length,
    median: median(ratios),
    lowest: Math.min(...ratios),
    highest: Math.max(...ratios),
  };
}

/** Every UTC day the log holds a run of, in order (the verdict's rule: dayVerdict). */
export function daySummaries(all: readonly StandardRun[]): DaySummary[] {
  const days = [...new Set(all.map((run) => run.at.slice(0, 10)))].sort();
  return days.map((day) => {
    const verdict = dayVerdict(all, day);
    const floors = verdict.runs.map((run) => run.floor_rps);
    return {
      day,
      ...ratioSpread(verdict.runs),
      floor_rps: { lowest: Math.min(...floors), highest: Math.max(...floors) },
      met: verdict.met,
      judged: verdict.judged,
      reason: verdict.reason,
    };
  });
}

/** The floor's req/s bands `--by-floor` groups runs into: wide enough to hold several runs each, the last the fast hour's. */
export const FLOOR_BANDS: readonly number[] = [0, 20_000, 25_000, 27_500, 30_000, FAST_FLOOR_RPS];

/** The runs whose floor served within one band (from `low` req/s, up to the next band's). */
export interface FloorBand extends RatioSpread {
  readonly low: number;
  /** Infinity for the last band. */
  readonly high: number;
  /** The median of the runs' service CPU per answer less the floor's, in µs: what the service costs beyond the floor at that speed. */
  readonly cpu_over_floor_us: number;
}

/**
 * The runs at or after `since` (ISO; '' for all) by the floor's req/s band,
 * bands without runs left out: whether the ratio holds as the host gets
 * faster, which a day's verdict asks of its fast hour.
 */
export function floorBands(all: readonly StandardRun[], since = ''): FloorBand[] {
  const runs = all.filter((run) => run.at >= since);
  const bands: FloorBand[] = [];
  FLOOR_BANDS.forEach((low, i) => {
    const high = FLOOR_BANDS[i + 1] ?? Infinity;
    const inBand = runs.filter((run) => run.floor_rps >= low && run.floor_rps < high);
    if (inBand.length === 0) return;
    bands.push({
      low, high, ...ratioSpread(inBand),
      cpu_over_floor_us: median(inBand.map((run) => run.cpu_us - run.floor_cpu_us)),
    });
  });
  return bands;
}

export const LOG_PATH = path.resolve(__dirname, '..', '..', 'bench', 'standard-runs.ndjson');

export function readRuns(file = LOG_PATH): StandardRun[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as StandardRun);
}

export function appendRun(run: StandardRun, file = LOG_PATH): void {
  appendFileSync(file, `${JSON.stringify(run)}\n`);
}

/** HEAD's short commit, `-dirty` when the service's sources differ from it; `unknown` outside a git checkout. */
export function currentBuild(cwd = path.dirname(LOG_PATH)): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return 'unknown';
  const dirty = git('status', '--porcelain', '--', '../src', '../projections').stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? '-dirty' : ''}`;
}

/** A ratio as the printouts show it. */
const f = (n: number): string => n.toFixed(2);

function printDay(verdict: DayVerdict): void {
  console.log(`standard runs of ${verdict.day} (UTC), from ${path.relative(process.cwd(), LOG_PATH)}:`);
  for (const run of verdict.runs) {
    console.log(`  ${run.at.slice(11, 16)}  ${run.build.padEnd(14)} ${f(run.ratio)}x [${run.windows.map(f).join(' ')}]  ` +
      `${Math.round(run.rps)} req/s, floor ${Math.round(run.floor_rps)}  cpu ${run.cpu_us.toFixed(1)} vs ${run.floor_cpu_us.toFixed(1)} µs${run.ratio < TARGET ? '  UNDER' : ''}`);
  }
  console.log(`${verdict.met ? 'met' : 'not met'}: ${verdict.reason}`);
}

function printDays(days: readonly DaySummary[]): void {
  console.log(`standard runs by UTC day, from ${path.relative(process.cwd(), LOG_PATH)} (the day's verdict: node dist/bench/standard-runs.js <day>):`);
  for (const d of days) {
    console.log(`  ${d.day}  ${String(d.runs).padStart(3)} runs, ${d.under} under ${TARGET}x  median ${f(d.median)}x (${f(d.lowest)} to ${f(d.highest)})  ` +
      `floor ${Math.round(d.floor_rps.lowest)} to ${Math.round(d.floor_rps.highest)} req/s  ` +
      (d.judged ? (d.met ? 'met' : 'not met') : d.reason));
  }
}

function printBands(bands: readonly FloorBand[], since: string): void {
  console.log(`standard runs${since === '' ? '' : ` since ${since}`} by the floor's req/s, from ${path.relative(process.cwd(), LOG_PATH)}:`);
  const k = (n: number): string => `${n / 1000}k`;
  for (const b of bands) {
    const band = b.high === Infinity ? `${k(b.low)} and up` : `${k(b.low)} to ${k(b.high)}`;
    console.log(`  floor ${band.padEnd(12)} ${String(b.runs).padStart(3)} runs, ${b.under} under ${TARGET}x  median ${f(b.median)}x, lowest ${f(b.lowest)}x  ` +
      `service CPU per answer minus the floor's ${b.cpu_over_floor_us >= 0 ? '+' : ''}${b.cpu_over_floor_us.toFixed(1)} µs (median)`);
  }
  if (bands.length === 0) console.log('  no runs');
}

/** A UTC day or time (2026-11-29, 2026-11-29T09:40, ...:00.000Z) as the log writes times, or undefined when it is not one. */
export function sinceTime(text: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?)?Z?$/.exec(text);
  if (match === null) return undefined;
  const time = new Date(`${match[1]}${match[2] ?? 'T00:00'}Z`);
  if (Number.isNaN(time.getTime())) return undefined;
  const iso = time.toISOString();
  // Date rolls a day that does not exist (2026-02-30) or T24:00 into the next one: refused, not moved.
  return iso.startsWith(match[1]!) ? iso : undefined;
}

const USAGE = 'usage: node dist/bench/standard-runs.js [YYYY-MM-DD | --days | --by-floor [--since <UTC time>]]';

if (require.main === module) {
  const day = process.argv[2] ?? new Date().toISOString().slice(0, 10);
  if (day === '--days') {
    printDays(daySummaries(readRuns()));
    process.exit(0);
  }
  if (day === '--by-floor') {
    const rest = process.argv.slice(3);
    const since = rest.length === 0 ? '' : rest.length === 2 && rest[0] === '--since' ? sinceTime(rest[1]) : undefined;
    if (since === undefined) {
      console.error(`${USAGE}; --since takes a UTC time such as 2026-11-29T09:40, got ${JSON.stringify(rest.join(' '))}`);
      process.exit(2);
    }
    printBands(floorBands(readRuns(), since), since);
    process.exit(0);
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || sinceTime(day) === undefined) {
    console.error(`${USAGE}; got ${JSON.stringify(day)}`);
    process.exit(2);
  }
  const verdict = dayVerdict(readRuns(), day);
  printDay(verdict);
  process.exitCode = verdict.met ? 0 : 1;
}
