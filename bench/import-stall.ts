/**
 * What an import costs the callers of evaluate meanwhile (docs/api.md#import,
 * "While it runs"): a service holding the 10k-rule evaluate workload gets
 * one `POST /api/import` of N standard-workload rules (NDJSON, or with
 * `--array` one JSON array) while this
 * process sends evaluates one at a time, back to back. Prints, per run, the
 * seconds until the import answered, the evaluates answered meanwhile, and
 * the longest times one evaluate took (the event loop's longest holds);
 * this build and `--base` alternate run by run on fresh data folders.
 *
 *   node dist/bench/import-stall.js [--rules 100000] [--runs 2] [--array] [--base <another build's dist/src/main.js>] [--prof <dir>]
 *
 * `--prof` starts the service with --cpu-prof into that folder.
 */
import { takeOption } from './args';
import { ADMIN_KEY, BENCH_KEY, loadedDataDir, startService } from './http-harness';
import { evaluateWorkload } from './http-workloads';
import { generateRules } from './workload';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: node dist/bench/import-stall.js [--rules N] [--runs N] [--array] [--base <dist/src/main.js>] [--prof <dir>]\n`);
  process.exit(2);
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

async function stallOnce(body: string, contentType: string, main: string | undefined, prof: string | undefined): Promise<Record<string, unknown>> {
  const workload = evaluateWorkload();
  const data = loadedDataDir(workload.events);
  const service = await startService(data.dir, { main, nodeFlags: prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${prof}`] });
  try {
    const evaluate = async (i: number): Promise<void> => {
      const answer = await fetch(`${service.url}${workload.path}`, {
        method: 'POST', headers: { authorization: `Bearer ${BENCH_KEY}` }, body: workload.bodies[i % workload.bodies.length],
      });
      if (answer.status !== 200) throw new Error(`an evaluate answered ${answer.status}`);
      await answer.arrayBuffer();
    };
    for (let i = 0; i < 500; i++) await evaluate(i);
    let done = false;
    const started = performance.now();
    const imported = fetch(`${service.url}/api/import`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': contentType }, body,
    }).then(async (answer) => {
      const text = await answer.text();
      if (answer.status !== 201) throw new Error(`import answered ${answer.status}: ${text.slice(0, 300)}`);
      return performance.now() - started;
    }).finally(() => {
      done = true;
    });
    const times: number[] = [];
    for (let i = 0; !done; i++) {
      const sent = performance.now();
      await evaluate(i);
      times.push(performance.now() - sent);
    }
    const importMs = await imported;
    times.sort((a, b) => a - b);
    return {
      build: main ?? 'this',
      import_s: Number((importMs / 1000).toFixed(2)),
      evaluates: times.length,
      evaluate_p50_ms: Number(percentile(times, 0.5).toFixed(1)),
      evaluate_p99_ms: Number(percentile(times, 0.99).toFixed(1)),
      longest_ms: times.slice(-3).reverse().map((t) => Math.round(t)),
    };
  } finally {
    await service.stop();
    data.remove();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const base = takeOption(args, '--base');
  const prof = takeOption(args, '--prof');
  const rules = Number(takeOption(args, '--rules') ?? '100000');
  const runs = Number(takeOption(args, '--runs') ?? '2');
  const array = args.includes('--array');
  if (array) args.splice(args.indexOf('--array'), 1);
  if (!Number.isInteger(rules) || rules < 1) usage(`--rules must be a whole number of at least 1`);
  if (!Number.isInteger(runs) || runs < 1) usage(`--runs must be a whole number of at least 1`);
  if (args.length > 0) usage(`unknown argument ${args[0]}`);
  const items = generateRules({ seed: 5, count: rules }).map((rule) => JSON.stringify({ kind: 'rule', ...rule }));
  const body = array ? `[${items.join(',\n')}]` : items.join('\n');
  const contentType = array ? 'application/json' : 'application/x-ndjson';
  for (let run = 0; run < runs; run++) {
    const builds = base === undefined ? [undefined] : run % 2 === 0 ? [undefined, base] : [base, undefined];
    for (const build of builds) process.stdout.write(`${JSON.stringify(await stallOnce(body, contentType, build, prof))}\n`);
  }
}

void main();
