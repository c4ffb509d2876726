/**
 * The audit records beside the log: a decision record looked up by its id
 * (the RuleVault-Decision-Id header of an evaluate answer) with its replay
 * and its evidence file as a download, and the secret-read audit, filtered and paged by the server. Neither holds
 * a secret value, so none can be shown.
 */
import { useState } from 'preact/hooks';
import {
  decisionEvidenceText, decisionRecord, decisionReplay, secretReadsPage,
  type Api, type DecisionRecord, type DecisionReplay, type DecisionStandIn, type SecretReadFilter,
} from '../api';
import { go } from '../router';
import { ErrorBox, Field, MoreButton, Named, Show, useAction, useLoad, usePages, when } from '../ui';
import { AuditNav, useAuditNames } from './audit';

type ReplayPoint = 'recorded' | 'head';

export function DecisionPage({ api, id }: { api: Api; id: string | undefined }) {
  const [text, setText] = useState(id ?? '');
  const [point, setPoint] = useState<ReplayPoint>('recorded');
  const [found] = useLoad(() => (id === undefined ? Promise.resolve(undefined) : recordAndReplay(api, id, point)), [api, id, point]);
  const names = useAuditNames(api);
  return (
    <section aria-labelledby="decision-title">
      <AuditNav current="decisions" />
      <h2 id="decision-title">Decision records</h2>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); if (text.trim() !== '') go('audit', 'decisions', text.trim()); }}>
        <Field label="Decision id" hint="From an evaluate answer's RuleVault-Decision-Id header">{(fieldId, hint) => (
          <input id={fieldId} aria-describedby={hint} required size={38} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        )}</Field>
        <Field label="Replay at">{(fieldId) => (
          <select id={fieldId} value={point} onChange={(e) => setPoint(e.currentTarget.value as ReplayPoint)}>
            <option value="recorded">the recorded position</option>
            <option value="head">the log now</option>
          </select>
        )}</Field>
        <button type="submit">Look up</button>
      </form>
      {id === undefined ? <p>A record exists when decision logging is on (<code>RULEVAULT_DECISION_LOG=1</code>) and the answer was sampled.</p> : (
        <Show loaded={found} what="the decision record">{(pair) => pair !== undefined && (
          pair.length === 1 ? <StandInView record={pair[0]} names={names} /> : <DecisionView api={api} record={pair[0]} replay={pair[1]} names={names} />
        )}</Show>
      )}
    </section>
  );
}

/** The record and its replay; a stand-in alone, as there is no request to replay. */
async function recordAndReplay(api: Api, id: string, point: ReplayPoint): Promise<[DecisionStandIn] | [DecisionRecord, DecisionReplay]> {
  const record = await decisionRecord(api, id);
  if ('incomplete' in record) return [record];
  return [record, await decisionReplay(api, id, point === 'head' ? 'head' : undefined)];
}

function StandInView({ record, names }: { record: DecisionStandIn; names: ReadonlyMap<string, string> }) {
  return (
    <div class="panel">
      <DecisionFacts record={record} names={names} />
      <p class="error" role="status"><strong>Incomplete record</strong>: {record.incomplete}</p>
      <h3>The answer</h3>
      <AnswerLists answer={record.answer} names={names} />
    </div>
  );
}

function DecisionFacts({ record, names }: { record: DecisionRecord | DecisionStandIn; names: ReadonlyMap<string, string> }) {
  return (
    <dl class="digest">
      <dt>Decision id</dt><dd><code>{record.decision_id}</code></dd>
      <dt>Time</dt><dd>{when(record.at)}</dd>
      <dt>Key</dt><dd><Named id={record.key_id} names={names} /></dd>
      <dt>Position</dt><dd>{record.position ?? 'none (the empty log)'}</dd>
      {'request' in record && <><dt>Entity type</dt><dd>{record.request.entity_type}{record.request.include_entity_data && ' · with entity data'}</dd></>}
    </dl>
  );
}

/**
 * The file `rulevault audit evidence` writes, fetched with the key (a plain
 * link would carry none) and saved as evidence-<id>.json; a 409 says how to
 * get the checkpoint it needs.
 */
function EvidenceDownload({ api, id }: { api: Api; id: string }) {
  const action = useAction();
  const download = () => action.run(async () => {
    const url = URL.createObjectURL(new Blob([await decisionEvidenceText(api, id)], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `evidence-${id}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  });
  return (
    <div class="actions">
      <button type="button" class="secondary" disabled={action.busy} onClick={() => void download()}>Download evidence</button>
      <p class="hint">One file with this record, the rule and entity events it used, their change requests and approvals, and the hash chain to a signed checkpoint. Check it anywhere: <code>rulevault audit verify-evidence evidence-{id}.json --public-key …</code></p>
      <ErrorBox error={action.error} />
    </div>
  );
}

function DecisionView({ api, record, replay, names }: { api: Api; record: DecisionRecord; replay: DecisionReplay; names: ReadonlyMap<string, string> }) {
  const masked = new Set(record.masked);
  const fields = Object.entries(record.request.fields as Record<string, unknown>);
  return (
    <div class="panel">
      <DecisionFacts record={record} names={names} />
      <EvidenceDownload api={api} id={record.decision_id} />
      <h3>Input fields</h3>
      {fields.length === 0 ? <p>None.</p> : (
        <table class="list">
          <caption class="sr-only">Input fields as recorded</caption>
          <thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead>
          <tbody>
            {fields.map(([name, value]) => (
              <tr key={name}>
                <td><code>{name}</code></td>
                <td>{masked.has(`fields.${name}`) ? <span class="badge">masked</span> : <code>{JSON.stringify(value)}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {record.masked.length > 0 && <p class="hint">Masked values are not stored ({record.masked.join(', ')}), nor a digest of the entity data they may have rendered into; the replay leaves them out.</p>}
      <h3>The answer</h3>
      <AnswerLists answer={record.answer} names={names} />
      <h3>Replay</h3>
      <p class="meta">At position {replay.replayed_at.position ?? 'none'}{replay.replayed_at.at !== null && `, ${when(replay.replayed_at.at)}`}</p>
      {replay.same ? <p class="ok" role="status"><strong>Same answer</strong></p> : (
        <div role="status">
          <p class="error"><strong>The answer differs</strong></p>
          <ul>
            <DifferenceItem what="Matching rules" only={replay.differences.matchingRuleIds} />
            <DifferenceItem what="Entities" only={replay.differences.entities} />
            <EntityDataItem digests={replay.differences.entity_data} />
          </ul>
        </div>
      )}
      <UnreproducibleList parts={replay.unreproducible} />
    </div>
  );
}

function AnswerLists({ answer, names }: { answer: DecisionRecord['answer'] | DecisionStandIn['answer']; names: ReadonlyMap<string, string> }) {
  return (
    <dl class="digest">
      <dt>Matching rules</dt><dd>{answer.matchingRuleIds.length === 0 ? 'none' : (
        <ul class="plain">{answer.matchingRuleIds.map((r) => <li key={r}><Named id={r} names={names} /></li>)}</ul>
      )}</dd>
      <dt>Entities</dt><dd>{answer.entities.length === 0 ? 'none' : (
        <ul class="plain">{answer.entities.map((e) => <li key={`${e.rule_id}${e.entity_id}`}>{e.entity_type} <Named id={e.entity_id} names={names} /></li>)}</ul>
      )}</dd>
      {'entity_data_sha256' in answer && answer.entity_data_sha256 !== undefined && <><dt>Entity data</dt><dd>SHA-256 <code>{answer.entity_data_sha256}</code></dd></>}
    </dl>
  );
}

function DifferenceItem({ what, only }: { what: string; only: DecisionReplay['differences']['matchingRuleIds'] }) {
  if (only === undefined || (only.only_recorded.length === 0 && only.only_replayed.length === 0)) return null;
  return (
    <li>
      {what}: {only.only_recorded.length > 0 && <>only in the record <code>{only.only_recorded.join(', ')}</code> </>}
      {only.only_replayed.length > 0 && <>only in the replay <code>{only.only_replayed.join(', ')}</code></>}
    </li>
  );
}

const PART_NAMES = { matchingRuleIds: 'Matching rules', entities: 'Entities', entity_data: 'Entity data' } as const;

function UnreproducibleList({ parts }: { parts: DecisionReplay['unreproducible'] }) {
  const listed = (Object.keys(PART_NAMES) as (keyof typeof PART_NAMES)[]).filter((part) => parts[part] !== undefined);
  if (listed.length === 0) return null;
  return (
    <>
      <p class="hint">The replay cannot reproduce these parts: they depend on masked values.</p>
      <ul>{listed.map((part) => <li key={part}>{PART_NAMES[part]}: <code>{parts[part]!.join(', ')}</code></li>)}</ul>
    </>
  );
}

function EntityDataItem({ digests }: { digests: DecisionReplay['differences']['entity_data'] }) {
  if (digests === undefined || digests.recorded_sha256 === digests.replayed_sha256) return null;
  return <li>Entity data: SHA-256 <code>{digests.recorded_sha256 ?? 'none'}</code> recorded, <code>{digests.replayed_sha256 ?? 'none'}</code> replayed</li>;
}

export function SecretReadsPage({ api }: { api: Api }) {
  const [draft, setDraft] = useState<SecretReadFilter>({});
  const [filter, setFilter] = useState<SecretReadFilter>({});
  const reads = usePages((cursor) => secretReadsPage(api, filter, cursor), [api, filter]);
  const names = useAuditNames(api);
  const set = (name: keyof SecretReadFilter) => (e: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [name]: e.currentTarget.value.trim() });
  return (
    <section aria-labelledby="reads-title">
      <AuditNav current="reads" />
      <h2 id="reads-title">Secret reads</h2>
      <p class="hint">Every get-secrets call, oldest first: who read which secrets and which value version, and the calls refused (no key, a bad key, no scope, a key not found). Never a value: the audit holds none.</p>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); setFilter(draft); }}>
        <Field label="Key id" hint="The API key that read">{(id, hint) => <input id={id} aria-describedby={hint} value={draft.key_id ?? ''} onInput={set('key_id')} />}</Field>
        <Field label="Secret" hint="Its id or key">{(id, hint) => <input id={id} aria-describedby={hint} value={draft.secret ?? ''} onInput={set('secret')} />}</Field>
        <Field label="Read from" hint="ISO time with a zone, inclusive">{(id, hint) => <input id={id} aria-describedby={hint} value={draft.from ?? ''} onInput={set('from')} />}</Field>
        <Field label="Read to" hint="ISO time with a zone, inclusive">{(id, hint) => <input id={id} aria-describedby={hint} value={draft.to ?? ''} onInput={set('to')} />}</Field>
        <button type="submit">Show reads</button>
      </form>
      <Show loaded={reads.pages} what="the secret reads">{({ items }) => items.length === 0 ? <p>No read matches.</p> : (
        <table class="list">
          <thead><tr><th scope="col">At</th><th scope="col">Key</th><th scope="col">Request id</th><th scope="col">Outcome</th><th scope="col">Secrets read</th></tr></thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.read_id}>
                <td>{when(r.at)}</td>
                <td><Named id={r.key_id} names={names} /></td>
                <td><code>{r.request_id ?? ''}</code></td>
                <td>{r.code === null ? 'ok' : <span class="badge">{r.code}</span>}</td>
                <td>{r.secrets.length === 0 ? 'none' : r.secrets.map((s) => `${s.key} (version ${s.version}, value ${s.value_version})`).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Show>
      <MoreButton paged={reads} label="Load 50 more" />
    </section>
  );
}
