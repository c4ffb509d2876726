/**
 * A data folder for the folder benches (start-from-snapshot.ts,
 * snapshot-stall.ts, audit-stall.ts): the bench key and `rules` rules of the
 * standard workload's scoped shape bulk-loaded into a fresh folder, then this
 * build started on it and stopped, so the folder holds the snapshot and
 * engine image a stopping service writes. Prints the folder (under the
 * system's temp dir; remove it when done). 1M rules: ~1.5 min and ~8 GB.
 *
 *   node --max-old-space-size=8000 dist/bench/make-folder.js <rules>
 */
import { benchKeyEvent, loadedDataDir, ruleEvents, startService } from './http-harness';
import { generateRules } from './workload';

async function main(): Promise<void> {
  const count = Number(process.argv[2]);
  if (!Number.isSafeInteger(count) || count < 1) {
    process.stderr.write('usage: node dist/bench/make-folder.js <rules, a whole number>\n');
    process.exit(2);
  }
  const bodies = generateRules({ seed: 1, count, shape: 'scoped' });
  const data = loadedDataDir((function* () {
    yield benchKeyEvent();
    yield* ruleEvents(bodies);
  })());
  bodies.length = 0;
  const service = await startService(data.dir, { onReadyLine: true, readyTimeoutMs: 15 * 60_000 });
  await service.stop();
  process.stdout.write(`${data.dir}\n`);
}

void main();
