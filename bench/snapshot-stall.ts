/**
 * The stall a periodic snapshot causes (bench: million, the engine image
 * written with every snapshot): starts a build on a copy of a data folder
 * with a short snapshot interval, writes one rule (so the next tick has
 * something to save), and polls /healthz back to back until the snapshot's
 * log line and a second after; the longest gap between two answers is the
 * event loop's longest block. Prints the 'snapshot written' line (its ms and
 * the image's CPU ms) and the gaps. A/B as start-from-snapshot.ts
 * (folder-ab.ts: builds alternate run by run).
 *
 *   node dist/bench/snapshot-stall.js <data folder> [--base <another build's dist/src/main.js> [--base-folder <its folder>]] [--runs 2]
 */
import { createInterface } from 'node:readline';
import { alternate, onCopy } from './folder-ab';
import { ADMIN_KEY, startService } from './http-harness';

const INTERVAL_MS = 3_000;
const AFTER_MS = 1_000;
const LIMIT_MS = 120_000;

async function stallOnce(folder: string, main: string | undefined): Promise<Record<string, unknown>> {
  return onCopy(folder, async (copy) => {
    const service = await startService(copy, {
      onReadyLine: true, readyTimeoutMs: 15 * 60_000, main, env: { RULEVAULT_SNAPSHOT_INTERVAL_MS: String(INTERVAL_MS) },
    });
    let written: Record<string, unknown> | undefined;
    createInterface({ input: service.child.stdout! }).on('line', (line) => {
      // The periodic one: the shutdown's follows at stop.
      if (written === undefined && line.includes('"snapshot written"')) written = JSON.parse(line) as Record<string, unknown>;
    });
    const rule = { name: 'stall', condition_groups: [{ conditions: [{ field: 'stall', operator: 'equals', value: 'yes', data_type: 'string' }] }] };
    const created = await fetch(`${service.url}/api/rule-engine/rules`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(rule),
    });
    if (created.status !== 201) throw new Error(`the rule write answered ${created.status}`);
    const gaps: number[] = [];
    let last = performance.now();
    const started = last;
    let writtenAt: number | undefined;
    while (performance.now() - started < LIMIT_MS) {
      await fetch(`${service.url}/healthz`).then((r) => r.arrayBuffer());
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      if (written !== undefined) writtenAt ??= now;
      if (writtenAt !== undefined && now - writtenAt > AFTER_MS) break;
    }
    await service.stop();
    gaps.sort((a, b) => b - a);
    return {
      build: main ?? 'this', snapshot: written ?? null,
      longest_gaps_ms: gaps.slice(0, 3).map((g) => Math.round(g)), polls: gaps.length,
    };
  });
}

void alternate('snapshot-stall.js', 2, stallOnce);
