/**
 * The service's periodic checkpoints when a cold start's catch-up came
 * through the embedded store's read-ahead, whose events carry no links: the
 * checkpointer reads the newest event back and signs its link; on a log
 * written before the chain it signs nothing. Real SQLite files, real keys.
 */
import path from 'node:path';
import t from 'tap';
import { createChainCheckpointer } from '../../src/audit/chain-checkpointer';
import { verifyChain } from '../../src/audit/chain-verify';
import { readWholeLog } from '../../src/audit/log-transfer';
import { silentLogger } from '../../src/base/log';
import { splitMetadata } from '../../src/store/chain';
import type { RecordedEvent } from '../../src/store/port';
import { openSqliteStore } from '../../src/store/sqlite';
import { bulkLoadSqlite } from '../../src/store/sqlite-bulk';
import { createSignatureCheck, generateSigningKey } from '../../src/vault/signing-key';
import { removeDir, tempDir } from '../support/temp';

const events = (count: number) => Array.from({ length: count }, (_, i) => ({
  stream: `rule-${i % 7}`, type: 'RuleUpdated', data: { n: i }, metadata: { actor: 'cli', at: '2026-11-24T12:00:00.000Z', request_id: `r${i}`, schema: 1 },
}));

/** Subscribes with the read-ahead on, hands every event to a checkpointer, starts it once caught up. */
async function checkpointAfterCatchUp(file: string) {
  const store = openSqliteStore(file, { readAheadFrom: 10, readAheadPageSize: 16 });
  const key = await generateSigningKey();
  const checkpointer = createChainCheckpointer({ store, key, every: 25, logger: silentLogger, now: () => new Date('2026-11-24T13:00:00Z'), requestId: () => 'checkpoint' });
  const seen: RecordedEvent[] = [];
  await new Promise<void>((resolve, reject) => {
    const subscription = store.subscribe(undefined, {
      onEvent: (event) => {
        seen.push(event);
        checkpointer.observe(event);
      },
      onCaughtUp: () => {
        checkpointer.start();
        void subscription.close().then(resolve);
      },
      onError: reject,
    });
  });
  await checkpointer.stop();
  const report = await verifyChain(readWholeLog(store), { publicKeys: [key.publicKey], checkSignature: await createSignatureCheck() });
  let logged = 0;
  for await (const _ of readWholeLog(store)) logged++;
  await store.close();
  return { seen, report, logged };
}

t.test('after a catch-up without links, the newest link is read back and signed', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'events.db');
  bulkLoadSqlite(file, events(100));
  const { seen, report } = await checkpointAfterCatchUp(file);
  t.equal(seen.length, 100);
  t.ok(seen.every((event) => splitMetadata(event.metadata).link === undefined), 'the catch-up came without links');
  t.equal(report.verified, true, report.break?.message ?? 'verified');
  t.equal(report.checkpoints, 1, 'one checkpoint was written');
  t.match(report.signed_through, { seq: 100, position: '100' }, 'it signs the newest event applied');
});

t.test('a log written before the chain gets no checkpoint', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'events.db');
  bulkLoadSqlite(file, events(100), 50_000, false);
  const { logged } = await checkpointAfterCatchUp(file);
  t.equal(logged, 100, 'nothing was appended: no checkpoint');
});
