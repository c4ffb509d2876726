/**
 * The admin API's chain verification (src/audit/chain-audit.ts): what the
 * paused, continued session costs beside a plain `verifyChain` over the store,
 * what an incremental run of newly appended events costs, and how long the
 * event loop waits during a full run (the service answers evaluate meanwhile).
 * CPU time, not wall, for costs (BENCH.md); the loop's delay is wall time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createChainAudit, type ChainAudit } from '../../src/audit/chain-audit';
import { verifyChain } from '../../src/audit/chain-verify';
import { readWholeLog } from '../../src/audit/log-transfer';
import { openSqliteStore } from '../../src/store/sqlite';
import { bulkLoadSqlite } from '../../src/store/sqlite-bulk';
import { createSignatureCheck } from '../../src/vault/signing-key';
import { metadata } from '../http-harness';
import type { CaseResult, Scenario } from '../scenario';
import { median } from '../stats';
import { history } from './replay';

async function cpuMs(work: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Starts a run and waits for its end, polling as the console does (without the wire). */
async function runToEnd(audit: ChainAudit, mode: 'full' | 'incremental'): Promise<number> {
  await audit.verify(mode);
  for (;;) {
    const status = await audit.status();
    if (!status.running) {
      if (status.report?.verified !== true) throw new Error('bench log does not verify');
      return status.run!.checked_events;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const scenario: Scenario = {
  name: 'chain-audit',
  description: 'chain verification on the admin API: a full run against plain verifyChain, an incremental run, the event loop\'s delay during a run',
  async run({ quick }) {
    const events = quick ? 20_000 : 200_000;
    const appended = 1000;
    const dir = mkdtempSync(path.join(tmpdir(), 'rulevault-bench-chain-audit-'));
    try {
      const file = path.join(dir, 'events.db');
      bulkLoadSqlite(file, [...history(events, [])], 50_000, true);
      const store = openSqliteStore(file);
      const check = await createSignatureCheck();
      const audit = createChainAudit({ store, signingKey: { envValue: undefined, dataDir: dir }, now: () => new Date() });

      // Alternated; the first pair warms the page cache and the JIT.
      const plainMs: number[] = [];
      const fullMs: number[] = [];
      const loopMaxMs: number[] = [];
      const loopP99Ms: number[] = [];
      for (let round = 0; round < 4; round++) {
        const plain = await cpuMs(() => verifyChain(readWholeLog(store), { publicKeys: [], checkSignature: check }));
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        const full = await cpuMs(() => runToEnd(audit, 'full'));
        loop.disable();
        if (round === 0) continue;
        plainMs.push(plain);
        fullMs.push(full);
        loopMaxMs.push(loop.max / 1e6);
        loopP99Ms.push(loop.percentile(99) / 1e6);
      }

      const incrementalMs: number[] = [];
      for (let round = 0; round < 3; round++) {
        const batch = Array.from({ length: appended }, (_, i) => ({
          type: 'RuleUpdated', data: { id: 'bench', changes: { name: `rule v${round}.${i}` } }, metadata: metadata(),
        }));
        await store.append(`rule-bench-${round}`, batch, 'any');
        let read = 0;
        incrementalMs.push(await cpuMs(async () => {
          read = await runToEnd(audit, 'incremental');
        }));
        if (read !== appended) throw new Error(`the incremental run read ${read} events, not ${appended}`);
      }
      await store.close();

      const perSecond = (ms: number[], count: number) => Math.round(count / (median(ms) / 1000));
      const results: CaseResult[] = [
        {
          case: `full run over ${events} events`,
          figures: {
            events_per_s: perSecond(fullMs, events),
            plain_verify_events_per_s: perSecond(plainMs, events),
            cpu_added_pct: Math.round(((median(fullMs) - median(plainMs)) / median(plainMs)) * 1000) / 10,
            loop_delay_max_ms: Math.round(median(loopMaxMs) * 10) / 10,
            loop_delay_p99_ms: Math.round(median(loopP99Ms) * 10) / 10,
          },
        },
        {
          case: `incremental run of ${appended} appended events`,
          figures: { cpu_ms: Math.round(median(incrementalMs) * 10) / 10, log_events: events },
        },
      ];
      return results;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
