/** The auditor's pages: a rule's history with diffs, the event log with filters, evaluate as of a point, the digest (the chain and the records: audit-chain.tsx, audit-records.tsx). */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import {
  auditDigest, auditEvaluate, auditEvents, listApiKeys, listContexts, listPrompts, listRules, listSecrets, ruleHistoryPage,
  type Api, type AuditEvaluateResponse, type AuditPage, type EntityType, type EventFilter,
} from '../api';
import { pretty } from '../diff';
import { AnswerView, ExplainView } from '../explain-view';
import { go, href } from '../router';
import { DiffView, ErrorBox, Field, MoreButton, Named, Show, useAction, useLoad, usePages, when } from '../ui';
import { namesOf } from './rules';
import { parsePastedRequest } from './test-panel';

export function AuditNav({ current }: { current: string }) {
  const tabs: [string, string][] = [['history', 'Rule history'], ['events', 'Event log'], ['as-of', 'Evaluate as of'], ['digest', 'Digest'], ['chain', 'Verification'], ['decisions', 'Decision records'], ['reads', 'Secret reads']];
  return (
    <nav aria-label="Audit" class="subnav">
      {tabs.map(([id, label]) => <a key={id} href={href('audit', id)} aria-current={current === id ? 'page' : undefined}>{label}</a>)}
    </nav>
  );
}

const NO_NAMES: ReadonlyMap<string, string> = new Map();

/**
 * Names by id of what audit pages show by id: API keys (actors, readers), rules, contexts, prompts and
 * secrets (by key). Read once per page; an id nothing names (a revoked key, `env-admin`) stays an id.
 */
export function useAuditNames(api: Api): ReadonlyMap<string, string> {
  const [loaded] = useLoad(() => loadAuditNames(api), [api]);
  return loaded.state === 'ready' ? loaded.value : NO_NAMES;
}

/** The names `useAuditNames` holds, read from the admin lists. */
export async function loadAuditNames(api: Api): Promise<Map<string, string>> {
  const [keys, rules, contexts, prompts, secrets] = await Promise.all([listApiKeys(api), listRules(api), listContexts(api), listPrompts(api), listSecrets(api)]);
  const names = namesOf({ contexts, prompts }, rules);
  for (const key of keys) names.set(key.id, key.name);
  for (const secret of secrets) names.set(secret.id, secret.key);
  return names;
}

/** The id a stream is of (`rule-<id>`, `apikey-<id>`, ...). */
const streamId = (stream: string) => stream.slice(stream.indexOf('-') + 1);

export function HistoryPage({ api, ruleId }: { api: Api; ruleId: string | undefined }) {
  const [rules] = useLoad(() => listRules(api), [api]);
  const names = useAuditNames(api);
  const history = usePages((cursor) => (ruleId === undefined ? Promise.resolve({ items: [], next_cursor: null }) : ruleHistoryPage(api, ruleId, cursor)), [api, ruleId]);
  return (
    <section aria-labelledby="history-title">
      <AuditNav current="history" />
      <h2 id="history-title">Rule history</h2>
      <Show loaded={rules} what="rules">{(list) => (
        <Field label="Rule">{(id) => (
          <select id={id} value={ruleId ?? ''} onChange={(e) => go('audit', 'history', e.currentTarget.value)}>
            <option value="">choose a rule…</option>
            {list.map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
          </select>
        )}</Field>
      )}</Show>
      <Show loaded={history.pages} what="the history">{({ items }) => ruleId === undefined ? <p>Choose a rule to see every change made to it.</p> : (
        <ol class="history">
          {items.map((event) => (
            <li key={event.position}>
              <h3>{event.type} <small>revision {event.revision} · position {event.position} · by <Named id={event.actor} names={names} /> · {when(event.at)}</small></h3>
              {Object.entries(event.changes).map(([member, change]) => (
                <div key={member} class="change">
                  <h4>{member}</h4>
                  <DiffView label={`${member} before and after`} before={pretty(change.before)} after={pretty(change.after)} />
                </div>
              ))}
            </li>
          ))}
        </ol>
      )}</Show>
      <MoreButton paged={history} label="Load more history" />
    </section>
  );
}

export function EventsPage({ api }: { api: Api }) {
  const [filter, setFilter] = useState<EventFilter>({ limit: '50' });
  const [pages, setPages] = useState<AuditPage[]>([]);
  const action = useAction();
  const names = useAuditNames(api);
  const load = (after?: string) => action.run(async () => {
    const page = await auditEvents(api, { ...filter, after });
    setPages(after === undefined ? [page] : [...pages, page]);
  }, after === undefined ? () => setPages([]) : undefined);
  const set = (name: keyof EventFilter) => (e: { currentTarget: HTMLInputElement }) => setFilter({ ...filter, [name]: e.currentTarget.value });
  const last = pages[pages.length - 1];
  return (
    <section aria-labelledby="events-title">
      <AuditNav current="events" />
      <h2 id="events-title">Event log</h2>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); void load(); }}>
        <Field label="Stream" hint="A name or a prefix: rule-">{(id, hint) => <input id={id} aria-describedby={hint} value={filter.stream ?? ''} onInput={set('stream')} />}</Field>
        <Field label="Type" hint="Comma-separated">{(id, hint) => <input id={id} aria-describedby={hint} value={filter.type ?? ''} onInput={set('type')} />}</Field>
        <Field label="Actor">{(id) => <input id={id} value={filter.actor ?? ''} onInput={set('actor')} />}</Field>
        <Field label="From" hint="ISO time with a zone">{(id, hint) => <input id={id} aria-describedby={hint} value={filter.from ?? ''} onInput={set('from')} />}</Field>
        <Field label="To" hint="ISO time with a zone">{(id, hint) => <input id={id} aria-describedby={hint} value={filter.to ?? ''} onInput={set('to')} />}</Field>
        <button type="submit" disabled={action.busy}>Show events</button>
      </form>
      <ErrorBox error={action.error} />
      {pages.length > 0 && (
        <table class="list">
          <thead><tr><th scope="col">Position</th><th scope="col">Stream</th><th scope="col">Type</th><th scope="col">Actor</th><th scope="col">At</th></tr></thead>
          <tbody>
            {pages.flatMap((p) => p.events).map((e) => (
              <tr key={e.position}>
                <td>{e.position}</td>
                <td><code>{e.stream}</code>{names.has(streamId(e.stream)) && <> <span class="name">{names.get(streamId(e.stream))}</span></>}</td>
                <td>{e.type}</td><td><Named id={e.actor} names={names} /></td><td>{when(e.at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {last?.scan_limit_reached && <p class="hint">The filtered scan stopped early; load more to continue.</p>}
      {last?.size_limit_reached && <p class="hint">This page reached about 8 MB of event data; load more to continue.</p>}
      {last?.next !== null && last?.next !== undefined && <button type="button" class="secondary" disabled={action.busy} onClick={() => void load(last.next!)}>Load more</button>}
    </section>
  );
}

export function AsOfPage({ api }: { api: Api }) {
  const [asOf, setAsOf] = useState('');
  const [entityType, setEntityType] = useState<EntityType>('context');
  const [fields, setFields] = useState('{}');
  const [result, setResult] = useState<AuditEvaluateResponse | undefined>();
  const action = useAction();
  const run = () => action.run(async () => {
    const request = parsePastedRequest(JSON.stringify({ entity_type: entityType, fields: parseFields(fields) }));
    setResult(await auditEvaluate(api, { ...request, as_of: asOf.trim(), explain: true }));
  }, () => setResult(undefined));
  return (
    <section aria-labelledby="asof-title">
      <AuditNav current="as-of" />
      <h2 id="asof-title">Evaluate as of a past point</h2>
      <form class="panel" onSubmit={(e) => { e.preventDefault(); void run(); }}>
        <Field label="As of" hint="An ISO 8601 time with a zone (2026-01-01T12:00:00Z) or a log position (a whole number)">{(id, hint) => (
          <input id={id} aria-describedby={hint} required value={asOf} onInput={(e) => setAsOf(e.currentTarget.value)} />
        )}</Field>
        <Field label="Entity type">{(id) => (
          <select id={id} value={entityType} onChange={(e) => setEntityType(e.currentTarget.value as EntityType)}>
            <option value="context">context</option><option value="prompt">prompt</option><option value="evaluation">evaluation</option>
          </select>
        )}</Field>
        <Field label="Fields (JSON object)">{(id) => <textarea id={id} rows={4} value={fields} onInput={(e) => setFields(e.currentTarget.value)} />}</Field>
        <button type="submit" disabled={action.busy}>Evaluate as of</button>
      </form>
      <ErrorBox error={action.error} />
      {result !== undefined && (
        <div class="test-result" aria-live="polite">
          <p class="meta">Answered as of position {result.as_of.position ?? 'none (before the first event)'}{result.as_of.at !== null ? `, ${when(result.as_of.at)}` : ''}</p>
          <AnswerView answer={result} names={new Map((result.explain ?? []).map((r) => [r.rule_id, r.name]))} />
          <h4>Explanation per rule</h4>
          <ExplainView explanations={result.explain ?? []} />
        </div>
      )}
    </section>
  );
}

function parseFields(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`fields are not JSON: ${(e as Error).message}`);
  }
}

export function DigestPage({ api }: { api: Api }) {
  const [digest, reload] = useLoad(() => auditDigest(api), [api]);
  return (
    <section aria-labelledby="digest-title">
      <AuditNav current="digest" />
      <h2 id="digest-title">Digest</h2>
      <p>The SHA-256 of the live read models: equal to <code>npm run audit -- replay</code> computes offline from a copy of the log.</p>
      <button type="button" class="secondary" onClick={reload}>Refresh</button>
      <Show loaded={digest} what="the digest">{(d) => (
        <dl class="digest">
          <dt>SHA-256</dt><dd><code>{d.sha256}</code></dd>
          <dt>Position</dt><dd>{d.position ?? 'none'}</dd>
          {Object.entries(d.counts).map(([name, count]) => <Fragment key={name}><dt>{name.replace('_', ' ')}</dt><dd>{count}</dd></Fragment>)}
        </dl>
      )}</Show>
    </section>
  );
}
