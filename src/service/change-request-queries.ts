/** The reads of change requests and protections (docs/change-requests.md): from the read model, a request's history from its stream. */
import type { CatalogState } from '../../projections';
import { AppError, notFound } from '../base/errors';
import { readEnum } from '../domain/input';
import { REQUEST_STATES } from '../../projections/change-control';
import { requestState } from '../domain/change-requests';
import { parseCases } from '../domain/test-cases';
import { streams } from '../events';
import type { ReadModel } from '../read-model/read-model';
import type { TemplateLimits } from '../prompts/template';
import type { EventStore } from '../store/port';
import { changesBefore } from './change-before';
import { changeRequestView } from './change-request-commands';
import { eventView } from './event-view';
import { compareDecimal, compareText, pageOf, parsePageQuery } from './listing';

type Query = { readonly [name: string]: string | undefined };

export const CHANGE_REQUEST_FILTERS = ['state'] as const;

/** `templateLimits`: a prompt's `before` shows its template's variables, parsed under these. */
export function createChangeRequestQueries(store: EventStore, readModel: ReadModel, approvalsRequired: number, templateLimits: TemplateLimits) {
  const control = readModel.state.changeControl;
  return {
    /** The request with each change's `before` (change-before.ts): what an approver compares the proposal with. */
    async getChangeRequest(id: string) {
      const record = control.requests.get(id);
      if (record === undefined) throw notFound('change request', id);
      const view = changeRequestView(record, approvalsRequired);
      const before = await changesBefore(store, readModel.state, record, templateLimits);
      // The view read before the await: a step landing meanwhile shows in the next read, and the ETag stays this view's.
      return { ...view, changes: view.changes.map((change, i) => ({ ...change, before: before[i] ?? null })) };
    },
    /**
     * The request as it was at a past point (`then`: the audit's as-of
     * state), its state computed with the approvals required now (a fold
     * reads no setting). 404 when it was not opened yet.
     */
    changeRequestAsOf(id: string, then: { readonly state: CatalogState; readonly as_of: { readonly position: string | null; readonly at: string | null } }) {
      const record = then.state.changeControl.requests.get(id);
      if (record === undefined) throw new AppError('not_found', `change request ${id} was not opened yet at as_of (position ${then.as_of.position ?? 'none'})`);
      return { ...changeRequestView(record, approvalsRequired), as_of: then.as_of };
    },
    /** Sorted by id; `state` keeps those in it. */
    listChangeRequests(query: Query = {}) {
      const wanted = query.state === undefined ? undefined : readEnum(query.state, 'state', REQUEST_STATES);
      const sorted = [...control.requests.values()].sort((a, b) => compareText(a.id, b.id));
      const page = pageOf('change_requests', sorted, (r) => r.id, (r) => wanted === undefined || requestState(r, approvalsRequired) === wanted,
        parsePageQuery('change_requests', query));
      return { change_requests: page.items.map((r) => changeRequestView(r, approvalsRequired)), next_cursor: page.next_cursor };
    },
    /** Every step of the request, who, when and why: its stream. */
    async changeRequestHistory(id: string, query: Query = {}) {
      const events = await store.readStream(streams.changeRequest(id));
      if (events.length === 0) throw notFound('change request', id);
      const page = pageOf('change_request_history', events.map(eventView), (e) => e.revision, () => true, parsePageQuery('change_request_history', query), compareDecimal);
      return { events: page.items, next_cursor: page.next_cursor };
    },
    /** The node's test-case set (ADR 0067): its NDJSON text and its cases; none yet is an empty set. */
    getTestCases() {
      const set = control.testCases;
      return {
        revision: set?.revision.toString() ?? null,
        count: set?.count ?? 0,
        text: set?.text ?? '',
        cases: set === undefined || set.text === '' ? [] : parseCases(set.text),
        set_by: set?.set_by ?? null,
        set_at: set?.set_at ?? null,
        change_request: set?.change_request ?? null,
      };
    },
    listProtections() {
      const sorted = [...control.protections.entries()].sort(([a], [b]) => compareText(a, b));
      return { protections: sorted.map(([, record]) => record) };
    },
  };
}

export type ChangeRequestQueries = ReturnType<typeof createChangeRequestQueries>;
