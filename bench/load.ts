/**
 * The load generator, run as its own process (docs/bench-method.md: the client must not
 * share the server's event loop): autocannon against one URL, cycling
 * through the given bodies, a warm-up then the measured window. Prints one
 * JSON line: { rps, p50_ms, p99_ms, requests, non2xx, errors }.
 *
 *   node dist/bench/load.js < spec.json
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly bodies: readonly string[];
  readonly connections: number;
  readonly pipelining: number;
  readonly warmupSeconds: number;
  readonly seconds: number;
}

export interface LoadResult {
  readonly rps: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
}

function run(spec: LoadSpec, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: spec.url,
    method: 'POST',
    headers: spec.headers,
    connections: spec.connections,
    pipelining: spec.pipelining,
    duration: seconds,
    requests: spec.bodies.map((body) => ({ method: 'POST', body })),
  });
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const spec = JSON.parse(Buffer.concat(chunks).toString('utf8')) as LoadSpec;
  if (spec.warmupSeconds > 0) await run(spec, spec.warmupSeconds);
  const result = await run(spec, spec.seconds);
  const out: LoadResult = {
    rps: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

if (require.main === module) void main();
