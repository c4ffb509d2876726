/**
 * The hash chain of the live store: the last verification (verified up to a
 * position, or the first break and its kind), the signing key and the keys
 * that signed checkpoints, the latest checkpoints; "verify now" and "sign a
 * checkpoint now". A run is started on the server and polled until it ends
 * (src/audit/chain-audit.ts explains why).
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { chainStatus, signCheckpoint, startChainVerify, type Api, type ChainStatus, type SignedCheckpoint } from '../api';
import { ErrorBox, Loading, useAction, when } from '../ui';
import { AuditNav } from './audit';

/** How often a running verification is asked about. */
const POLL_MS = 400;

export function VerificationPage({ api }: { api: Api }) {
  const [status, setStatus] = useState<ChainStatus | undefined>();
  const [signed, setSigned] = useState<SignedCheckpoint | undefined>();
  const poll = useAction();
  const action = useAction();
  const refresh = () => poll.run(async () => setStatus(await chainStatus(api)));
  useEffect(() => {
    void refresh();
  }, [api]);
  useEffect(() => {
    if (status?.running !== true) return undefined;
    const timer = setTimeout(() => void refresh(), POLL_MS);
    return () => clearTimeout(timer);
  }, [status]);
  const verify = (full: boolean) => action.run(async () => {
    setSigned(undefined);
    setStatus(await startChainVerify(api, full));
  });
  // The new checkpoint is an event: the incremental run started after it checks it and lists it.
  const sign = () => action.run(async () => {
    setSigned(await signCheckpoint(api));
    setStatus(await startChainVerify(api, false));
  });
  const running = status?.running === true;
  return (
    <section aria-labelledby="chain-title">
      <AuditNav current="chain" />
      <h2 id="chain-title">Verification</h2>
      <p class="hint">The hash chain links every event to the one before it; signed checkpoints vouch for it. A run reads only what was appended since the last one; <em>Verify the whole log again</em> reads every event.</p>
      <div class="actions">
        <button type="button" disabled={action.busy || running} onClick={() => void verify(false)}>Verify now</button>
        <button type="button" class="secondary" disabled={action.busy || running} onClick={() => void verify(true)}>Verify the whole log again</button>
        <button type="button" class="secondary" disabled={action.busy || running} onClick={() => void sign()}>Sign a checkpoint now</button>
      </div>
      <ErrorBox error={action.error ?? poll.error} />
      {signed !== undefined && (
        <p class="ok" role="status">Signed chain sequence {signed.seq} with key <code>{signed.key_id}</code>: the checkpoint is at position {signed.position}.</p>
      )}
      {status === undefined ? (poll.error === undefined && <Loading what="the verification status" />) : <ChainView status={status} />}
    </section>
  );
}

function ChainView({ status }: { status: ChainStatus }) {
  const { report, run } = status;
  const latest = status.checkpoints[0];
  return (
    <>
      <div class="panel" aria-live="polite">
        <Verdict status={status} />
        {run !== null && (
          <p class="meta">
            Run {run.id} ({run.mode}){run.finished_at === null ? ` started ${when(run.started_at)}` : `, ${when(run.finished_at)}: read ${run.checked_events} event${run.checked_events === 1 ? '' : 's'}`}
            {run.error !== null && <span class="error"> · it failed: {run.error}</span>}
          </p>
        )}
        {report !== null && (
          <dl class="digest">
            <dt>Events checked</dt><dd>{report.events} ({report.erased_events} erased)</dd>
            {report.verified_through !== null && <><dt>Hash there</dt><dd><code>{report.verified_through.hash}</code></dd></>}
            <dt>Signed through</dt><dd>{report.signed_through === null ? 'no checkpoint signs any of it yet' : `position ${report.signed_through.position} (chain sequence ${report.signed_through.seq}), by ${report.checkpoints} checkpoint${report.checkpoints === 1 ? '' : 's'}`}</dd>
          </dl>
        )}
      </div>
      <h3>Signing key</h3>
      <dl class="digest">
        <dt>Key id</dt><dd><code>{status.signing_key.key_id}</code> ({status.signing_key.algorithm})</dd>
        <dt>Public key</dt><dd><code>{status.signing_key.public_key}</code></dd>
      </dl>
      <p class="hint">Auditors verify offline with this public key: <code>rulevault audit verify --public-key &lt;key&gt;</code>. Here, checkpoints are checked against the first checkpoint's key and the keys it endorsed.</p>
      {status.keys.length > 0 && (
        <table class="list">
          <caption class="sr-only">Keys that signed checkpoints</caption>
          <thead><tr><th scope="col">Key id</th><th scope="col">Endorsed by</th><th scope="col">Checkpoints</th><th scope="col">Public key</th></tr></thead>
          <tbody>
            {status.keys.map((k) => (
              <tr key={k.public_key}>
                <td><code>{k.key_id}</code>{k.current && <> <span class="badge">current</span></>}</td>
                <td>{k.endorsed_by === null ? 'the first key' : <code>{k.endorsed_by}</code>}</td>
                <td>{k.checkpoints}</td>
                <td><code>{k.public_key}</code></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Latest checkpoint</h3>
      {latest === undefined ? <p>{report === null ? 'Verify to list the checkpoints.' : 'No checkpoint in the log yet.'}</p> : (
        <dl class="digest">
          <dt>Position</dt><dd>{latest.position}{latest.at !== null && <> · {when(latest.at)}</>}</dd>
          <dt>Signs</dt><dd>chain sequence {latest.seq}, hash <code>{latest.hash}</code></dd>
          <dt>Key</dt><dd><code>{latest.key_id}</code>{latest.next_public_key !== undefined && <> · endorses <code>{latest.next_public_key}</code></>}</dd>
          <dt>Signature</dt><dd><code>{latest.signature}</code></dd>
        </dl>
      )}
      {status.checkpoints.length > 1 && (
        <table class="list">
          <caption class="sr-only">Earlier checkpoints</caption>
          <thead><tr><th scope="col">Position</th><th scope="col">Chain sequence</th><th scope="col">Key id</th><th scope="col">At</th></tr></thead>
          <tbody>
            {status.checkpoints.slice(1).map((c) => (
              <tr key={c.position}><td>{c.position}</td><td>{c.seq}</td><td><code>{c.key_id}</code></td><td>{c.at === null ? '' : when(c.at)}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function Verdict({ status }: { status: ChainStatus }) {
  const { report } = status;
  if (status.running) return <p role="status" class="verdict"><strong>Verifying…</strong></p>;
  if (report === null) return <p role="status" class="verdict">Not verified since the service started: <em>Verify now</em> checks the whole log.</p>;
  const through = report.verified_through;
  if (report.break !== null) {
    return (
      <Fragment>
        <p role="status" class="verdict bad"><strong>Broken at position {report.break.position} ({report.break.kind})</strong></p>
        <p>{report.break.message}</p>
        <p>{through === null ? 'Nothing before it verified.' : `Verified up to position ${through.position} (chain sequence ${through.seq}).`}</p>
      </Fragment>
    );
  }
  return (
    <p role="status" class="verdict good">
      <strong>{through === null ? 'Verified: the log is empty' : `Verified up to position ${through.position}`}</strong>
      {through !== null && ` (chain sequence ${through.seq})`}
    </p>
  );
}
