/**
 * Change requests (docs/change-requests.md): the list by state, and one
 * request with its diff per resource (before and after, a rule's conditions
 * readable), approvals, comments, history, and the steps its state and the
 * key's scopes allow, its impact and test results (change-request-checks.tsx).
 * An approval sends If-Match of the revision shown, so a request that moved
 * since is a 409 and the page reloads it; while a test case fails it asks for
 * an override reason.
 */
import { useState } from 'preact/hooks';
import {
  ApiError, approveChangeRequest, changeRequestHistoryPage, changeRequestStep, changeRequestsPage, changeRequestTestResults, getChangeRequest, getContext,
  getPrompt, getRule, type Api, type Change, type ChangeRequest, type ChangeRequestEvent, type ChangeRequestRead, type ChangeRequestState, type ChangeWithBefore,
} from '../api';
import { resourceWords } from '../protection';
import { changeTexts, type Current } from '../resource-text';
import { go, href } from '../router';
import { can, type Session } from '../session';
import { DiffView, ErrorBox, Field, MoreButton, Named, Show, useAction, useLoad, usePages, when } from '../ui';
import { loadAuditNames } from './audit';
import { ImpactView, TestResultsView } from './change-request-checks';

const STATES: readonly ChangeRequestState[] = ['draft', 'in_review', 'approved', 'applied', 'rejected', 'withdrawn', 'stale'];

/** Names by id: an admin key reads them (keys, rules, contexts, prompts); any key knows its own name. */
function useNames(api: Api, session: Session): ReadonlyMap<string, string> {
  const [loaded] = useLoad(async () => {
    const names = can(session, 'admin') ? await loadAuditNames(api) : new Map<string, string>();
    return names.set(session.who.id, session.who.name);
  }, [api, session]);
  return loaded.state === 'ready' ? loaded.value : new Map([[session.who.id, session.who.name]]);
}

const approvalsText = (r: ChangeRequest) => `${r.approvals.length}/${r.approvals_required}`;

export function ChangeRequestsPage({ api, session }: { api: Api; session: Session }) {
  const [state, setState] = useState<ChangeRequestState | ''>('');
  const paged = usePages((cursor) => changeRequestsPage(api, state || undefined, cursor), [api, state]);
  const names = useNames(api, session);
  return (
    <section aria-labelledby="requests-title">
      <div class="title-row">
        <h2 id="requests-title">Change requests</h2>
        <button type="button" class="secondary" onClick={paged.reload}>Refresh</button>
      </div>
      <p class="hint">A protected rule, context, prompt or label changes only through an approved request. Open one from a refused edit, or by <em>Unprotect…</em>.</p>
      <form class="filters" aria-label="Filter change requests" onSubmit={(e) => e.preventDefault()}>
        <Field label="State">{(id) => (
          <select id={id} value={state} onChange={(e) => setState(e.currentTarget.value as ChangeRequestState | '')}>
            <option value="">any</option>
            {STATES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        )}</Field>
      </form>
      <Show loaded={paged.pages} what="change requests">{({ items }) => items.length === 0 ? <p role="status">No change request{state === '' ? ' yet' : ` is ${state}`}.</p> : (
        <table class="list" aria-label="change requests">
          <thead><tr><th scope="col">State</th><th scope="col">Title</th><th scope="col">Author</th><th scope="col">Approvals</th><th scope="col">Updated</th></tr></thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id}>
                <td><span class={`status state-${r.state}`}>{r.state}</span></td>
                <td><a href={href('changes', r.id)}>{r.title}</a></td>
                <td><Named id={r.author} names={names} /></td>
                <td>{approvalsText(r)}</td>
                <td>{when(r.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Show>
      <MoreButton paged={paged} label="Load 50 more" />
    </section>
  );
}

export function ChangeRequestPage({ api, session, id }: { api: Api; session: Session; id: string }) {
  const [loaded, reload] = useLoad(() => getChangeRequest(api, id), [api, id]);
  // Kept here, not in the request's view: a reload after a refused step re-renders that view.
  const [notice, setNotice] = useState<Error | undefined>();
  const names = useNames(api, session);
  return (
    <section aria-labelledby="request-title">
      <div class="title-row"><h2 id="request-title">Change request</h2><a href={href('changes')}>Back to change requests</a></div>
      <ErrorBox error={notice} />
      <Show loaded={loaded} what="the change request">{(request) => (
        <RequestView api={api} session={session} request={request} names={names}
          onStep={(error) => { setNotice(error); reload(); }} />
      )}</Show>
    </section>
  );
}

/** A refused step that means the request moved or closed: shown above the request, which is read again. */
function isMoved(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 409;
}

function RequestView({ api, session, request, names, onStep }: {
  api: Api; session: Session; request: ChangeRequestRead; names: ReadonlyMap<string, string>; onStep: (notice: Error | undefined) => void;
}) {
  const [reason, setReason] = useState('');
  const [override, setOverride] = useState('');
  const [tests] = useLoad(() => changeRequestTestResults(api, request.id), [api, request.id, request.revision]);
  // A failing case blocks the approval unless the approver says why it stands (the reason is recorded).
  const failing = tests.state === 'ready' && tests.value.failed > 0;
  const action = useAction();
  const admin = can(session, 'admin');
  const approver = can(session, 'approve');
  const author = request.author === session.who.id;
  const { state } = request;
  const open = state === 'draft' || state === 'in_review' || state === 'approved';

  /** Runs a step; a 409 (moved, stale, closed) is shown above the request, read again; another error stays here. */
  const step = (run: () => Promise<unknown>, moved?: (error: ApiError) => Error) => action.run(async () => {
    try {
      await run();
      onStep(undefined);
    } catch (error) {
      if (!isMoved(error)) throw error;
      onStep(moved?.(error) ?? error);
    }
  });
  const approve = () => step(() => approveChangeRequest(api, request.id, request.revision, failing ? override.trim() : undefined), (error) => error.code === 'stale' || /test case/.test(error.message) ? error
    : new ApiError(409, `This request moved since you read revision ${request.revision} (an edit, a comment or another approval): ` +
      `it is shown again as it is now; read it before you approve. (${error.message})`, error.code));

  return (
    <div class="panel">
      <h3>{request.title}</h3>
      <dl class="digest">
        <dt>State</dt><dd><span class={`status state-${state}`}>{state}</span>{request.applying && ' (applying: the plan is written, not yet finished)'}</dd>
        <dt>Author</dt><dd><Named id={request.author} names={names} /></dd>
        <dt>Opened</dt><dd>{when(request.created_at)}</dd>
        <dt>Updated</dt><dd>{when(request.updated_at)} · revision {request.revision}</dd>
        <dt>Approvals</dt><dd>{approvalsText(request)}{request.approvals.length > 0 && (
          <ul class="plain">{request.approvals.map((a) => (
            <li key={a.by}><Named id={a.by} names={names} /> at {when(a.at)} (revision {a.revision}){a.override !== undefined && `, override: ${a.override}`}</li>
          ))}</ul>
        )}</dd>
        {request.closed !== null && <><dt>Closed</dt><dd>{request.closed.reason || state} · by <Named id={request.closed.by} names={names} /> at {when(request.closed.at)}
          {request.closed.resource !== undefined && <> · {resourceWords(request.closed.resource, names.get(request.closed.resource.id))}</>}</dd></>}
      </dl>
      {request.description !== '' && <p>{request.description}</p>}

      <div class="actions" aria-label="Steps">
        {state === 'draft' && admin && <button type="button" disabled={action.busy} onClick={() => void step(() => changeRequestStep(api, request.id, 'submit'))}>Submit for review</button>}
        {state === 'in_review' && approver && !author && !request.approvals.some((a) => a.by === session.who.id) && (
          <>
            {failing && (
              <Field label="Override reason" hint="Test cases fail: approving anyway needs a reason, recorded with the approval">{(fieldId, hint) => (
                <input id={fieldId} aria-describedby={hint} value={override} onInput={(e) => setOverride(e.currentTarget.value)} />
              )}</Field>
            )}
            <button type="button" disabled={action.busy || tests.state === 'loading' || (failing && override.trim() === '')} onClick={() => void approve()}>
              {failing ? 'Approve with override' : 'Approve'} revision {request.revision}
            </button>
          </>
        )}
        {state === 'approved' && admin && <button type="button" disabled={action.busy} onClick={() => void step(() => changeRequestStep(api, request.id, 'apply'))}>Apply</button>}
        {state === 'applied' && admin && <button type="button" disabled={action.busy} onClick={() => void step(async () => go('changes', (await changeRequestStep(api, request.id, 'revert')).id))}>Open a revert</button>}
      </div>
      {open && (approver || admin) && (
        <form class="row" aria-label="Reject or withdraw" onSubmit={(e) => e.preventDefault()}>
          <Field label="Reason" hint={approver && state !== 'draft' ? 'Required to reject; optional to withdraw' : 'Optional'}>{(fieldId, hint) => (
            <input id={fieldId} aria-describedby={hint} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          )}</Field>
          {approver && state !== 'draft' && (
            <button type="button" class="danger" disabled={action.busy || reason.trim() === ''}
              onClick={() => void step(() => changeRequestStep(api, request.id, 'reject', { reason: reason.trim() }))}>Reject</button>
          )}
          {admin && (
            <button type="button" class="secondary" disabled={action.busy}
              onClick={() => void step(() => changeRequestStep(api, request.id, 'withdraw', reason.trim() === '' ? {} : { reason: reason.trim() }))}>Withdraw</button>
          )}
        </form>
      )}
      <ErrorBox error={action.error} />
      {state === 'in_review' && author && approver && <p class="hint">This key opened the request: another key approves it.</p>}

      <h3>Changes</h3>
      <ol class="changes">
        {request.changes.map((change, i) => <li key={i}><ChangeView api={api} session={session} request={request} change={change} names={names} /></li>)}
      </ol>
      {/* Computed over the catalog as it is: for an open request only (a closed one's pins have moved on). */}
      {open && <ImpactView api={api} request={request} names={names} />}
      {open && <TestResultsView loaded={tests} />}
      <Comments api={api} session={session} request={request} names={names} onComment={() => onStep(undefined)} />
      <History api={api} request={request} names={names} />
    </div>
  );
}

/** Ops whose before and after the change itself says. */
const SELF_DESCRIBED: readonly Change['op'][] = ['create', 'protect', 'unprotect', 'set-test-cases'];

/** Where a pending change's resource is now, against the revision it is pinned to. */
type Live = { readonly kind: 'pinned' } | { readonly kind: 'moved'; readonly revision: string } | { readonly kind: 'gone' };

/**
 * An admin key reads the resource now, to warn that an apply will be stale;
 * undefined where there is nothing to check or the key cannot read it (an
 * approve key sees `before` only: the apply names what moved).
 */
async function liveOf(api: Api, session: Session, request: ChangeRequest, change: Change): Promise<Live | undefined> {
  if (!can(session, 'admin') || request.state === 'applied' || SELF_DESCRIBED.includes(change.op) || change.base_revision === undefined) return undefined;
  const { type, id } = change.resource;
  try {
    const now = type === 'rule' ? await getRule(api, id) : type === 'context' ? await getContext(api, id) : await getPrompt(api, id);
    return now.revision === change.base_revision ? { kind: 'pinned' } : { kind: 'moved', revision: now.revision };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { kind: 'gone' };
    throw error;
  }
}

/** The change's `before` from the request's answer: any key that reads the request sees it (docs/change-requests.md#before). */
const beforeOf = (change: ChangeWithBefore): Current => (change.before === null ? { kind: 'gone' } : { kind: 'read', value: change.before });

function ChangeView({ api, session, request, change, names }: {
  api: Api; session: Session; request: ChangeRequest; change: ChangeWithBefore; names: ReadonlyMap<string, string>;
}) {
  const [live] = useLoad(() => liveOf(api, session, request, change), [api, request.revision, request.state, change.resource.id, change.base_revision]);
  const before = beforeOf(change);
  // The name it had, else the one it is given (a create).
  const words = resourceWords(change.resource, change.before?.name ?? names.get(change.resource.id) ?? (change.body as { name?: string } | undefined)?.name);
  const texts = changeTexts(change, before, names);
  const now = live.state === 'ready' ? live.value : undefined;
  return (
    <div class="change">
      <h4>{change.op} {words}</h4>
      <p class="meta">id <code>{change.resource.id}</code>{change.base_revision !== undefined && <> · pinned to revision {change.base_revision}</>}</p>
      {live.state === 'error' && <ErrorBox error={live.error} />}
      {before.kind === 'gone' && !SELF_DESCRIBED.includes(change.op) && <p class="hint">Its revision {change.base_revision} is no longer in the log: shown are the proposed values.</p>}
      {now?.kind === 'gone' && <p class="error">The resource is gone: applying will be stale.</p>}
      {now?.kind === 'moved' && <p class="error">It moved since it was drafted (revision {now.revision} now): applying will be stale.</p>}
      <DiffView label={`${change.op} ${words}: before and after`} before={texts.before} after={texts.after} />
    </div>
  );
}

function Comments({ api, session, request, names, onComment }: {
  api: Api; session: Session; request: ChangeRequest; names: ReadonlyMap<string, string>; onComment: () => void;
}) {
  const [text, setText] = useState('');
  const action = useAction();
  const add = () => action.run(async () => {
    await changeRequestStep(api, request.id, 'comments', { text: text.trim() });
    setText('');
    onComment();
  });
  return (
    <section aria-labelledby="comments-title">
      <h3 id="comments-title">Comments</h3>
      {request.comments.length === 0 ? <p class="meta">No comments yet.</p> : (
        <ol class="history" aria-label="comments">
          {request.comments.map((c, i) => <li key={i}><small><Named id={c.by} names={names} /> · {when(c.at)}</small><p>{c.text}</p></li>)}
        </ol>
      )}
      {(can(session, 'admin') || can(session, 'approve')) && (
        <form aria-label="Add a comment" onSubmit={(e) => { e.preventDefault(); void add(); }}>
          <Field label="Comment" hint="A comment moves the request's revision: an approver reads it again">{(id, hint) => (
            <textarea id={id} aria-describedby={hint} rows={2} required value={text} onInput={(e) => setText(e.currentTarget.value)} />
          )}</Field>
          <button type="submit" disabled={action.busy || text.trim() === ''}>Add comment</button>
          <ErrorBox error={action.error} />
        </form>
      )}
    </section>
  );
}

/** Why a step was taken, from its event's data: a reason, a comment, an override. */
function why(event: ChangeRequestEvent): string {
  const data = event.data as { reason?: string; text?: string; override?: string; title?: string };
  return data.reason ?? data.text ?? data.override ?? data.title ?? '';
}

function History({ api, request, names }: { api: Api; request: ChangeRequest; names: ReadonlyMap<string, string> }) {
  const paged = usePages((cursor) => changeRequestHistoryPage(api, request.id, cursor), [api, request.id, request.revision]);
  return (
    <section aria-labelledby="request-history-title">
      <h3 id="request-history-title">History</h3>
      <Show loaded={paged.pages} what="the history">{({ items }) => (
        <table class="list" aria-label="history">
          <thead><tr><th scope="col">Step</th><th scope="col">Who</th><th scope="col">When</th><th scope="col">Why</th></tr></thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.position}>
                <td>{e.type.replace(/^ChangeRequest/, '')}</td><td><Named id={e.actor} names={names} /></td><td>{when(e.at)}</td><td>{why(e)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Show>
      <MoreButton paged={paged} label="Load more history" />
    </section>
  );
}
