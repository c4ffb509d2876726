/**
 * The node:http baselines, run as their own process; each prints its port
 * once listening.
 *
 *   node dist/bench/bare-server.js '<answer json>'          bare: reads the body, answers the fixed bytes
 *   node dist/bench/bare-server.js '<answer json>' --floor  honest floor: reads the body, JSON.parses it,
 *                                                           and JSON.stringifies an answer of the same size
 *   node dist/bench/bare-server.js '<answer json>' --floor --spin-us 5
 *                                                           the floor plus a 5 µs busy loop per request: what a
 *                                                           server costing that much more gets (cpu-per-request --floor-spin)
 *   node dist/bench/bare-server.js '<answer json>' --floor --headers '[["X-Request-Id","<uuid>"]]'
 *                                                           the floor sending these headers too, a UUID value
 *                                                           minted afresh per answer: what the subject's own
 *                                                           headers cost (http-comparison.ts)
 *
 * The bare server is not an honest ceiling for a JSON API: it parses nothing
 * and serializes nothing. The floor does the work any JSON endpoint must do
 * (no rules, no auth, no log line, no metrics), so "x the floor" says what
 * our own code costs per request (issue 18).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';

const answer = process.argv[2] ?? '{}';
const options = process.argv.slice(3);
const optionValue = (name: string): string | undefined => {
  const at = options.indexOf(name);
  return at === -1 ? undefined : options[at + 1];
};
const floor = options.includes('--floor');
const spinNs = BigInt(Math.round(Number(optionValue('--spin-us') ?? 0) * 1000));
// Parsed once; stringified afresh per request, as a real endpoint would.
const answerValue: unknown = JSON.parse(answer);
const headers = { 'content-type': 'application/json; charset=utf-8' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The subject's other headers: a UUID (a request or decision id) is minted afresh per answer, as the subject does.
const extra = (JSON.parse(optionValue('--headers') ?? '[]') as [string, string][]).map(([name, value]) => ({ name, value, mint: UUID.test(value) }));

/** The answer's headers: the content type and length, and the extra ones. */
function answerHeaders(length: number): Record<string, string | number> {
  const out: Record<string, string | number> = { ...headers, 'content-length': length };
  for (const { name, value, mint } of extra) out[name] = mint ? randomUUID() : value;
  return out;
}

const server = http.createServer((req, res) => {
  if (!floor) {
    req.on('data', () => undefined);
    req.on('end', () => {
      res.writeHead(200, answerHeaders(Buffer.byteLength(answer)));
      res.end(answer);
    });
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let status = 200;
    let body: string;
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (spinNs > 0n) spin(spinNs);
      body = JSON.stringify(answerValue);
    } catch {
      status = 400;
      body = '{"err":"bad JSON"}';
    }
    res.writeHead(status, answerHeaders(Buffer.byteLength(body)));
    res.end(body);
  });
});
function spin(ns: bigint): void {
  const until = process.hrtime.bigint() + ns;
  while (process.hrtime.bigint() < until);
}

// An exit on SIGTERM (not death by the signal) lets `node --cpu-prof` write its profile (bench/cpu-per-request.ts --prof).
process.once('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
