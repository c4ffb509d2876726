/**
 * Benchmark runner: `npm run bench [-- --runs 3 --only engine,scale --quick --1m]`
 * (--1m adds the engine and scale scenarios' 1M-rule shape; ignored with --quick).
 *
 * Scenario protocol: every file in bench/scenarios/ is one scenario. It
 * exports `scenario: Scenario` (bench/scenario.ts): a name, a one-line
 * description and `run({quick})`, which measures in its own process and
 * returns cases as data (subject timing, optional baseline timing from the
 * same process run, optional figures). Adding a scenario is dropping a file
 * there; nothing here lists them. A scenario too long for the default run
 * (minutes: million) also exports `explicitOnly = true` and runs only when
 * --only names it.
 *
 * Each run of each scenario is a fresh `node --expose-gc` process
 * (bench/child.ts, which hands the cases back on stdout), so JIT state, heap and caches never leak between
 * scenarios or runs. With several runs, every number reported is the median
 * across runs (never the best run). ratio = baseline p50 / subject p50, i.e.
 * how many times faster the subject is.
 *
 * Output: a table on stdout with the machine and the exact command, and
 * bench/results.json + bench/RESULTS.md (every dated run also goes in
 * bench/HISTORY.md, by hand, with its build). A run with --only replaces only the scenarios it ran; the others keep
 * their earlier results (each scenario records its own machine, command and
 * date).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESULT_MARKER } from './child';
import type { CaseResult, Timing } from './scenario';
import { median } from './stats';

interface Args {
  readonly runs: number;
  readonly only: readonly string[] | null;
  readonly quick: boolean;
  readonly million: boolean;
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  readonly os: string;
  readonly memory_gb: number;
  /** 1-minute load average when the scenario started: other work on the box skews tails. */
  readonly load_1m: number;
}

export interface ScenarioReport {
  readonly name: string;
  readonly description: string;
  readonly date: string;
  readonly command: string;
  readonly runs: number;
  readonly quick: boolean;
  readonly machine: Machine;
  readonly cases: readonly AggregatedCase[];
}

export interface AggregatedCase extends CaseResult {
  /** baseline p50 / subject p50. */
  readonly ratio?: number;
  /** Each run's value, in run order, of every numeric figure whose runs differ: the spread behind its median. */
  readonly figure_runs?: { readonly [name: string]: readonly number[] };
}

const SOURCE_DIR = path.resolve(__dirname, '..', '..', 'bench');
const SCENARIO_DIR = path.join(__dirname, 'scenarios');

function parseArgs(argv: readonly string[]): Args {
  let runs: number | null = null;
  let only: string[] | null = null;
  let quick = false;
  let million = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--1m') million = true;
    else if (arg === '--runs') runs = Number(argv[++i]);
    else if (arg === '--only') only = (argv[++i] ?? '').split(',').filter(Boolean);
    else throw new Error(`unknown argument ${arg}; use --runs <n>, --only <a,b>, --quick, --1m`);
  }
  if (runs !== null && !(Number.isInteger(runs) && runs > 0)) throw new Error('--runs needs a positive integer');
  return { runs: runs ?? (quick ? 1 : 3), only, quick, million: million && !quick };
}

function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    load_1m: Number(os.loadavg()[0].toFixed(2)),
  };
}

function command(argv: readonly string[]): string {
  const args = argv.length > 0 ? ` -- ${argv.join(' ')}` : '';
  return process.env.npm_lifecycle_event === 'bench' ? `npm run bench${args}` : `node dist/bench/run.js ${argv.join(' ')}`.trim();
}

/** True for a scenario that runs only when --only names it. */
function explicitOnly(name: string): boolean {
  return (require(path.join(SCENARIO_DIR, `${name}.js`)) as { explicitOnly?: boolean }).explicitOnly === true;
}

function discover(only: readonly string[] | null): string[] {
  const names = readdirSync(SCENARIO_DIR).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)).sort();
  const unknown = only?.filter((n) => !names.includes(n)) ?? [];
  if (unknown.length > 0) throw new Error(`no scenario ${unknown.join(', ')}; have ${names.join(', ')}`);
  return only === null ? names.filter((n) => !explicitOnly(n)) : names.filter((n) => only.includes(n));
}

interface ChildOutput {
  readonly name: string;
  readonly description: string;
  readonly cases: CaseResult[];
}

function runOnce(file: string, args: Args, run: number): ChildOutput {
  const flags = [...(args.quick ? ['--quick'] : []), ...(args.million ? ['--1m'] : []), `--run=${run}`];
  // The result comes back on stdout, not in a temp file another process could clean up.
  const child = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'child.js'), file, ...flags], {
    stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 64 * 2 ** 20,
  });
  const lines = (child.stdout ?? '').split('\n');
  const result = lines.find((line) => line.startsWith(RESULT_MARKER));
  const other = lines.filter((line) => line !== result && line.trim() !== '');
  if (other.length > 0) console.log(other.join('\n'));
  if (child.status !== 0 || result === undefined) {
    throw new Error(`${path.basename(file)} exited with ${child.status ?? child.signal} and ${result ? 'a' : 'no'} result`);
  }
  return JSON.parse(result.slice(RESULT_MARKER.length)) as ChildOutput;
}

function medianTiming<T extends Timing>(timings: readonly T[]): T {
  return {
    ...timings[0],
    samples: median(timings.map((t) => t.samples)),
    p50_us: median(timings.map((t) => t.p50_us)),
    p99_us: median(timings.map((t) => t.p99_us)),
    ops_per_s: median(timings.map((t) => t.ops_per_s)),
  };
}

/** One row per case name, each number the median across runs (a figure's run values kept beside it when they differ). */
export function aggregate(runs: readonly CaseResult[][]): AggregatedCase[] {
  return runs[0].map((first) => {
    const same = runs.map((cases) => cases.find((c) => c.case === first.case)).filter((c): c is CaseResult => c !== undefined);
    const subjects = same.map((c) => c.subject).filter((t): t is Timing => t !== undefined);
    const baselines = same.map((c) => c.baseline).filter((t): t is NonNullable<CaseResult['baseline']> => t !== undefined);
    const subject = subjects.length > 0 ? medianTiming(subjects) : undefined;
    const baseline = baselines.length > 0 ? medianTiming(baselines) : undefined;
    const figures: Record<string, number | string> = {};
    const figureRuns: Record<string, number[]> = {};
    for (const [key, value] of Object.entries(first.figures ?? {})) {
      if (typeof value !== 'number') {
        figures[key] = value;
        continue;
      }
      const values = same.map((c) => Number(c.figures?.[key]));
      figures[key] = median(values);
      if (values.some((v) => v !== values[0])) figureRuns[key] = values;
    }
    const ratio = subject && baseline ? baseline.p50_us / subject.p50_us : undefined;
    return { case: first.case, subject, baseline, figures, ratio, ...(Object.keys(figureRuns).length > 0 ? { figure_runs: figureRuns } : {}) };
  });
}

function fmt(n: number | null | undefined, digits = 2): string {
  // null: a figure results.json stored as NaN (JSON has no NaN).
  if (n === undefined || n === null || Number.isNaN(n)) return '';
  if (Math.abs(n) >= 1e5) return Math.round(n).toLocaleString('en-US');
  return n >= 100 ? n.toFixed(0) : n.toFixed(digits);
}

/** A figure as `name=median`, with each run's value after it when they differ: `rps_vs_floor=0.84 [0.81 0.84 0.90]`. */
function figureText(c: AggregatedCase, name: string, value: number | string): string {
  if (typeof value !== 'number') return `${name}=${value}`;
  const runs = c.figure_runs?.[name];
  return `${name}=${fmt(value)}${runs === undefined ? '' : ` [${runs.map((v) => fmt(v)).join(' ')}]`}`;
}

export function tableRows(report: ScenarioReport): string[][] {
  return report.cases.map((c) => [
    report.name, c.case, fmt(c.subject?.p50_us), fmt(c.subject?.p99_us), fmt(c.subject?.ops_per_s),
    c.baseline ? `${c.baseline.name}: p50 ${fmt(c.baseline.p50_us)} us, p99 ${fmt(c.baseline.p99_us)} us (${c.baseline.samples} samples)` : '',
    // Two decimals below 10x: a ratio under 1 (a cold-cache row, a slower subject) would print as "0x".
    c.ratio !== undefined ? `${fmt(c.ratio, c.ratio < 10 ? 2 : 0)}x` : '',
    Object.entries(c.figures ?? {}).map(([k, v]) => figureText(c, k, v)).join(', '),
  ]);
}

const HEADER = ['scenario', 'case', 'p50 us', 'p99 us', 'ops/s', 'baseline', 'ratio', 'figures'];

function printTable(rows: string[][]): void {
  const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => Math.min(r[i].length, 60))));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  console.log(line(HEADER));
  for (const row of rows) console.log(line(row));
}

function machineLine(m: Machine): string {
  return `${m.cpu}, ${m.cores} cores, ${m.memory_gb} GB, ${m.os}, Node ${m.node}, load ${m.load_1m} (1 min) at start`;
}

function markdown(reports: readonly ScenarioReport[]): string {
  const parts = [
    '# Benchmark results',
    '',
    'Written by `bench/run.ts` (method: docs/bench-method.md; protocol: header of bench/run.ts).',
    'Times in microseconds; every number is the median across the runs named, a figure followed by each run\'s value in brackets where the runs differ; ratio = baseline p50 / subject p50.',
    '',
  ];
  for (const r of reports) {
    parts.push(`## ${r.name}`, '', r.description, '', `- date: ${r.date}`, `- command: \`${r.command}\``,
      `- runs: ${r.runs}${r.quick ? ' (quick)' : ''}, each in a fresh process`, `- machine: ${machineLine(r.machine)}`, '');
    parts.push(`| ${HEADER.slice(1).join(' | ')} |`, `|${HEADER.slice(1).map(() => '---').join('|')}|`);
    for (const row of tableRows(r)) parts.push(`| ${row.slice(1).map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);
    parts.push('');
  }
  return parts.join('\n');
}

function main(): void {
  const argv = process.argv.slice(2);
  const args = parseArgs(argv);
  const names = discover(args.only);
  const cmd = command(argv);
  console.log(`command: ${cmd}`);
  console.log(`machine: ${machineLine(machine())}`);
  const jsonPath = path.join(SOURCE_DIR, 'results.json');
  const previous: Record<string, ScenarioReport> = existsSync(jsonPath)
    ? (JSON.parse(readFileSync(jsonPath, 'utf8')) as { scenarios: Record<string, ScenarioReport> }).scenarios
    : {};
  const fresh: ScenarioReport[] = [];
  for (const name of names) {
    const m = machine();
    const outputs: ChildOutput[] = [];
    for (let i = 0; i < args.runs; i++) {
      console.log(`running ${name} (${i + 1}/${args.runs})...`);
      outputs.push(runOnce(path.join(SCENARIO_DIR, `${name}.js`), args, i));
    }
    fresh.push({
      name, description: outputs[0].description, date: new Date().toISOString(), command: cmd,
      runs: args.runs, quick: args.quick, machine: m, cases: aggregate(outputs.map((o) => o.cases)),
    });
  }
  console.log('');
  printTable(fresh.flatMap(tableRows));
  const merged = { ...previous };
  for (const r of fresh) merged[r.name] = r;
  const all = Object.keys(merged).sort().map((k) => merged[k]);
  writeFileSync(jsonPath, `${JSON.stringify({ scenarios: merged }, null, 2)}\n`);
  writeFileSync(path.join(SOURCE_DIR, 'RESULTS.md'), markdown(all));
  console.log(`\nwrote ${path.relative(process.cwd(), jsonPath)} and bench/RESULTS.md`);
}

if (require.main === module) main();
