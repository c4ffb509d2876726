/**
 * A verification of the live store's hash chain that can be continued: one
 * call of `verifyChain` (chain-verify.ts, used through its public function
 * only) is kept open across runs. Its records come from a tail over the
 * store that, at the end of the log, waits for the next run instead of
 * ending; the next run hands it only the events appended since. So each run
 * reads and hashes only what is new, and the verifier keeps its own state
 * (the chain head, the recent links checkpoints sign, the trusted keys,
 * erased events waiting for their erasure record) in between.
 *
 * What a paused session can say without ending it: `verifyChain` checks each
 * record before it asks for the next one, and returns at once at a break,
 * except in two cases it decides later: a jump ahead in the chain sequence
 * (removed or reordered: decided when the missing sequence turns up or the
 * log ends) and an erased event whose erasure record has not come (decided at
 * the end). The session watches for both (`shadow`); when neither is open,
 * everything handed over verified and the report is built from what was
 * handed (`pausedReport`). When one is open, the run ends the session and
 * answers `verifyChain`'s own report. test/audit/chain-http.test.ts tampers
 * with the log after a paused run, so a verifier that read ahead before
 * checking would fail it.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ChainLink } from '../store/chain';
import { isErased, LOG_PAGE_BYTES, toJsonPosition, type EventStore, type RecordedEvent } from '../store/port';
import { asCheckpoint, CHECKPOINT_STREAM, type CheckpointData } from './chain-checkpoint';
import { verifyChain, type ChainPoint, type VerifyReport } from './chain-verify';
import { signingKeyId, type SignatureCheck } from '../vault/signing-key';

/**
 * Events read per page. The tail gives the event loop back after every page,
 * so evaluate requests wait at most one page of reading and verification:
 * bench/scenarios/chain-audit.ts and a timer probe measured about 20 ms of
 * CPU per page of 1000 (under load), so 250, about 5 ms.
 */
const PAGE = 250;
/** Chain sequences remembered to place a checkpoint's signed point (chain-verify.ts checks within 4096 links). */
const WINDOW = 1 << 12;
/** Checkpoints kept for the status, newest last. */
const KEPT_CHECKPOINTS = 20;

export interface SeenCheckpoint extends CheckpointData {
  readonly position: string;
  readonly at: string | null;
}

/** A signing key as the checkpoints show it: the first one, or one an earlier key endorsed (rotation). */
export interface SeenKey {
  readonly key_id: string;
  readonly public_key: string;
  /** The key that endorsed it in a rotation checkpoint; null for the first key. */
  readonly endorsed_by: string | null;
  checkpoints: number;
}

/** What a run learnt: the report over the whole log so far, and how many events this run read. */
export interface SessionRun {
  readonly report: VerifyReport;
  readonly checked_events: number;
  /** False when the session ended (a break, or a pending case decided by ending): the next run starts from the first event. */
  readonly resumable: boolean;
}

export interface ChainSession {
  /** Hands the verifier what was appended since the last run; resolves when it reached the end of the log or the session ended. */
  run(): Promise<SessionRun>;
  /** The checkpoints seen so far, newest last, and the signing keys. */
  readonly checkpoints: readonly SeenCheckpoint[];
  readonly keys: readonly SeenKey[];
  /** Ends a paused session (its verifier reports and is dropped). */
  close(): Promise<void>;
}

/**
 * Starts a session from the first event. `trustedKeys` as for `verifyChain`:
 * a checkpoint must be signed by one of them or a key they endorsed.
 */
export function openChainSession(store: EventStore, trustedKeys: readonly string[], checkSignature: SignatureCheck): ChainSession {
  let cursor: bigint | undefined;
  let handed = 0;
  let closing = false;
  let finished: VerifyReport | undefined;
  /** A run asked for the tail to go on; `wake` ends the tail's wait for one. */
  let requested = false;
  let wake: (() => void) | undefined;
  /** Resolves the current run's wait for the end of the log. */
  let atEnd: () => void = () => undefined;
  const shadow = createShadow();

  async function* tail(): AsyncGenerator<RecordedEvent> {
    for (;;) {
      if (!requested) await new Promise<void>((resolve) => { wake = resolve; });
      requested = false;
      if (closing) return;
      for (;;) {
        const page = await store.readAll({ after: cursor, limit: PAGE, maxDataBytes: LOG_PAGE_BYTES });
        if (page.length === 0) break;
        for (const event of page) {
          shadow.see(event);
          cursor = event.position;
          handed++;
          yield event;
        }
        await yieldToLoop();
      }
      // The verifier asked for the record after the last one: it checked every record handed so far.
      atEnd();
    }
  }

  const goOn = (): void => {
    requested = true;
    wake?.();
    wake = undefined;
  };

  const verifying = verifyChain(tail(), { publicKeys: trustedKeys, checkSignature }).then((report) => {
    finished = report;
    return report;
  });
  // A store closed under a session rejects here; the run that awaits it reports the error.
  verifying.catch(() => undefined);

  return {
    async run() {
      if (finished !== undefined) return { report: finished, checked_events: 0, resumable: false };
      const before = handed;
      const ended = new Promise<void>((resolve) => {
        atEnd = resolve;
      });
      goOn();
      await Promise.race([ended, verifying]);
      if (finished === undefined && shadow.settled()) {
        return { report: shadow.report(handed, trustedKeys.length > 0), checked_events: handed - before, resumable: true };
      }
      // A break, or a case the verifier decides only at the end: let it end, and answer its own report.
      closing = true;
      goOn();
      const report = await verifying;
      return { report, checked_events: handed - before, resumable: false };
    },
    get checkpoints() {
      return shadow.checkpoints;
    },
    get keys() {
      return shadow.keys;
    },
    async close() {
      closing = true;
      goOn();
      await verifying.catch(() => undefined);
    },
  };
}

/**
 * What the session watches in the records it hands over: the two cases the
 * verifier decides late, and what a report of a paused session holds.
 */
function createShadow() {
  let expectedSeq = 1;
  let jumped = false;
  let last: { readonly position: bigint; readonly link: ChainLink } | undefined;
  let signed: ChainPoint | null = null;
  let erased = 0;
  let checkpointCount = 0;
  const recent = new Map<number, bigint>();
  /** Per stream: revisions of erased events no erasure record covers yet. */
  const waiting = new Map<string, bigint[]>();
  const checkpoints: SeenCheckpoint[] = [];
  const keys: SeenKey[] = [];

  return {
    see(event: RecordedEvent): void {
      // Read, not checked: the verifier checks the link (asLink's checks would be paid twice; bench chain-audit).
      const link = (event.metadata as { readonly chain?: ChainLink }).chain;
      if (typeof link !== 'object' || link === null) {
        jumped = true;
        return;
      }
      if (link.seq !== expectedSeq) jumped = true;
      expectedSeq = link.seq + 1;
      if (isErased(event)) {
        erased++;
        waiting.set(event.stream, [...(waiting.get(event.stream) ?? []), event.revision]);
      }
      if (link.erases !== undefined) {
        const bound = BigInt(link.erases);
        const left = (waiting.get(event.stream) ?? []).filter((revision) => revision >= bound);
        if (left.length === 0) waiting.delete(event.stream);
        else waiting.set(event.stream, left);
      }
      const checkpoint = asCheckpoint(event);
      if (checkpoint !== undefined) {
        checkpointCount++;
        const signedPosition = recent.get(checkpoint.seq);
        if (signedPosition !== undefined) signed = { position: toJsonPosition(signedPosition), seq: checkpoint.seq, hash: checkpoint.hash };
        checkpoints.push({ ...checkpoint, position: toJsonPosition(event.position), at: typeof event.metadata.at === 'string' ? event.metadata.at : null });
        if (checkpoints.length > KEPT_CHECKPOINTS) checkpoints.shift();
        seeKey(keys, checkpoint);
      } else if (event.stream === CHECKPOINT_STREAM) {
        jumped = true;
      }
      recent.set(link.seq, event.position);
      recent.delete(link.seq - WINDOW);
      last = { position: event.position, link };
    },
    /** True when the verifier has nothing left to decide about the records handed so far. */
    settled: (): boolean => !jumped && waiting.size === 0,
    report: (events: number, keysGiven: boolean): VerifyReport => ({
      verified: true,
      events,
      verified_through: last === undefined ? null : { position: toJsonPosition(last.position), seq: last.link.seq, hash: last.link.hash },
      signed_through: signed,
      checkpoints: checkpointCount,
      erased_events: erased,
      keys_given: keysGiven,
      break: null,
    }),
    checkpoints: checkpoints as readonly SeenCheckpoint[],
    keys: keys as readonly SeenKey[],
  };
}

function seeKey(keys: SeenKey[], checkpoint: CheckpointData): void {
  let signer = keys.find((k) => k.public_key === checkpoint.public_key);
  if (signer === undefined) {
    signer = { key_id: checkpoint.key_id, public_key: checkpoint.public_key, endorsed_by: null, checkpoints: 0 };
    keys.push(signer);
  }
  signer.checkpoints++;
  const next = checkpoint.next_public_key;
  if (next !== undefined && !keys.some((k) => k.public_key === next)) {
    keys.push({ key_id: signingKeyId(next), public_key: next, endorsed_by: checkpoint.key_id, checkpoints: 0 });
  }
}
