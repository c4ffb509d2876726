/**
 * Fold of the `change-request-<id>` streams and the `protections` stream:
 * what is protected, and every change request with its state, approvals and
 * comments (docs/decisions/0062-change-requests.md); and the `test-cases`
 * stream, the one test-case set requests run (ADR 0067). Records are
 * replaced, never mutated, so a time-travel copy may share them.
 */
import type { Change, ChangeRequestEvent, ChangeResult, PlannedAppend, ProtectionEvent, ResourceRef, StoredEvent, TestCaseEvent } from '../src/events';

export const REQUEST_STATES = ['draft', 'in_review', 'approved', 'applied', 'rejected', 'withdrawn', 'stale'] as const;
export type RequestState = (typeof REQUEST_STATES)[number];

export interface Approval {
  readonly by: string;
  readonly at: string;
  /** The request revision the approver read. */
  readonly revision: string;
  readonly override?: string;
}

export interface RequestComment {
  readonly by: string;
  readonly at: string;
  readonly text: string;
}

export interface ChangeRequestRecord {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly changes: readonly Change[];
  /**
   * As the log says: never `approved`, which depends on RULEVAULT_APPROVALS_REQUIRED, a setting
   * the fold does not read; the service answers `approved` for an in-review request with enough approvals.
   */
  readonly state: RequestState;
  readonly author: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly approvals: readonly Approval[];
  readonly comments: readonly RequestComment[];
  /** EventStoreDB: the plan written by ChangeRequestApplying, until ChangeRequestApplied. */
  readonly applying?: { readonly plan: readonly PlannedAppend[]; readonly results: readonly ChangeResult[]; readonly by: string };
  /** What the apply did (state applied). */
  readonly results?: readonly ChangeResult[];
  /** Why it was rejected, withdrawn or went stale, and who said so. */
  readonly closed?: { readonly by: string; readonly at: string; readonly reason: string; readonly resource?: ResourceRef };
  /** Revision of the request's stream after its last event: its ETag. */
  readonly revision: bigint;
  readonly position: bigint;
}

export interface ProtectionRecord {
  readonly resource: ResourceRef;
  readonly protected_by: string;
  readonly protected_at: string;
}

/** The test-case set as the last TestCasesSet left it. */
export interface TestCaseSetRecord {
  /** NDJSON, one case a line (ADR 0066); empty: no cases. */
  readonly text: string;
  readonly count: number;
  readonly set_by: string;
  readonly set_at: string;
  /** The applied change request that set it. */
  readonly change_request: string | null;
  /** Revision of the `test-cases` stream. */
  readonly revision: bigint;
}

export interface ChangeControlState {
  /** By resourceKey. */
  readonly protections: Map<string, ProtectionRecord>;
  readonly requests: Map<string, ChangeRequestRecord>;
  /** Revision of the `protections` stream; undefined before its first event. */
  protectionsRevision: bigint | undefined;
  /** BreakGlassUsed events in the log (rulevault_break_glass_total). */
  breakGlassUses: number;
  /** Undefined before the first TestCasesSet. */
  testCases: TestCaseSetRecord | undefined;
}

export function initialChangeControl(): ChangeControlState {
  return { protections: new Map(), requests: new Map(), protectionsRevision: undefined, breakGlassUses: 0, testCases: undefined };
}

/** The one key of a resource: `rule:<id>`, `prompt-label:<id>:<label>`. */
export function resourceKey(ref: ResourceRef): string {
  return ref.label === undefined ? `${ref.type}:${ref.id}` : `${ref.type}:${ref.id}:${ref.label}`;
}

export function evolveChangeControl(state: ChangeControlState, event: StoredEvent<ChangeRequestEvent | ProtectionEvent | TestCaseEvent>): ChangeControlState {
  const { actor, at } = event.metadata;
  switch (event.type) {
    case 'TestCasesSet':
      state.testCases = {
        text: event.data.text, count: event.data.count, set_by: actor, set_at: at, change_request: event.metadata.change_request ?? null, revision: event.revision,
      };
      return state;
    case 'ResourceProtected':
      state.protectionsRevision = event.revision;
      state.protections.set(resourceKey(event.data.resource), { resource: event.data.resource, protected_by: actor, protected_at: at });
      return state;
    case 'ResourceUnprotected':
      state.protectionsRevision = event.revision;
      state.protections.delete(resourceKey(event.data.resource));
      return state;
    case 'BreakGlassUsed':
      state.protectionsRevision = event.revision;
      state.breakGlassUses++;
      return state;
    case 'ChangeRequestOpened': {
      const { id, title, description, changes } = event.data;
      state.requests.set(id, {
        id, title, description, changes, state: 'draft', author: actor, created_at: at, updated_at: at,
        approvals: [], comments: [], revision: event.revision, position: event.position,
      });
      return state;
    }
    default: {
      const previous = state.requests.get(event.data.id);
      if (previous !== undefined) state.requests.set(previous.id, { ...nextRequest(previous, event), updated_at: at, revision: event.revision, position: event.position });
      return state;
    }
  }
}

function nextRequest(r: ChangeRequestRecord, event: StoredEvent<ChangeRequestEvent>): ChangeRequestRecord {
  const { actor: by, at } = event.metadata;
  switch (event.type) {
    case 'ChangeRequestRevised': {
      const { changes, title, description } = event.data;
      // Any revision clears every approval: an approval approves only what its approver read.
      return {
        ...r, approvals: [],
        ...(changes === undefined ? {} : { changes }), ...(title === undefined ? {} : { title }), ...(description === undefined ? {} : { description }),
      };
    }
    case 'ChangeRequestSubmitted':
      return { ...r, state: 'in_review' };
    case 'ChangeRequestApproved': {
      const approval: Approval = { by, at, revision: event.data.revision, ...(event.data.override === undefined ? {} : { override: event.data.override }) };
      return { ...r, approvals: [...r.approvals, approval] };
    }
    case 'ChangeRequestRejected':
      return { ...r, state: 'rejected', closed: { by, at, reason: event.data.reason } };
    case 'ChangeRequestWithdrawn':
      return { ...r, state: 'withdrawn', closed: { by, at, reason: event.data.reason } };
    case 'ChangeRequestCommented':
      return { ...r, comments: [...r.comments, { by, at, text: event.data.text }] };
    case 'ChangeRequestApplying':
      return { ...r, applying: { plan: event.data.plan, results: event.data.results, by } };
    case 'ChangeRequestApplied': {
      const { applying: _applying, ...rest } = r;
      return { ...rest, state: 'applied', results: event.data.results };
    }
    case 'ChangeRequestStale':
      return { ...r, state: 'stale', closed: { by, at, reason: event.data.reason, resource: event.data.resource } };
    case 'ChangeRequestOpened':
      return r;
  }
}
