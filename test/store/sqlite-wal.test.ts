/**
 * The embedded store's WAL stays bounded under a sustained write load: the
 * automatic checkpoint (sqlite-schema.ts, WAL_AUTOCHECKPOINT_PAGES) runs on
 * the one writer between its commits, catches up, and the WAL starts over,
 * while a subscription follows the log as the service's does. A checkpoint
 * that never caught up would let the WAL grow with every write (three times
 * the bound here).
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { NewEvent } from '../../src/store/port';
import { openSqliteStore } from '../../src/store/sqlite';
import { WAL_AUTOCHECKPOINT_PAGES } from '../../src/store/sqlite-schema';

const PAGE = 4096;

function ruleCreated(i: number): NewEvent {
  const data = { id: `r${i}`, name: `rule ${i}`, description: 'd'.repeat(400), condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: String(i) }] }] };
  return { type: 'RuleCreated', data, metadata: { actor: 'system', at: '2026-11-24T00:00:00.000Z', request_id: 'wal-test', schema: 1 } };
}

t.test('the WAL stays bounded while writes go on without a pause', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rulevault-wal-'));
  const path = join(dir, 'events.db');
  const store = openSqliteStore(path);
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  let followed = 0;
  const subscription = store.subscribe(undefined, { onEvent: () => void followed++, onCaughtUp: () => undefined, onError: (error) => t.fail(String(error)) });
  const bound = (WAL_AUTOCHECKPOINT_PAGES + 64) * (PAGE + 24) + 32;
  const writes = 7000;
  let largest = 0;
  let pending: Promise<unknown>[] = [];
  for (let i = 0; i < writes; i++) {
    // As group commit writes: commits deferred, one shared sync per batch of 32.
    pending.push(store.append(`rule-r${i}`, [ruleCreated(i)], 'no_stream', { deferDurability: true }));
    if (pending.length === 32) {
      await Promise.all(pending);
      await store.durable();
      pending = [];
      largest = Math.max(largest, statSync(`${path}-wal`).size);
    }
  }
  await Promise.all(pending);
  await store.durable();
  largest = Math.max(largest, statSync(`${path}-wal`).size);
  // About 5 frames a write: the load wrote about three times what the bound holds.
  t.ok(largest > (WAL_AUTOCHECKPOINT_PAGES / 2) * PAGE, `the WAL filled up to the checkpoint (${largest} bytes)`);
  t.ok(largest <= bound, `the WAL never passed the bound (${largest} <= ${bound} bytes)`);
  t.equal(await store.headPosition(), BigInt(writes), 'every write committed');
  while (followed < writes) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(followed, writes, 'the subscription followed every write');
  await subscription.close();
});
