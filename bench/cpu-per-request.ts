/**
 * Server CPU per request under load (issue 18): what a request costs the
 * server in CPU µs, whatever the client and the other work on the machine
 * leave it of the cores. Wall-clock req/s on this shared 2-core machine
 * drifts by 10% between runs; CPU per request drifts much less.
 *
 *   node dist/bench/cpu-per-request.js --workload evaluate|ofrep|ofrep-bulk|secrets|writes
 *     [--rounds 3] [--seconds 5] [--warmup 2] [--log-level warn|info]
 *     [--base <another build's dist/src/main.js>] [--variant label:KEY=VALUE,...]...
 *     [--prof <dir>] [--no-noop] [--floor-spin <µs>]... [--floor-headers]
 *
 * Each round measures every target once, in an order that alternates
 * between rounds (A/B): the service's route, the same service's no-op route
 * (express), the honest floor (bench/bare-server.ts --floor) and, with
 * --base, the same route on another build (for example the main branch's
 * dist) and, per --variant, the same route on this build started with more
 * environment (e.g. `--variant info:LOG_LEVEL=info`) or node flags
 * (`--variant semi16:NODE_FLAGS=--max-semi-space-size=16`). A measurement is a warm-up load, then a measured load of
 * autocannon (-c 64, p=1, its own process), with the server's CPU (user +
 * system, all threads, from /proc) read around the measured load only.
 * Prints per target the median over rounds of CPU µs per request (and its system part) and req/s.
 * --floor-spin adds the floor with that many µs of busy loop per request: how the
 * server's kernel time and req/s respond to a server that costs that much more
 * (issue 18: a slower server leaves the client waiting, and each write wakes it).
 * --floor-headers adds the floor sending the route's own headers too (X-Request-Id, RuleVault-Decision-Id...,
 * a UUID minted afresh per answer): what those headers cost the server apart from the rest of the route.
 * --prof runs the service and the floor under `node --cpu-prof` and writes
 * their profiles there (service.cpuprofile, floor.cpuprofile) when they stop;
 * then prints, per round, where each one's busy time went in its measured
 * window (profile-windows.ts): its socket writes, the engine, GC, the rest.
 * A slow round shows which part grew.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadedDataDir, loadWithCpu, ownHeaders, startBare, startService, type LoadWithCpu, type Running } from './http-harness';
import { evaluateWorkload, ofrepBulkWorkload, ofrepWorkload, secretsWorkload, workloadKey, writesWorkload, type HttpWorkload } from './http-workloads';
import type { CpuProfile } from './cpu-profile';
import { formatShares, windowShares } from './profile-windows';
import { median } from './stats';

const WORKLOADS: Readonly<Record<string, () => HttpWorkload | Promise<HttpWorkload>>> = {
  evaluate: evaluateWorkload, ofrep: ofrepWorkload, 'ofrep-bulk': ofrepBulkWorkload, secrets: secretsWorkload, writes: writesWorkload,
};

interface Args {
  workload: string;
  rounds: number;
  seconds: number;
  warmup: number;
  logLevel: string;
  base: string | undefined;
  prof: string | undefined;
  connections: number;
  noop: boolean;
  variants: Variant[];
  floorSpins: number[];
  floorHeaders: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { workload: 'evaluate', rounds: 3, seconds: 5, warmup: 2, logLevel: 'warn', base: undefined, prof: undefined, connections: 64, noop: true, variants: [], floorSpins: [], floorHeaders: false };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    switch (argv[i]) {
      case '--workload': args.workload = value; break;
      case '--rounds': args.rounds = Number(value); break;
      case '--seconds': args.seconds = Number(value); break;
      case '--warmup': args.warmup = Number(value); break;
      case '--log-level': args.logLevel = value; break;
      case '--base': args.base = path.resolve(value); break;
      case '--prof': args.prof = path.resolve(value); break;
      case '--connections': args.connections = Number(value); break;
      case '--variant': args.variants.push(parseVariant(value)); break;
      case '--floor-spin': args.floorSpins.push(Number(value)); break;
      case '--no-noop': args.noop = false; i--; break;
      case '--floor-headers': args.floorHeaders = true; i--; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
    i++;
  }
  return args;
}

/** Another service of this build: its environment, and node flags after `npm start`'s. */
interface Variant {
  readonly label: string;
  readonly env: Record<string, string>;
  readonly nodeFlags: string[];
}

/**
 * `label:KEY=VALUE,KEY=VALUE`: another service of this build with that environment (e.g. `info:LOG_LEVEL=info`);
 * NODE_FLAGS is not passed on but gives its node flags, space-separated (e.g. `semi16:NODE_FLAGS=--max-semi-space-size=16`).
 */
function parseVariant(text: string): Variant {
  const colon = text.indexOf(':');
  if (colon < 1) throw new Error(`--variant takes label:KEY=VALUE[,KEY=VALUE], got ${text}`);
  const env: Record<string, string> = {};
  let nodeFlags: string[] = [];
  for (const pair of text.slice(colon + 1).split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`--variant ${text}: ${pair} is not KEY=VALUE`);
    const [key, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
    if (key === 'NODE_FLAGS') nodeFlags = value.split(' ').filter(Boolean);
    else env[key] = value;
  }
  return { label: text.slice(0, colon), env, nodeFlags };
}

interface Target {
  readonly name: string;
  readonly server: Running;
  readonly url: string;
}

type Sample = Pick<LoadWithCpu, 'cpuUsPerRequest' | 'systemUsPerRequest' | 'rps' | 'window'>;

function measure(args: Args, target: Target, workload: HttpWorkload): Sample {
  const result = loadWithCpu({
    url: target.url,
    headers: { authorization: `Bearer ${workloadKey(workload)}`, 'content-type': 'application/json' },
    bodies: workload.bodies,
    connections: args.connections,
    pipelining: 1,
    warmupSeconds: args.warmup,
    seconds: args.seconds,
  }, target.server.child.pid);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const make = WORKLOADS[args.workload];
  if (make === undefined) throw new Error(`--workload ${args.workload}: one of ${Object.keys(WORKLOADS).join(', ')}`);
  const workload: HttpWorkload = await make();
  const data = loadedDataDir(workload.events);
  const baseDir = mkdtempSync(path.join(os.tmpdir(), 'rulevault-bench-base-'));
  const env = { LOG_LEVEL: args.logLevel };
  const running: Running[] = [];
  // The targets a profile is written for (--prof), by its file's name, with their rounds' samples.
  const profiled = new Map<string, { name: string; samples: Sample[] }[]>();
  try {
    const profFlags = (name: string) => (args.prof === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.prof}`, `--cpu-prof-name=${name}.cpuprofile`]);
    const service = await startService(data.dir, { env, nodeFlags: profFlags('service') });
    running.push(service);
    const sample = await fetch(service.url + workload.path, { method: 'POST', headers: { authorization: `Bearer ${workloadKey(workload)}` }, body: workload.bodies[0] });
    const answer = await sample.text();
    if (sample.status !== (workload.status ?? 200)) throw new Error(`${workload.path} answered ${sample.status}: ${answer}`);
    const floor = await startBare(answer, { mode: 'floor', nodeFlags: profFlags('floor') });
    running.push(floor);
    const targets: Target[] = [
      { name: workload.label, server: service, url: service.url + workload.path },
      { name: 'honest floor', server: floor, url: floor.url },
    ];
    if (args.floorHeaders) {
      const headers = ownHeaders(sample);
      const withHeaders = await startBare(answer, { mode: 'floor', headers });
      running.push(withHeaders);
      targets.push({ name: `honest floor + ${headers.length} headers`, server: withHeaders, url: withHeaders.url });
    }
    for (const us of args.floorSpins) {
      const spun = await startBare(answer, { mode: 'floor', spinUs: us });
      running.push(spun);
      targets.push({ name: `honest floor + ${us} µs`, server: spun, url: spun.url });
    }
    // Left out of a profile (--no-noop), where its express stacks would blur the route's.
    if (args.noop) targets.splice(1, 0, { name: 'no-op route', server: service, url: service.url + '/bench/noop' });
    // Each other service gets its own copy of the data folder: a service holds its folder's lock.
    const copies = [...(args.base === undefined ? [] : [{ label: 'base build', env: {}, nodeFlags: [], main: args.base }]), ...args.variants];
    for (const [i, other] of copies.entries()) {
      const dir = path.join(baseDir, String(i));
      cpSync(data.dir, dir, { recursive: true });
      const started = await startService(dir, { env: { ...env, ...other.env }, main: 'main' in other ? other.main : undefined, nodeFlags: other.nodeFlags });
      running.push(started);
      targets.push({ name: `${workload.label} (${other.label})`, server: started, url: started.url + workload.path });
    }
    const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]));
    for (const [file, server] of [['service', service], ['floor', floor]] as const) {
      profiled.set(file, targets.filter((t) => t.server === server).map((t) => ({ name: t.name, samples: samples.get(t.name)! })));
    }
    for (let round = 0; round < args.rounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const s = measure(args, target, workload);
        samples.get(target.name)!.push(s);
        console.log(`round ${round + 1} ${target.name}: ${s.cpuUsPerRequest.toFixed(1)} CPU µs/request (${s.systemUsPerRequest.toFixed(1)} system), ${Math.round(s.rps)} req/s`);
      }
    }
    console.log(`\n${workload.label}, -c ${args.connections}, p=1, LOG_LEVEL=${args.logLevel}, ${args.rounds} rounds of ${args.warmup} s + ${args.seconds} s, load ${os.loadavg()[0].toFixed(2)} (1 min) at end`);
    const floorCpu = median(samples.get('honest floor')!.map((s) => s.cpuUsPerRequest));
    for (const target of targets) {
      const list = samples.get(target.name)!;
      const cpu = median(list.map((s) => s.cpuUsPerRequest));
      const rps = median(list.map((s) => s.rps));
      const system = median(list.map((s) => s.systemUsPerRequest));
      console.log(`${target.name.padEnd(34)} ${cpu.toFixed(1).padStart(7)} CPU µs/request (${system.toFixed(1)} system; ${(floorCpu / cpu).toFixed(2)}x the floor's)  ${Math.round(rps).toString().padStart(6)} req/s  [${list.map((s) => s.cpuUsPerRequest.toFixed(1)).join(', ')}]`);
    }
  } finally {
    await Promise.all(running.map((r) => r.stop()));
    data.remove();
    rmSync(baseDir, { recursive: true, force: true });
  }
  // The profiles are complete once their servers have stopped.
  if (args.prof !== undefined) printProfileWindows(args.prof, profiled);
}

function printProfileWindows(dir: string, profiled: Map<string, { name: string; samples: Sample[] }[]>): void {
  console.log(`\nbusy time by round, from the --cpu-prof profiles in ${dir} (share of the main thread's busy samples in the measured window)`);
  for (const [file, targets] of profiled) {
    const profile = JSON.parse(readFileSync(path.join(dir, `${file}.cpuprofile`), 'utf8')) as CpuProfile;
    for (const { name, samples } of targets) {
      const windows = windowShares(profile, samples.map((s) => s.window));
      samples.forEach((s, round) => {
        const user = s.cpuUsPerRequest - s.systemUsPerRequest;
        console.log(`round ${round + 1} ${name}: ${s.cpuUsPerRequest.toFixed(1)} CPU µs/request (user ${user.toFixed(1)}, system ${s.systemUsPerRequest.toFixed(1)}); ${formatShares(windows[round])} of ${windows[round].busy} samples`);
      });
    }
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
