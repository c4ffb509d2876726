/**
 * What the HTTP scenarios share: a data folder pre-loaded with events (bulk,
 * so a 10k-rule log takes a second, not an fsync per rule), the real service
 * as its own process on 127.0.0.1, the bare node:http baseline, and the
 * autocannon load process. Three processes on a 2-core machine: the client
 * competes with the server for CPU, which the results must say.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { hashApiKey } from '../src/service/auth';
import { parseRuleCreate } from '../src/domain/rules';
import { SCHEMA_VERSION } from '../src/events';
import { bulkLoadSqlite, type BulkEvent } from '../src/store/sqlite-bulk';
import { childPids, freePort } from '../test/support/process';
import type { LoadResult, LoadSpec } from './load';
import type { Window } from './profile-windows';
import type { Timing } from './scenario';
import { ruleId, type BenchRuleBody } from './workload';

const DIST = path.resolve(__dirname, '..');
export const BENCH_KEY = 'rv_bench-key-' + 'k'.repeat(40);
export const ADMIN_KEY = 'bench-admin-' + 'a'.repeat(40);
export const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');

export function metadata(at = '2026-01-01T00:00:00.000Z') {
  return { actor: 'bench', at, request_id: 'bench', schema: SCHEMA_VERSION };
}

/** RuleCreated events for the workload's rule bodies, through the same input parsing as the API. */
export function* ruleEvents(bodies: readonly BenchRuleBody[]): Generator<BulkEvent> {
  for (let i = 0; i < bodies.length; i++) {
    const id = ruleId(i);
    yield { stream: `rule-${id}`, type: 'RuleCreated', data: { id, ...parseRuleCreate(bodies[i]) } as never, metadata: metadata() };
  }
}

/** The API key the load generator uses: evaluate and secrets:read. */
export function benchKeyEvent(): BulkEvent {
  const id = '00000000-0000-4000-8000-00000000beef';
  return {
    stream: `apikey-${id}`,
    type: 'ApiKeyCreated',
    data: { id, name: 'bench', scopes: ['evaluate', 'secrets:read'], secret_tags: [], key_hash: hashApiKey(BENCH_KEY) },
    metadata: metadata(),
  };
}

export interface DataDir {
  readonly dir: string;
  remove(): void;
}

export function loadedDataDir(events: Iterable<BulkEvent>): DataDir {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rulevault-bench-'));
  bulkLoadSqlite(path.join(dir, 'events.db'), events);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Running {
  readonly url: string;
  readonly child: ChildProcess;
  /** The service's `ready` log line (JSON), when started with `onReadyLine`. */
  readonly readyLog?: string;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/** The node flags `npm start` runs the service with (package.json; a test keeps the two the same). */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=64'];

export interface StartOptions {
  readonly env?: Record<string, string>;
  /**
   * Resolve on the service's own `ready` log line (the moment /readyz turns
   * 200) instead of polling /readyz: start-up timings then carry no polling
   * load on the two cores the service is using.
   */
  readonly onReadyLine?: boolean;
  /** Another build's service entry point (A/B runs of bench/cpu-per-request.ts); default this build's dist/src/main.js. */
  readonly main?: string;
  /** Node flags after the `npm start` ones (e.g. --cpu-prof). */
  readonly nodeFlags?: readonly string[];
  /** How long to wait for ready (default 120 s; a start with 1M rules takes longer). */
  readonly readyTimeoutMs?: number;
}

/**
 * The real service (`node dist/src/main.js`, started as `npm start` starts
 * it) on a free port; resolves once it is ready.
 */
export async function startService(dataDir: string, options: StartOptions = {}): Promise<Running> {
  const port = await freePort();
  const main = options.main ?? path.join(DIST, 'src', 'main.js');
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...(options.nodeFlags ?? []), main], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      RULEVAULT_DATA_DIR: dataDir,
      RULEVAULT_ADMIN_KEY: ADMIN_KEY,
      RULEVAULT_MASTER_KEY: MASTER_KEY,
      RULEVAULT_BENCH_ROUTES: '1',
      LOG_LEVEL: options.onReadyLine ? 'info' : 'warn',
      ...options.env,
    },
    stdio: ['ignore', options.onReadyLine ? 'pipe' : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const running = { url, child, stop: stopper(child) };
  const timeoutMs = options.readyTimeoutMs ?? 120_000;
  if (options.onReadyLine) {
    const readyLog = await readyLine(child, timeoutMs);
    return { ...running, readyLog };
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) return running;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the service did not become ready');
}

/** Resolves with the child's `"msg":"ready"` log line; its stdout keeps draining afterwards. */
function readyLine(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the service did not become ready'));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}`));
    });
    lines.on('line', (line) => {
      if (!line.includes('"msg":"ready"')) return;
      clearTimeout(timer);
      resolve(line);
    });
  });
}

/** Peak resident memory of a running process in MB (Linux: VmHWM), undefined where unknown. */
export function peakRssMb(pid: number | undefined): number | undefined {
  return statusMb(pid, 'VmHWM');
}

/** Resident memory of a running process now, in MB (Linux: VmRSS), undefined where unknown. */
export function rssMb(pid: number | undefined): number | undefined {
  return statusMb(pid, 'VmRSS');
}

function statusMb(pid: number | undefined, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) a running process has used so far (Linux:
 * /proc/<pid>/stat), undefined where unknown. On a busy machine a start's
 * CPU time says more than its wall time.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export interface BareOptions {
  /** bare (fixed bytes) or the honest floor (parse + stringify; bare-server.ts). */
  readonly mode?: 'bare' | 'floor';
  readonly nodeFlags?: readonly string[];
  /** The floor with this many µs of busy loop per request. */
  readonly spinUs?: number;
  /** Headers each answer carries too, as [name, value]; a UUID value is minted afresh per answer. */
  readonly headers?: readonly (readonly [string, string])[];
}

/** A node:http baseline answering `answer` (bare-server.ts). */
export async function startBare(answer: string, { mode = 'bare', nodeFlags = [], spinUs, headers }: BareOptions = {}): Promise<Running> {
  const modeArgs = [
    ...(mode === 'floor' ? ['--floor'] : []),
    ...(spinUs === undefined ? [] : ['--spin-us', String(spinUs)]),
    ...(headers === undefined ? [] : ['--headers', JSON.stringify(headers)]),
  ];
  const args = [...nodeFlags, path.join(DIST, 'bench', 'bare-server.js'), answer, ...modeArgs];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  return { url: `http://127.0.0.1:${port}`, child, stop: stopper(child) };
}

/** The headers every floor answer carries: the two it sets (type, length) and those node:http adds. */
const NODE_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The headers a subject's answer carries beyond the floor's own (X-Request-Id, RuleVault-Decision-Id...), as [name, value]. */
export function ownHeaders(answer: Response): [string, string][] {
  return [...answer.headers].filter(([name]) => !NODE_HEADERS.has(name));
}

/** Runs autocannon in its own process and returns its figures. */
export function load(spec: LoadSpec): LoadResult {
  // The spec (hundreds of bodies) goes through stdin: it would not fit in argv.
  const out = spawnSync(process.execPath, [path.join(DIST, 'bench', 'load.js')], { input: JSON.stringify(spec), encoding: 'utf8', maxBuffer: 1 << 24 });
  if (out.status !== 0) throw new Error(`load generator failed: ${out.error?.message ?? out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as LoadResult;
}

/** A load's figures and what the server spent on it, per answered request, in CPU µs. */
export interface LoadWithCpu extends LoadResult {
  readonly cpuUsPerRequest: number;
  /** The kernel's part of cpuUsPerRequest (system time: socket reads and writes, wake-ups). */
  readonly systemUsPerRequest: number;
  /** The measured window on the monotonic clock, in µs: where a server's `--cpu-prof` samples of it lie (profile-windows.ts). */
  readonly window: Window;
}

/**
 * A load as `load` runs it (its warm-up, then the measured window), with
 * the server's CPU (user + system, every thread, from /proc) read around the
 * measured window only: the warm-up runs as a load of its own first. A
 * server's CPU per request says what a request costs it whatever the client
 * and the rest of the machine leave it of the cores (bench/cpu-per-request.ts).
 */
export function loadWithCpu(spec: LoadSpec, serverPid: number | undefined): LoadWithCpu {
  if (spec.warmupSeconds > 0) load({ ...spec, seconds: spec.warmupSeconds, warmupSeconds: 0 });
  const before = cpuSplitMicros(serverPid);
  const startUs = monotonicMicros();
  const result = load({ ...spec, warmupSeconds: 0 });
  const endUs = monotonicMicros();
  const after = cpuSplitMicros(serverPid);
  const user = after.user - before.user;
  const system = after.system - before.system;
  return { ...result, cpuUsPerRequest: (user + system) / result.requests, systemUsPerRequest: system / result.requests, window: { startUs, endUs } };
}

function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** CPU time a live process has used so far (user + system, every thread), in µs; Linux only (/proc). */
export function cpuMicros(pid: number | undefined): number {
  const { user, system } = cpuSplitMicros(pid);
  return user + system;
}

/** The same, user and system (kernel) time apart: the kernel's share is mostly the socket writes (bench/cpu-per-request.ts). */
export function cpuSplitMicros(pid: number | undefined): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name: state is field 3, utime 14, stime 15 (proc(5)), in clock ticks.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(rest[11]) * 1e6) / CLOCK_TICKS, system: (Number(rest[12]) * 1e6) / CLOCK_TICKS };
}

const CLOCK_TICKS = 100;

/** CPU time of a service and its worker processes (RULEVAULT_WORKERS), in µs: the whole server's cost, whatever its shape. */
export function serviceCpuMicros(pid: number | undefined): number {
  return cpuMicros(pid) + childPids(pid!).reduce((sum, child) => sum + cpuMicros(child), 0);
}

export function timing(result: LoadResult): Timing {
  return { samples: result.requests, p50_us: result.p50_ms * 1000, p99_us: result.p99_ms * 1000, ops_per_s: result.rps };
}
