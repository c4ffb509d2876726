/**
 * Starts from one data folder's snapshot, A/B (bench: million, the engine
 * image): each run copies the folder (its snapshot, image and log), starts
 * the service on the copy, and reads, at its `ready` log line, the seconds
 * from spawn, its CPU seconds and peak RSS (from /proc), then its RSS 3 s
 * later; the builds alternate run by run, so both see the same load.
 *
 *   node dist/bench/start-from-snapshot.js <data folder> [--base <another build's dist/src/main.js> [--base-folder <its folder>]] [--runs 3]
 *
 * The folder is one a service stopped on (SIGTERM writes the snapshot and
 * its engine image): `--only million` removes its own, so make one by
 * starting and stopping this build on a bulk-loaded folder. Prints one JSON
 * line per run. Copies are removed; the folder itself is never started on.
 */
import { alternate, onCopy } from './folder-ab';
import { cpuSeconds, peakRssMb, rssMb, startService } from './http-harness';

const READY_TIMEOUT_MS = 15 * 60_000;

async function startOnce(folder: string, main: string | undefined): Promise<Record<string, unknown>> {
  return onCopy(folder, async (copy) => {
    const started = process.hrtime.bigint();
    const service = await startService(copy, { onReadyLine: true, readyTimeoutMs: READY_TIMEOUT_MS, main });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const figures = { cpu_s: cpuSeconds(service.child.pid), peak_rss_mb: peakRssMb(service.child.pid) };
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = rssMb(service.child.pid);
    const ready = JSON.parse(service.readyLog ?? '{}') as { from_snapshot?: string | null };
    await service.stop();
    return { build: main ?? 'this', seconds, ...figures, rss_3s_after_ready_mb: after, from_snapshot: ready.from_snapshot ?? null };
  });
}

void alternate('start-from-snapshot.js', 3, startOnce);
