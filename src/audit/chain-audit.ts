/**
 * The hash chain of the live store for the admin API and the console
 * (issue 19, item 4): verification status, "verify now", and a checkpoint
 * signed on demand.
 *
 * The choice: a started job whose status is polled, incremental by default.
 * `verify()` starts a run (or joins the one running: never two at once) and
 * answers at once; `status()` says how far it got. A run continues the
 * previous one (chain-session.ts): it reads only what was appended since,
 * and the report still covers the whole log from its first event. `full`
 * drops what earlier runs verified and starts again from the first event,
 * which is what finds a change made to events already verified (a paused
 * session does not read them again). A synchronous answer was not chosen: a
 * first or full run over a big log takes seconds (58k events/s), longer than
 * a request should be held; the run gives the event loop back every page.
 *
 * Trust: a checkpoint must be signed by the key of the log's first checkpoint
 * or a key it endorsed on rotation (trust on first use; the status names the
 * keys so an operator compares them with the public key an auditor holds).
 * The auditor's own check stays `rulevault audit verify --public-key`.
 */
import { optional, readMembers } from '../domain/input';
import { badRequest, conflict } from '../base/errors';
import type { EventStore } from '../store/port';
import { createSignatureCheck, loadSigningKey, type SignatureCheck, type SigningKey } from '../vault/signing-key';
import { asCheckpoint, CHECKPOINT_STREAM, writeCheckpoint } from './chain-checkpoint';
import { openChainSession, type ChainSession, type SeenCheckpoint, type SeenKey } from './chain-session';
import type { VerifyReport } from './chain-verify';

export type RunMode = 'full' | 'incremental';

export interface VerifyRun {
  /** Counts runs since the service started, from 1. */
  readonly id: number;
  readonly mode: RunMode;
  readonly started_at: string;
  readonly finished_at: string | null;
  /** Events this run read: all of them for a full run, those appended since the last run otherwise. */
  readonly checked_events: number;
  /** Why the run could not finish (the store failed), or null. */
  readonly error: string | null;
}

export interface ChainStatus {
  readonly running: boolean;
  /** The run going on, or the last one; null before the first. */
  readonly run: VerifyRun | null;
  /** The last finished run's report over the whole log (chain-verify.ts); null before the first. */
  readonly report: VerifyReport | null;
  /** Events read by every run since the service started. */
  readonly events_read: number;
  readonly signing_key: { readonly key_id: string; readonly public_key: string; readonly algorithm: 'ed25519' };
  /** Keys that signed checkpoints, first one first, each with the key that endorsed it. */
  readonly keys: readonly (SeenKey & { readonly current: boolean })[];
  /** The checkpoints the last run checked, newest first (at most 20). */
  readonly checkpoints: readonly SeenCheckpoint[];
}

export interface SignedCheckpoint {
  readonly position: string;
  readonly seq: number;
  readonly hash: string;
  readonly key_id: string;
  readonly public_key: string;
  readonly signature: string;
}

export interface ChainAudit {
  status(): Promise<ChainStatus>;
  /** Starts a run, or joins the one running (whatever its mode: the answer says which). */
  verify(mode: RunMode): Promise<ChainStatus>;
  /** Verifies what is new, then signs the verified head; a broken chain is a 409 and nothing is signed. */
  checkpoint(body: unknown, actor: string, requestId: string): Promise<SignedCheckpoint>;
}

export interface ChainAuditDeps {
  readonly store: EventStore;
  /** Where the signing key is (the service loaded or created it at start). */
  readonly signingKey: { readonly envValue: string | undefined; readonly dataDir: string };
  readonly now: () => Date;
}

export function createChainAudit({ store, signingKey, now }: ChainAuditDeps): ChainAudit {
  let tools: Promise<{ key: SigningKey; check: SignatureCheck }> | undefined;
  const loadTools = () => {
    tools ??= Promise.all([loadSigningKey(signingKey), createSignatureCheck()]).then(([loaded, check]) => ({ key: loaded.key, check }));
    return tools;
  };
  let session: ChainSession | undefined;
  let running: Promise<void> | undefined;
  let run: VerifyRun | null = null;
  let report: VerifyReport | null = null;
  let eventsRead = 0;
  let runs = 0;
  let seenKeys: readonly SeenKey[] = [];
  let seenCheckpoints: readonly SeenCheckpoint[] = [];

  const openSession = async (): Promise<ChainSession> => {
    const { check } = await loadTools();
    return openChainSession(store, await firstCheckpointKey(store), check);
  };

  const start = (mode: RunMode): Promise<void> => {
    const current: VerifyRun = { id: ++runs, mode, started_at: now().toISOString(), finished_at: null, checked_events: 0, error: null };
    run = current;
    const finish = (fields: Partial<VerifyRun>) => {
      run = { ...current, ...fields, finished_at: now().toISOString() };
    };
    return (async () => {
      if (mode === 'full' && session !== undefined) {
        await session.close();
        session = undefined;
      }
      session ??= await openSession();
      const result = await session.run();
      eventsRead += result.checked_events;
      report = result.report;
      // What this run saw, kept beside its report (a session that ended is dropped).
      seenKeys = session.keys.map((k) => ({ ...k }));
      seenCheckpoints = [...session.checkpoints].reverse();
      if (!result.resumable) session = undefined;
      finish({ checked_events: result.checked_events });
    })().catch(() => {
      // The store's own message may name files or drivers: the answer says what failed, not how.
      session = undefined;
      finish({ error: 'the log could not be read to its end (the event store failed)' });
    }).finally(() => {
      running = undefined;
    });
  };

  const status = async (): Promise<ChainStatus> => {
    const { key } = await loadTools();
    return {
      running: running !== undefined,
      run,
      report,
      events_read: eventsRead,
      signing_key: { key_id: key.keyId, public_key: key.publicKey, algorithm: 'ed25519' },
      keys: seenKeys.map((k) => ({ ...k, current: k.public_key === key.publicKey })),
      checkpoints: seenCheckpoints,
    };
  };

  const startOrJoin = (mode: RunMode): Promise<void> => {
    running ??= start(mode);
    return running;
  };

  return {
    status,
    async verify(mode) {
      void startOrJoin(mode);
      return status();
    },
    async checkpoint(body, actor, requestId) {
      // No member is taken: one sent is a mistake worth a 400 (as on every admin write).
      if (body !== undefined && body !== null) readMembers(body, 'body', []);
      // A run going on may have started before the last appends: wait for it, then read what is new.
      await running;
      await startOrJoin('incremental');
      const verified = report;
      if (verified === null || run?.error) throw conflict(`the chain could not be verified (${run?.error ?? 'no report'}); nothing was signed`);
      if (verified.break !== null) {
        throw conflict(`the chain breaks at position ${verified.break.position} (${verified.break.kind}): nothing was signed`);
      }
      if (verified.verified_through === null) throw conflict('the log is empty: there is nothing to sign yet');
      const { key } = await loadTools();
      const head = { seq: verified.verified_through.seq, hash: verified.verified_through.hash };
      const written = await writeCheckpoint({ store, key, head, actor, at: now().toISOString(), requestId });
      return {
        position: written.position.toString(),
        seq: written.data.seq,
        hash: written.data.hash,
        key_id: written.data.key_id,
        public_key: written.data.public_key,
        signature: written.data.signature,
      };
    },
  };
}

/** The public key of the log's first checkpoint: the key trusted on first use (none yet: each signature is checked against the key it names). */
async function firstCheckpointKey(store: EventStore): Promise<string[]> {
  const events = await store.readStream(CHECKPOINT_STREAM).catch(() => []);
  const first = events.length === 0 ? undefined : asCheckpoint(events[0]!);
  return first === undefined ? [] : [first.public_key];
}

/** `POST /api/audit/chain/verify`'s body: none, `{}` or `{"full": true|false}`. */
export function parseVerifyRequest(body: unknown): RunMode {
  if (body === undefined || body === null) return 'incremental';
  const full = optional(readMembers(body, 'body', ['full']), 'full', (value, path) => {
    if (typeof value !== 'boolean') throw badRequest(`${path} must be a boolean`);
    return value;
  });
  return full === true ? 'full' : 'incremental';
}
