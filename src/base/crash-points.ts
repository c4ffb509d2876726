/**
 * Test-only crash points: named steps of a secret's erasure at which a test
 * makes the service kill itself with SIGKILL (what `kill -9` does), to prove
 * that a crash at any step leaves the secret erased after a restart
 * (test/http/erasure-crash.test.ts). Armed only by main() from
 * RULEVAULT_TEST_CRASH_AT (src/base/config.ts); unarmed, a crash point costs one
 * comparison. A process-wide switch rather than a parameter, so that no
 * production signature carries a test hook (the failpoint pattern).
 */
export const CRASH_POINTS = [
  /** The delete is decided; nothing is written yet. */
  'erasure:before-append',
  /** SQLite: inside the erasure's transaction, after its writes, before the commit. */
  'erasure:in-transaction',
  /** The erasure's append is committed; SQLite: the WAL is not checkpointed yet; EventStoreDB: `$tb` not set yet. */
  'erasure:after-commit',
  /** The log holds the erasure and this node applied it; the snapshot is not rewritten yet. */
  'erasure:before-snapshot',
  /** The snapshot is rewritten (or removed); the answer is not sent yet. */
  'erasure:after-snapshot',
  /** SQLite: inside an appendAtomically's transaction (a change request's apply, an import), after its writes, before the commit. */
  'atomic:in-transaction',
  /** EventStoreDB: a change request's ChangeRequestApplying is written; none of its plan yet. */
  'apply:after-plan',
  /** EventStoreDB: the first stream of an apply's plan is written; the others not yet. */
  'apply:part-way',
] as const;

/** Points that make a step fail instead of killing the process; armed the same way. */
export const FAIL_POINTS = [
  /** The embedded store's syncs of its log fail with an I/O error (the fail-stop test, test/http/group-commit.test.ts). */
  'store:sync-fails',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];
export type FailPoint = (typeof FAIL_POINTS)[number];

let armed: CrashPoint | FailPoint | undefined;

/** Arms one crash or fail point for this process (tests only), or disarms with undefined. */
export function armCrashPoint(point: CrashPoint | FailPoint | undefined): void {
  armed = point;
}

/** True when the fail point `point` is armed: the step it names fails. */
export function failPoint(point: FailPoint): boolean {
  return armed === point;
}

/** Kills this process at once when `point` is the armed crash point. */
export function crashPoint(point: CrashPoint): void {
  if (armed === point) process.kill(process.pid, 'SIGKILL');
}
