import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../src/store/port';
import { openSqliteStore } from '../../src/store/sqlite';
import { BATCH_STREAMS, loopPayload } from './fixtures/store-child';

const child = join(__dirname, 'fixtures', 'store-child.js');

/**
 * Runs a loop of the child (`append-loop`: single appends; `batch-loop`:
 * batches on the store's worker) in a child process, kills it with SIGKILL
 * once it has acknowledged `acks` writes, and returns every acknowledged
 * (last) position with the payload number it carried.
 */
function appendUntilKilled(path: string, acks: number, mode = 'append-loop', ...args: string[]): Promise<Map<bigint, number>> {
  return new Promise((resolve, reject) => {
    const acknowledged = new Map<bigint, number>();
    const proc = spawn(process.execPath, [child, mode, path, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      // A kill can cut the last line short; only whole lines count as acknowledged.
      pending = lines.pop()!;
      for (const line of lines) {
        const [n, position] = line.split(' ');
        acknowledged.set(BigInt(position!), Number(n));
      }
      if (acknowledged.size >= acks && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    });
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the child ended with code ${code} before it was killed`));
      else resolve(acknowledged);
    });
  });
}

async function readEverything(path: string): Promise<RecordedEvent[]> {
  const store = openSqliteStore(path);
  try {
    const events: RecordedEvent[] = [];
    for (let page = await store.readAll(); page.length > 0; page = await store.readAll({ after: page[page.length - 1]!.position })) {
      events.push(...page);
    }
    return events;
  } finally {
    await store.close();
  }
}

t.test('kill -9 during appends loses no acknowledged event', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rulevault-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const acknowledged = new Map<bigint, number>();

  // Several rounds on one file: recovery must also leave it fit for more writes.
  for (let round = 0; round < 3; round++) {
    for (const [position, n] of await appendUntilKilled(path, 300)) acknowledged.set(position, n);
    const events = await readEverything(path);
    const byPosition = new Map(events.map((e) => [e.position, e]));

    const missing = [...acknowledged.keys()].filter((position) => !byPosition.has(position));
    t.same(missing, [], `round ${round}: every one of ${acknowledged.size} acknowledged events is present`);
    const damaged = [...acknowledged].filter(([position, n]) => {
      const e = byPosition.get(position);
      return e === undefined || e.stream !== `crash-${n % 10}` || e.type !== 'Appended' || JSON.stringify(e.data) !== JSON.stringify(loopPayload(n));
    });
    t.same(damaged, [], `round ${round}: every acknowledged event is intact`);
    t.ok(events.length <= acknowledged.size + round + 1, `round ${round}: at most one unacknowledged append per kill was committed`);

    const revisions = new Map<string, bigint[]>();
    for (const e of events) revisions.set(e.stream, [...(revisions.get(e.stream) ?? []), e.revision]);
    const gapped = [...revisions].filter(([, list]) => list.some((revision, i) => revision !== BigInt(i)));
    t.same(gapped, [], `round ${round}: every stream's revisions run 0, 1, 2, ... without gaps`);
  }
});

t.test('kill -9 while batches are written on the worker thread: every acknowledged batch is whole, no batch is in part', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rulevault-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const acknowledged = new Set<number>();
  for (let round = 0; round < 2; round++) {
    for (const n of (await appendUntilKilled(path, 4, 'batch-loop', String(1000 * round))).values()) acknowledged.add(n);
    const events = await readEverything(path);
    const perBatch = new Map<number, number>();
    for (const e of events) {
      const data = e.data as { n: number; k: number; text: string };
      if (JSON.stringify({ ...loopPayload(data.n), k: data.k }) !== JSON.stringify(data) || e.stream !== `batch-${data.n}-${data.k}`) t.fail(`event ${e.position} is damaged`);
      perBatch.set(data.n, (perBatch.get(data.n) ?? 0) + 1);
    }
    t.same([...acknowledged].filter((n) => perBatch.get(n) !== BATCH_STREAMS), [], `round ${round}: each of ${acknowledged.size} acknowledged batches is there whole`);
    t.same([...perBatch].filter(([, count]) => count !== BATCH_STREAMS), [], `round ${round}: no batch is there in part`);
  }
});
