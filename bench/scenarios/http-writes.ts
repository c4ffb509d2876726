/**
 * Acknowledged admin writes over HTTP: POST /api/rule-engine/rules (a new
 * standard-workload rule per request) at -c 32 on the embedded store. Every
 * 201 is a rule committed (synchronous=FULL) and applied to the read model
 * before it was answered; the store's group commit shares one fsync among
 * the writes that arrive together (issue 18 item 4).
 */
import { ADMIN_KEY, benchKeyEvent, load, loadedDataDir, startService, timing } from '../http-harness';
import type { Scenario } from '../scenario';
import { generateRules } from '../workload';

export const scenario: Scenario = {
  name: 'http-writes',
  description:
    'rule creations over HTTP on the embedded SQLite store (synchronous=FULL), autocannon -c 32, p=1 from a separate process ' +
    '(same 2 cores as the server), 3 s warm-up + 10 s (quick: 1 + 3); req/s counts acknowledged (201) writes only.',
  async run({ quick }) {
    const data = loadedDataDir([benchKeyEvent()]);
    const service = await startService(data.dir);
    try {
      const bodies = generateRules({ seed: 3, count: 500 }).map((rule) => JSON.stringify(rule));
      const result = load({
        url: `${service.url}/api/rule-engine/rules`,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        bodies,
        connections: 32,
        pipelining: 1,
        warmupSeconds: quick ? 1 : 3,
        seconds: quick ? 3 : 10,
      });
      const acknowledged = result.rps * (result.requests > 0 ? (result.requests - result.non2xx) / result.requests : 0);
      return [
        {
          case: 'rule creations, -c 32',
          subject: { ...timing(result), ops_per_s: acknowledged },
          figures: { non2xx: result.non2xx, errors: result.errors },
        },
      ];
    } finally {
      await service.stop();
      data.remove();
    }
  },
};
