/**
 * `rulevault audit verify` on the embedded store: the log is cut into
 * position ranges, each checked on the rows as stored (chain-range.ts) by a
 * worker thread of its own, so the hashing runs on every core (SHA-256 over
 * disjoint ranges is independent: each range starts from the link stored just
 * before it, which the range before it checks as its last event). Then the
 * pieces are joined: erased events a later range's erasure mark covers, and
 * checkpoint keys an earlier range's rotation endorsed.
 *
 * When every range is clean, the report is the one `verifyChain` would give
 * (every event accepted, nothing to classify). Otherwise the whole log is
 * verified again by `verifyChain`, one event after the other, which names the
 * first break and its kind: a broken log costs a second, slower pass, a
 * sound one never does.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { workerAnswer, WorkerExitError } from '../base/worker-answer';
import type { RangeResult } from './chain-range';
import { checkRange, openForVerify, type Range, type RangeJob } from './chain-range-read';
import { verifyChain, type VerifyOptions, type VerifyReport } from './chain-verify';
import { readWholeLog } from './log-transfer';
import type { EventStore } from '../store/port';

const WORKER_FILE = path.join(__dirname, 'chain-verify-worker.js');
export interface ParallelTuning {
  /** Threads at most (default: the machine's cores). */
  readonly threads?: number;
  /** Fewer positions than this per range: fewer ranges (default 50,000: a worker's start costs about 50 ms). */
  readonly minRange?: number;
}

/**
 * Verifies the embedded store at `file` (which `store` reads): the same
 * report as `verifyChain(readWholeLog(store), options)`, on all cores. The
 * workers check signatures with their own libsodium (`createSignatureCheck`);
 * `options.checkSignature` serves the in-thread range and the second pass.
 */
export async function verifySqliteChain(file: string, store: EventStore, options: VerifyOptions, tuning: ParallelTuning = {}): Promise<VerifyReport> {
  const head = await store.headPosition();
  if (head !== undefined) {
    const ranges = cut(head, tuning.threads ?? availableParallelism(), tuning.minRange ?? 50_000);
    const results = ranges.length === 1
      ? [await checkInThread(file, ranges[0]!, options)]
      : await Promise.all(ranges.map((range) => checkInWorker({ file, after: range.after.toString(), through: range.through.toString() })));
    const joined = join(results, options);
    if (joined !== undefined) return joined;
  }
  return verifyChain(readWholeLog(store), options);
}

/** (0, head] in at most `threads` ranges of at least `minRange` positions. */
export function cut(head: bigint, threads: number, minRange: number): Range[] {
  const count = BigInt(Math.max(1, Math.min(threads, Math.floor(Number(head) / Math.max(1, minRange)))));
  const ranges: Range[] = [];
  for (let i = 0n; i < count; i++) ranges.push({ after: (head * i) / count, through: (head * (i + 1n)) / count });
  return ranges;
}

/** The report when every range is clean and the joins hold; undefined: verify the slow way. */
function join(results: readonly RangeResult[], options: VerifyOptions): VerifyReport | undefined {
  const trusted = new Set(options.publicKeys);
  const pending: { stream: string; revision: bigint }[] = [];
  let report = { events: 0, checkpoints: 0, erased: 0, last: null as VerifyReport['verified_through'], signed: null as VerifyReport['signed_through'] };
  for (const result of results) {
    if (!result.clean) return undefined;
    const range = result.summary;
    if (range.untrusted.some(({ key, afterEndorsement }) => (trusted.size > 0 || afterEndorsement) && !trusted.has(key))) return undefined;
    for (const key of range.endorsed) trusted.add(key);
    // A mark covers the erased events of its stream before it: those of earlier ranges, all of them.
    for (const mark of range.marks) {
      for (let i = pending.length - 1; i >= 0; i--) if (pending[i]!.stream === mark.stream && pending[i]!.revision < mark.bound) pending.splice(i, 1);
    }
    pending.push(...range.pending);
    report = {
      events: report.events + range.events,
      checkpoints: report.checkpoints + range.checkpoints,
      erased: report.erased + range.erased,
      last: range.last ?? report.last,
      signed: range.signed ?? report.signed,
    };
  }
  if (pending.length > 0) return undefined;
  return {
    verified: true,
    events: report.events,
    verified_through: report.last,
    signed_through: report.signed,
    checkpoints: report.checkpoints,
    erased_events: report.erased,
    keys_given: options.publicKeys.length > 0,
    break: null,
  };
}

async function checkInThread(file: string, range: Range, options: VerifyOptions): Promise<RangeResult> {
  const db = openForVerify(file);
  try {
    return await checkRange(db, range, options);
  } finally {
    db.close();
  }
}

function checkInWorker(job: RangeJob): Promise<RangeResult> {
  // A worker that fails makes its range unclean: the second pass reports what the store says.
  return workerAnswer<RangeResult>(WORKER_FILE, job).catch((error: Error) => ({
    clean: false,
    position: job.after,
    reason: error instanceof WorkerExitError ? `range worker stopped (exit code ${error.code})` : `range worker failed: ${error.message}`,
  }));
}
