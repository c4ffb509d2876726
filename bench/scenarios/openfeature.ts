/**
 * OpenFeature (issue 66, item 5) at the standard 10k rules, the first 100
 * of them flags (bench/http-workloads.ts flagEvents):
 * - a bulk OFREP evaluation (all 100 flags per answer) over HTTP, against
 *   evaluate over HTTP on the same service and contexts (one answer naming
 *   every matching rule), autocannon -c 64 in its own process, the two
 *   alternating by run;
 * - RuleVaultProvider's evaluation through the OpenFeature SDK, in-process
 *   over the change stream, against the bare engine on the same fields: the
 *   provider's overhead in µs (p50 difference), and the provider's own
 *   resolve call without the SDK around it.
 * The single-flag route's CPU per answer against the floor is
 * `node dist/bench/cpu-per-request.js --workload ofrep` (alternating rounds).
 */
import { OpenFeature } from '@openfeature/server-sdk';
import { RuleVaultProvider } from '../../src/client/openfeature';
import { createEngine } from '../../src/engine';
import { BENCH_KEY, load, loadedDataDir, startService, timing } from '../http-harness';
import { FLAG_RULES, flagContexts, flagEvents } from '../http-workloads';
import type { CaseResult, Scenario } from '../scenario';
import { summarize, timeEach } from '../stats';
import { generateRequests, generateRules, toDefinitions } from '../workload';

const CONTEXTS = 500;

export const scenario: Scenario = {
  name: 'openfeature',
  description:
    `OFREP and the Node provider at 10k rules, ${FLAG_RULES} of them flags: bulk evaluation (every flag per answer) vs evaluate over ` +
    'HTTP (autocannon -c 64, p=1, own process; p50_ratio = evaluate p50 / bulk p50); the provider through the OpenFeature SDK ' +
    'and its resolve call alone vs the in-process engine (overhead_us = p50 difference).',
  async run({ quick, run = 0 }) {
    const data = loadedDataDir(flagEvents());
    const service = await startService(data.dir, { env: { RULEVAULT_STREAM_HEARTBEAT_MS: '15000' } });
    const cases: CaseResult[] = [];
    try {
      // First: its stream is then the first connection to the service (a fetch's kept-alive one could be closed under it).
      cases.push(await providerCase(service.url, quick));
      const bodies = flagContexts(CONTEXTS);
      const sample = await fetch(`${service.url}/ofrep/v1/evaluate/flags`, { method: 'POST', headers: { authorization: `Bearer ${BENCH_KEY}` }, body: bodies[0] });
      const text = await sample.text();
      if (sample.status !== 200) throw new Error(`bulk OFREP answered ${sample.status}: ${text}`);
      const flags = (JSON.parse(text) as { flags: unknown[] }).flags.length;
      const headers = { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' };
      const evaluateBodies = generateRequests({ seed: 2, count: CONTEXTS }).map((fields) => JSON.stringify({ entity_type: 'context', fields }));
      const spec = (path: string, asked: readonly string[]) => ({
        url: service.url + path, headers, bodies: asked, connections: 64, pipelining: 1, warmupSeconds: quick ? 1 : 3, seconds: quick ? 3 : 10,
      });
      // Alternated by run, so the machine's drift within a run falls on both.
      const measured = run % 2 === 0
        ? { bulk: load(spec('/ofrep/v1/evaluate/flags', bodies)), evaluate: load(spec('/api/rule-engine/evaluate', evaluateBodies)) }
        : (() => {
          const evaluate = load(spec('/api/rule-engine/evaluate', evaluateBodies));
          return { bulk: load(spec('/ofrep/v1/evaluate/flags', bodies)), evaluate };
        })();
      if (measured.bulk.non2xx > 0 || measured.evaluate.non2xx > 0) throw new Error(`non-2xx answers: bulk ${measured.bulk.non2xx}, evaluate ${measured.evaluate.non2xx}`);
      const bulk = timing(measured.bulk);
      const evaluate = timing(measured.evaluate);
      cases.push({
        case: `OFREP bulk, ${FLAG_RULES} flags of 10k rules, vs evaluate (c=64, p=1)`,
        subject: bulk,
        baseline: { name: 'HTTP evaluate', ...evaluate },
        figures: { flags_per_answer: flags, answer_bytes: Buffer.byteLength(text), p50_ratio: evaluate.p50_us / bulk.p50_us },
      });
    } finally {
      await service.stop();
      data.remove();
    }
    return cases;
  },
};

/** The provider's evaluation (SDK and alone) against the bare engine, on the same contexts. */
async function providerCase(url: string, quick: boolean): Promise<CaseResult> {
  const provider = new RuleVaultProvider({ url, apiKey: BENCH_KEY });
  await OpenFeature.setProviderAndWait(provider);
  const client = OpenFeature.getClient();
  try {
    const requests = generateRequests({ seed: 2, count: CONTEXTS });
    const contexts = requests.map((fields, i) => ({ targetingKey: `user-${i}`, ...fields }));
    const engine = createEngine();
    for (const definition of toDefinitions(generateRules({ seed: 1, count: 10_000 }))) engine.upsert(definition);
    const samples = quick ? 10_000 : 30_000;
    const sdk = async () => {
      const times: number[] = []; // ns, as summarize takes them
      for (let i = 0; i < samples; i++) {
        const started = process.hrtime.bigint();
        await client.getBooleanDetails('flag-7', false, contexts[i % CONTEXTS]!);
        times.push(Number(process.hrtime.bigint() - started));
      }
      return times;
    };
    await sdk();
    const through = summarize(await sdk());
    const alone = summarize(timeEach(samples, (i) => provider.resolveBooleanEvaluation('flag-7', false, contexts[i % CONTEXTS]!)));
    const bare = summarize(timeEach(samples, (i) => engine.evaluate(requests[i % CONTEXTS]!)));
    return {
      case: 'provider evaluation vs bare engine (10k rules, in-process)',
      subject: through,
      baseline: { name: 'in-process engine', ...bare },
      figures: {
        provider_alone_p50_us: alone.p50_us,
        overhead_us: through.p50_us - bare.p50_us,
        provider_alone_overhead_us: alone.p50_us - bare.p50_us,
      },
    };
  } finally {
    await OpenFeature.close();
  }
}
