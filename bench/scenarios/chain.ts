/**
 * The hash chain's costs (issue 19), in one process on the embedded store:
 * - admin write: one RuleUpdated append to a linked log against the same
 *   append to an unlinked (pre-chain) log, alternated A/B; CPU time per
 *   append is the figure that carries over (wall time is the fsync);
 * - cold replay: the whole log of `events` (replay.ts's history) read and
 *   folded, linked against unlinked, alternated; CPU seconds;
 * - verify: events/s of `verifyChain` over the store (reading included) and
 *   over events already in memory (the hashing alone), and the two hash
 *   functions considered (node:crypto SHA-256, libsodium BLAKE2b) on the
 *   same texts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { verifyChain, type ChainRecord } from '../../src/audit/chain-verify';
import { readWholeLog, replayLog } from '../../src/audit/log-transfer';
import { sha256Hex } from '../../src/store/chain';
import { openSqliteStore } from '../../src/store/sqlite';
import { bulkLoadSqlite } from '../../src/store/sqlite-bulk';
import type { RecordedEvent } from '../../src/store/port';
import { createSignatureCheck } from '../../src/vault/signing-key';
import { loadSodium } from '../../src/vault/sodium';
import { metadata } from '../http-harness';
import type { CaseResult, Scenario } from '../scenario';
import { median, summarize } from '../stats';
import { history } from './replay';

const cpuMs = (work: () => void): number => {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

async function cpuMsAsync(work: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export const scenario: Scenario = {
  name: 'chain',
  description: 'hash chain: admin write and cold replay with and without links, verify events/s, SHA-256 vs BLAKE2b',
  async run({ quick }) {
    const events = quick ? 20_000 : 200_000;
    const writes = quick ? 50 : 300;
    const dir = mkdtempSync(path.join(tmpdir(), 'rulevault-bench-chain-'));
    try {
      const log = [...history(events, [])];
      const linkedPath = path.join(dir, 'linked.db');
      const plainPath = path.join(dir, 'plain.db');
      bulkLoadSqlite(linkedPath, log, 50_000, true);
      bulkLoadSqlite(plainPath, log, 50_000, false);

      // Cold replay, alternated; the first pair warms the page cache and the JIT.
      const replayMs: { linked: number[]; plain: number[] } = { linked: [], plain: [] };
      for (let round = 0; round < 4; round++) {
        for (const [name, file] of [['linked', linkedPath], ['plain', plainPath]] as const) {
          const store = openSqliteStore(file);
          const ms = await cpuMsAsync(() => replayLog(store));
          await store.close();
          if (round > 0) replayMs[name].push(ms);
        }
      }

      // Verify over the store (reading and parsing included), and over events in memory.
      const check = await createSignatureCheck();
      const store = openSqliteStore(linkedPath);
      const inMemory: RecordedEvent[] = [];
      for await (const event of readWholeLog(store)) inMemory.push(event);
      const storeMs: number[] = [];
      const memoryMs: number[] = [];
      for (let round = 0; round < 3; round++) {
        // CPU time, not wall: the machine is shared (BENCH.md).
        let verified = true;
        storeMs.push(await cpuMsAsync(async () => {
          verified = (await verifyChain(readWholeLog(store), { publicKeys: [], checkSignature: check })).verified;
        }));
        if (!verified) throw new Error('bench log does not verify');
        memoryMs.push(await cpuMsAsync(() => verifyChain(iterate(inMemory), { publicKeys: [], checkSignature: check })));
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
      const texts = inMemory.slice(0, 100_000).map((event) => JSON.stringify(event.data));
      const sodium = await loadSodium();
      const hashMs = { sha256: [] as number[], blake2b: [] as number[] };
      for (let round = 0; round < 3; round++) {
        hashMs.sha256.push(cpuMs(() => texts.forEach((text) => sha256Hex(text))));
        hashMs.blake2b.push(cpuMs(() => texts.forEach((text) => sodium.crypto_generichash(32, text, null, 'hex'))));
      }

      const replayLinked = median(replayMs.linked);
      const replayPlain = median(replayMs.plain);
      const cpuLinked = median(cpu.linked);
      const cpuPlain = median(cpu.plain);
      const results: CaseResult[] = [
        {
          case: 'admin write (append of one RuleUpdated)',
          subject: summarize(wall.linked),
          baseline: { name: 'unlinked log', ...summarize(wall.plain) },
          figures: { cpu_us_linked: cpuLinked, cpu_us_unlinked: cpuPlain, cpu_added_pct: Math.round(((cpuLinked - cpuPlain) / cpuPlain) * 1000) / 10, writes },
        },
        {
          case: `cold replay of ${events} events`,
          figures: { cpu_ms_linked: Math.round(replayLinked), cpu_ms_unlinked: Math.round(replayPlain), added_pct: Math.round(((replayLinked - replayPlain) / replayPlain) * 1000) / 10 },
        },
        {
          case: `verify ${events} events`,
          figures: {
            store_events_per_s: Math.round(events / (median(storeMs) / 1000)),
            in_memory_events_per_s: Math.round(events / (median(memoryMs) / 1000)),
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

async function* iterate(events: readonly ChainRecord[]): AsyncGenerator<ChainRecord> {
  yield* events;
}

