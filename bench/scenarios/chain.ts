/**
 * The hash chain's three targets (issue 19), each against its baseline in
 * the same run, on the embedded store, at 1M events (quick: 100k) of the
 * replay scenario's history:
 * - admin write: one RuleUpdated append to a linked log against the same
 *   append to an unlinked (pre-chain) log, alternated A/B; CPU time per
 *   append is the figure that carries over (wall time is the fsync);
 * - cold replay: the service started on the linked log against the unlinked
 *   one (spawn to its ready line; no snapshot), alternated; the service's
 *   CPU seconds (all its threads: the read-ahead worker included) and wall
 *   seconds. Also the offline replay (`audit replay`: readAll and fold in
 *   this process), CPU seconds;
 * - verify: events/s of `rulevault audit verify` on the store
 *   (verifySqliteChain: rows as stored, ranges on worker threads), wall and
 *   CPU (this process's, workers included), against the event-by-event
 *   `verifyChain` over `readWholeLog` (the path before it, and what an
 *   export or EventStoreDB still take);
 * and the two hash functions considered (node:crypto SHA-256, libsodium
 * BLAKE2b) on the same texts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { verifyChain } from '../../src/audit/chain-verify';
import { verifySqliteChain } from '../../src/audit/chain-verify-sqlite';
import { readWholeLog, replayLog } from '../../src/audit/log-transfer';
import { sha256Hex } from '../../src/store/chain';
import { openSqliteStore } from '../../src/store/sqlite';
import { bulkLoadSqlite } from '../../src/store/sqlite-bulk';
import { createSignatureCheck } from '../../src/vault/signing-key';
import { loadSodium } from '../../src/vault/sodium';
import { cpuSeconds, metadata, startService } from '../http-harness';
import type { CaseResult, Scenario } from '../scenario';
import { median, summarize } from '../stats';
import { history } from './replay';

const cpuMs = (work: () => void): number => {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** CPU ms of this process (every thread: process.cpuUsage counts worker threads too) and wall ms. */
async function measure(work: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const start = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await work();
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const used = process.cpuUsage(start);
  return { cpu: (used.user + used.system) / 1000, wall };
}

/** The service's cold start on the log in `dir`: every file but the log removed first (no snapshot to start from). */
async function coldStart(dir: string): Promise<{ cpu: number; wall: number }> {
  for (const name of readdirSync(dir)) if (!name.startsWith('events.db')) rmSync(path.join(dir, name), { recursive: true, force: true });
  const t0 = process.hrtime.bigint();
  const service = await startService(dir, { onReadyLine: true, readyTimeoutMs: 600_000 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = cpuSeconds(service.child.pid) ?? Number.NaN;
  await service.stop();
  return { cpu, wall };
}

const pct = (subject: number, baseline: number): number => Math.round(((subject - baseline) / baseline) * 1000) / 10;

export const scenario: Scenario = {
  name: 'chain',
  description: 'hash chain targets against their baselines: admin write CPU, cold replay (service start; offline replay) linked vs unlinked, verify events/s (store, all cores) vs event by event; SHA-256 vs BLAKE2b',
  async run({ quick }) {
    const events = quick ? 100_000 : 1_000_000;
    const writes = quick ? 50 : 300;
    const dir = mkdtempSync(path.join(tmpdir(), 'rulevault-bench-chain-'));
    try {
      const log = history(events, []);
      const linkedDir = path.join(dir, 'linked');
      const plainDir = path.join(dir, 'plain');
      const linkedPath = path.join(linkedDir, 'events.db');
      const plainPath = path.join(plainDir, 'events.db');
      const all = [...log];
      bulkLoadSqlite(linkedPath, all, 50_000, true);
      bulkLoadSqlite(plainPath, all, 50_000, false);
      all.length = 0;
      const pairs = [['linked', linkedDir, linkedPath], ['plain', plainDir, plainPath]] as const;

      // Cold replay as the service does it, alternated; the first pair warms the page cache.
      const start = { linked: { cpu: [] as number[], wall: [] as number[] }, plain: { cpu: [] as number[], wall: [] as number[] } };
      for (let round = 0; round < 4; round++) {
        for (const [name, folder] of pairs) {
          const run = await coldStart(folder);
          if (round > 0) {
            start[name].cpu.push(run.cpu);
            start[name].wall.push(run.wall);
          }
        }
      }

      // Offline replay (readAll and fold in this process), alternated.
      const replayMs: { linked: number[]; plain: number[] } = { linked: [], plain: [] };
      for (let round = 0; round < 4; round++) {
        for (const [name, , file] of pairs) {
          const store = openSqliteStore(file);
          const { cpu } = await measure(() => replayLog(store));
          await store.close();
          if (round > 0) replayMs[name].push(cpu);
        }
      }

      // Verify: the store's verify against the event-by-event one, alternated.
      const checkSignature = await createSignatureCheck();
      const store = openSqliteStore(linkedPath);
      const verify = { store: { cpu: [] as number[], wall: [] as number[] }, sequential: { cpu: [] as number[], wall: [] as number[] } };
      for (let round = 0; round < 3; round++) {
        let verified = true;
        const fast = await measure(async () => {
          verified = (await verifySqliteChain(linkedPath, store, { publicKeys: [], checkSignature })).verified;
        });
        if (!verified) throw new Error('bench log does not verify');
        verify.store.cpu.push(fast.cpu);
        verify.store.wall.push(fast.wall);
        const slow = await measure(() => verifyChain(readWholeLog(store), { publicKeys: [], checkSignature }));
        verify.sequential.cpu.push(slow.cpu);
        verify.sequential.wall.push(slow.wall);
      }
      const texts: string[] = [];
      for await (const event of readWholeLog(store)) {
        texts.push(JSON.stringify(event.data));
        if (texts.length === 100_000) break;
      }
      await store.close();

      // Admin write: one append at a time, alternating the linked and the unlinked log.
      const linked = openSqliteStore(linkedPath);
      const plain = openSqliteStore(plainPath);
      const wall: { linked: number[]; plain: number[] } = { linked: [], plain: [] };
      const cpu: { linked: number[]; plain: number[] } = { linked: [], plain: [] };
      for (let i = 0; i < writes; i++) {
        for (const [name, target] of [['linked', linked], ['plain', plain]] as const) {
          const event = { type: 'RuleUpdated', data: { id: 'bench', changes: { name: `rule v${i}` } }, metadata: metadata() };
          const start = process.cpuUsage();
          const t0 = process.hrtime.bigint();
          await target.append(`rule-bench-${name}`, [event], 'any');
          wall[name].push(Number(process.hrtime.bigint() - t0));
          const used = process.cpuUsage(start);
          cpu[name].push(used.user + used.system);
        }
      }
      await linked.close();
      await plain.close();

      // The two hashes on the texts a link hashes.
      const sodium = await loadSodium();
      const hashMs = { sha256: [] as number[], blake2b: [] as number[] };
      for (let round = 0; round < 3; round++) {
        hashMs.sha256.push(cpuMs(() => texts.forEach((text) => sha256Hex(text))));
        hashMs.blake2b.push(cpuMs(() => texts.forEach((text) => sodium.crypto_generichash(32, text, null, 'hex'))));
      }

      const cpuLinked = median(cpu.linked);
      const cpuPlain = median(cpu.plain);
      const rate = (ms: number[]): number => Math.round(events / (median(ms) / 1000));
      const results: CaseResult[] = [
        {
          case: 'admin write (append of one RuleUpdated)',
          subject: summarize(wall.linked),
          baseline: { name: 'unlinked log', ...summarize(wall.plain) },
          figures: { cpu_us_linked: cpuLinked, cpu_us_unlinked: cpuPlain, cpu_added_pct: pct(cpuLinked, cpuPlain), target_pct: 10, writes },
        },
        {
          case: `cold replay: service start on ${events} events`,
          figures: {
            cpu_s_linked: median(start.linked.cpu), cpu_s_unlinked: median(start.plain.cpu), cpu_added_pct: pct(median(start.linked.cpu), median(start.plain.cpu)),
            wall_s_linked: median(start.linked.wall), wall_s_unlinked: median(start.plain.wall), wall_added_pct: pct(median(start.linked.wall), median(start.plain.wall)),
            target_pct: 10,
          },
        },
        {
          case: `offline replay (audit replay) of ${events} events`,
          figures: { cpu_ms_linked: Math.round(median(replayMs.linked)), cpu_ms_unlinked: Math.round(median(replayMs.plain)), added_pct: pct(median(replayMs.linked), median(replayMs.plain)) },
        },
        {
          case: `verify ${events} events`,
          figures: {
            store_events_per_s_wall: rate(verify.store.wall),
            store_events_per_cpu_s: rate(verify.store.cpu),
            sequential_events_per_s_wall: rate(verify.sequential.wall),
            sequential_events_per_cpu_s: rate(verify.sequential.cpu),
            target_events_per_s: 500_000,
          },
        },
        {
          case: `hash ${texts.length} event data texts`,
          figures: {
            sha256_per_s: Math.round(texts.length / (median(hashMs.sha256) / 1000)),
            blake2b_per_s: Math.round(texts.length / (median(hashMs.blake2b) / 1000)),
          },
        },
      ];
      return results;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
