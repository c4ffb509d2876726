/**
 * Events of the `change-request-<id>` streams and of the `protections`
 * stream (docs/decisions/0062-change-requests.md): four eyes on protected
 * rules, contexts, prompts and prompt labels; and of the `test-cases`
 * stream, the test-case set a request runs (ADR 0067).
 */
import type { Json } from '../store/port';

export const CHANGE_OPS = ['create', 'update', 'delete', 'add-version', 'move-label', 'remove-label', 'protect', 'unprotect', 'set-test-cases'] as const;
export type ChangeOp = (typeof CHANGE_OPS)[number];

export const PROTECTABLE_TYPES = ['rule', 'context', 'prompt', 'prompt-label'] as const;
export type ProtectableType = (typeof PROTECTABLE_TYPES)[number];

/** What a change may name: the protectable resources, and the test-case set, which is always under change control (ADR 0067). */
export const RESOURCE_TYPES = [...PROTECTABLE_TYPES, 'test-cases'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** The one test-case set of a node: its change's resource, and its stream (ADR 0067). */
export const TEST_CASES_ID = 'default';
export const TEST_CASES_STREAM = 'test-cases';

/** What a change or a protection names; `label` only (and always) on a prompt-label. */
export interface ResourceRef {
  readonly type: ResourceType;
  readonly id: string;
  readonly label?: string;
}

/** One proposed change: `body` is what the matching direct route takes. */
export interface Change {
  readonly op: ChangeOp;
  readonly resource: ResourceRef;
  /** The resource's stream revision the change was drafted against, decimal; absent for a create and for protect/unprotect. */
  readonly base_revision?: string;
  readonly body?: { readonly [key: string]: Json };
}

/** One event an apply plans, with its id fixed so a repeated append is recognised as done. */
export interface PlannedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: { readonly [key: string]: Json };
}

/** One stream's part of an apply's plan. */
export interface PlannedAppend {
  readonly stream: string;
  /** `no_stream`, or the decimal revision the stream must be at. */
  readonly expected: string;
  readonly events: readonly PlannedEvent[];
}

/** What an apply did to one change's resource. */
export interface ChangeResult {
  readonly op: ChangeOp;
  readonly resource: ResourceRef;
  /** The resource's revision before the apply (absent for a create), and after it; decimal. */
  readonly before_revision?: string;
  readonly revision?: string;
}

export type ChangeRequestEvent =
  | { readonly type: 'ChangeRequestOpened'; readonly data: { readonly id: string; readonly title: string; readonly description: string; readonly changes: readonly Change[] } }
  | { readonly type: 'ChangeRequestRevised'; readonly data: { readonly id: string; readonly changes?: readonly Change[]; readonly title?: string; readonly description?: string } }
  | { readonly type: 'ChangeRequestSubmitted'; readonly data: { readonly id: string } }
  /** The approver is the event's actor; `revision` the request revision the approval read. */
  | { readonly type: 'ChangeRequestApproved'; readonly data: { readonly id: string; readonly revision: string; readonly override?: string } }
  | { readonly type: 'ChangeRequestRejected'; readonly data: { readonly id: string; readonly reason: string } }
  | { readonly type: 'ChangeRequestWithdrawn'; readonly data: { readonly id: string; readonly reason: string } }
  | { readonly type: 'ChangeRequestCommented'; readonly data: { readonly id: string; readonly text: string } }
  /** EventStoreDB only: every event the apply will append, before any is. */
  | { readonly type: 'ChangeRequestApplying'; readonly data: { readonly id: string; readonly plan: readonly PlannedAppend[]; readonly results: readonly ChangeResult[] } }
  | { readonly type: 'ChangeRequestApplied'; readonly data: { readonly id: string; readonly results: readonly ChangeResult[] } }
  | { readonly type: 'ChangeRequestStale'; readonly data: { readonly id: string; readonly resource: ResourceRef; readonly reason: string } };

export type ProtectionEvent =
  | { readonly type: 'ResourceProtected'; readonly data: { readonly resource: ResourceRef } }
  | { readonly type: 'ResourceUnprotected'; readonly data: { readonly resource: ResourceRef; readonly change_request: string } }
  /** A direct write to a protected resource by a key with the break-glass scope; `operation` names the command. */
  | { readonly type: 'BreakGlassUsed'; readonly data: { readonly resource: ResourceRef; readonly reason: string; readonly operation: string } };

/** The `test-cases` stream: written only by an applied change request (metadata.change_request names it). */
export type TestCaseEvent =
  /** `text`: the set as NDJSON, one case a line (ADR 0066), empty for none; `count`: its cases. */
  | { readonly type: 'TestCasesSet'; readonly data: { readonly text: string; readonly count: number } };
