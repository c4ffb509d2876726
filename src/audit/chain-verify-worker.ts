/**
 * Worker thread of the embedded store's verify (chain-verify-sqlite.ts):
 * checks one position range on its own read-only connection and posts the
 * range's result once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkRange, openForVerify, type RangeJob } from './chain-range-read';
import { createSignatureCheck } from '../vault/signing-key';

async function run(port: NonNullable<typeof parentPort>, job: RangeJob): Promise<void> {
  const db = openForVerify(job.file);
  try {
    const checkSignature = await createSignatureCheck();
    port.postMessage(await checkRange(db, { after: BigInt(job.after), through: BigInt(job.through) }, { checkSignature }));
  } finally {
    db.close();
  }
}

if (parentPort !== null) void run(parentPort, workerData as RangeJob);
