/**
 * Change requests and protections: read model -> decide -> append, as the
 * catalog's commands (docs/change-requests.md, ADR 0062). Apply appends its
 * plan in one atomic write on the embedded store; on EventStoreDB it writes
 * the plan first (ChangeRequestApplying), then each stream with the plan's
 * event ids, then ChangeRequestApplied, and a plan left part way is finished
 * by the next apply or the next start (`finishPending`).
 */
import { AppError, badRequest, conflict, notFound } from '../base/errors';
import { crashPoint } from '../base/crash-points';
import { planApply } from '../domain/change-apply';
import {
  changeRequestOf, currentRevision, decideApprove, decideComment, decideOpen, decideReject, decideRevise, decideSubmit, decideWithdraw,
  parseOpen, parseRevise, readText, requestState, type DraftContext,
} from '../domain/change-requests';
import { readMembers, type IfMatch } from '../domain/input';
import { CHANGE_REQUESTS_ROUTE, readResourceRef } from '../domain/protection';
import { resourceKey, type ChangeRequestRecord } from '../../projections/change-control';
import { findPrompt } from '../../projections/prompts';
import { PROTECTIONS_STREAM, streams, type ChangeRequestEvent, type PlannedAppend, type ResourceRef } from '../events';
import type { TemplateLimits } from '../prompts/template';
import type { ReadModel } from '../read-model/read-model';
import { ConcurrencyError, type EventStore, type ExpectedRevision } from '../store/port';
import { toNewEvents, type Actor, type CommandBus, type IdentifiedEvent, type Runtime } from './command-bus';
import { revertChanges } from './change-revert';
import { flagKeysOf } from './flag-keys';

export interface ChangeRequestDeps {
  readonly bus: CommandBus;
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly runtime: Runtime;
  readonly maxRegexLength: number;
  readonly templateLimits: TemplateLimits;
  readonly approvalsRequired: number;
  /**
   * The test cases a request fails against the catalog it would produce (src/audit/change-request-checks.ts, given by
   * main.ts: the audit layer sits above this one). An approval is refused while one fails, unless it overrides.
   */
  readonly failingCases?: (record: ChangeRequestRecord) => Promise<readonly { readonly name: string; readonly line: number }[]>;
}

/** A change request as the API answers it. */
export function changeRequestView(r: ChangeRequestRecord, required: number) {
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    state: requestState(r, required),
    author: r.author,
    created_at: r.created_at,
    updated_at: r.updated_at,
    revision: r.revision.toString(),
    changes: r.changes,
    approvals: r.approvals,
    approvals_required: required,
    comments: r.comments,
    /** EventStoreDB: the plan is written and not yet finished. */
    applying: r.applying !== undefined,
    results: r.results ?? null,
    closed: r.closed ?? null,
  };
}

export type ChangeRequestView = ReturnType<typeof changeRequestView>;

const expectedOf = (text: string): ExpectedRevision => (text === 'no_stream' ? 'no_stream' : BigInt(text));

export function createChangeRequestCommands({ bus, store, readModel, runtime, maxRegexLength, templateLimits, approvalsRequired, failingCases }: ChangeRequestDeps) {
  const state = readModel.state;
  const control = state.changeControl;
  const draft: DraftContext = { state, templateLimits, newId: runtime.newId };
  const view = (id: string) => changeRequestView(changeRequestOf(control, id), approvalsRequired);
  const stream = (id: string) => streams.changeRequest(id);
  /** Appends a step of request `id`, decided on the request as it is now. */
  async function step(id: string, ifMatch: IfMatch | undefined, actor: Actor, decide: () => ChangeRequestEvent[]): Promise<ChangeRequestView> {
    return bus.withRetry(ifMatch, async () => {
      const current = control.requests.get(id);
      const events = decide();
      await bus.append(stream(id), current?.revision ?? 'no_stream', events, actor);
      return view(id);
    });
  }

  /** True when `stream` holds, from `expected` on, exactly the plan's event ids: that append was done before. */
  async function alreadyAppended(planned: PlannedAppend): Promise<boolean> {
    const from = planned.expected === 'no_stream' ? 0n : BigInt(planned.expected) + 1n;
    const events = await store.readStream(planned.stream, { fromRevision: from });
    return planned.events.every((event, i) => events[i]?.id === event.id);
  }

  /** EventStoreDB: appends what the plan of `record` has not yet, then ChangeRequestApplied. Inside the bus's section. */
  async function finishPlan(record: ChangeRequestRecord, actor: Actor): Promise<void> {
    const { plan, results, by } = record.applying!;
    const writer: Actor = { id: by, requestId: actor.requestId, changeRequest: record.id };
    const at = runtime.now().toISOString();
    for (const [i, planned] of plan.entries()) {
      try {
        await store.append(planned.stream, toNewEvents(planned.events as unknown as IdentifiedEvent[], writer, at), expectedOf(planned.expected));
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || !(await alreadyAppended(planned))) throw applyStopped(record.id, planned.stream, error);
      }
      if (i === 0) crashPoint('apply:part-way');
    }
    await bus.append(stream(record.id), record.revision, [{ type: 'ChangeRequestApplied', data: { id: record.id, results } }], writer);
  }

  async function apply(id: string, actor: Actor): Promise<ChangeRequestView> {
    return bus.withRetry(undefined, async () => {
      const record = changeRequestOf(control, id);
      // Applying twice applies once: the second answers what the first did.
      if (record.state === 'applied') return view(id);
      if (record.applying !== undefined) {
        await finishPlan(record, actor);
        return view(id);
      }
      const now = requestState(record, approvalsRequired);
      if (now === 'stale') throw new AppError('stale', `change request ${id} is stale: ${record.closed?.reason ?? 'a resource moved'}`);
      if (now !== 'approved') {
        throw conflict(`change request ${id} is ${now.replace('_', ' ')}: it applies once approved (${record.approvals.length} of ${approvalsRequired} approvals)`);
      }
      const outcome = planApply(record, { state, maxRegexLength, templateLimits, keyHolder: (key) => flagKeysOf(readModel).holderOf(key) });
      if ('stale' in outcome) {
        const { resource, reason } = outcome.stale;
        await bus.append(stream(id), record.revision, [{ type: 'ChangeRequestStale', data: { id, resource, reason } }], actor);
        throw new AppError('stale', `change request ${id} is stale, nothing was applied: ${reason}`);
      }
      const writer: Actor = { ...actor, changeRequest: id };
      const appends = outcome.plan.map(({ stream: name, expected, events }) => ({
        stream: name, expected, events: events.map((event): IdentifiedEvent => ({ ...event, id: runtime.newId() })),
      }));
      const applied: ChangeRequestEvent = { type: 'ChangeRequestApplied', data: { id, results: outcome.results } };
      if (store.appendAtomically !== undefined) {
        // Every resource and the request's own step: one transaction, one fsync.
        await bus.appendBatch([...appends, { stream: stream(id), expected: record.revision, events: [applied] }], writer);
        return view(id);
      }
      const plan: PlannedAppend[] = appends.map(({ stream: name, expected, events }) => ({
        stream: name,
        expected: expected === 'no_stream' ? 'no_stream' : String(expected),
        events: events.map((event) => ({ id: event.id!, type: event.type, data: event.data as unknown as PlannedAppend['events'][number]['data'] })),
      }));
      await bus.append(stream(id), record.revision, [{ type: 'ChangeRequestApplying', data: { id, plan, results: outcome.results } }], actor);
      crashPoint('apply:after-plan');
      await finishPlan(changeRequestOf(control, id), actor);
      return view(id);
    });
  }

  /** The resource a protection names, with a prompt's name resolved to its id; 404 when it does not exist. */
  function existing(value: unknown): ResourceRef {
    const given = readResourceRef(value, 'resource');
    const prompt = given.type === 'prompt' || given.type === 'prompt-label' ? findPrompt(state.prompts, given.id) : undefined;
    const resource = prompt === undefined ? given : { ...given, id: prompt.id };
    if (currentRevision(state, resource) === undefined) throw notFound(resource.type === 'prompt-label' ? 'prompt' : resource.type, resource.id);
    return resource;
  }

  return {
    async openChangeRequest(body: unknown, actor: Actor) {
      const id = runtime.newId();
      return bus.withRetry(undefined, async () => {
        const input = parseOpen(body, draft);
        await bus.append(stream(id), 'no_stream', decideOpen(id, input), actor);
        return view(id);
      });
    },
    reviseChangeRequest(id: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor) {
      return step(id, ifMatch, actor, () => decideRevise(control, id, parseRevise(body, draft), ifMatch, approvalsRequired));
    },
    submitChangeRequest(id: string, actor: Actor) {
      return step(id, undefined, actor, () => decideSubmit(control, id, approvalsRequired));
    },
    /** A failing test case blocks it (409 naming the cases) unless the approver overrides with a reason, kept in the event. */
    async approveChangeRequest(id: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor) {
      const override = readText(body, 'override', false);
      return bus.withRetry(ifMatch, async () => {
        const record = changeRequestOf(control, id);
        const events = decideApprove(control, id, actor.id, ifMatch, approvalsRequired, override);
        const failing = override === undefined && failingCases !== undefined ? await failingCases(record) : [];
        if (failing.length > 0) throw casesFail(id, failing);
        // In the section no other write of this node lands while the cases run; the expected revision catches any other.
        await bus.append(stream(id), record.revision, events, actor);
        return view(id);
      });
    },
    rejectChangeRequest(id: string, body: unknown, actor: Actor) {
      const reason = readText(body, 'reason', true)!;
      return step(id, undefined, actor, () => decideReject(control, id, reason, approvalsRequired));
    },
    withdrawChangeRequest(id: string, body: unknown, actor: Actor) {
      const reason = readText(body, 'reason', false) ?? '';
      return step(id, undefined, actor, () => decideWithdraw(control, id, reason, approvalsRequired));
    },
    commentChangeRequest(id: string, body: unknown, actor: Actor) {
      const text = readText(body, 'text', true)!;
      return step(id, undefined, actor, () => decideComment(control, id, text));
    },
    applyChangeRequest: apply,
    /** Opens a draft that undoes an applied request (change-revert.ts); it goes through review like any other. */
    async revertChangeRequest(id: string, actor: Actor) {
      const record = changeRequestOf(control, id);
      const changes = await revertChanges(store, record);
      const newId = runtime.newId();
      return bus.withRetry(undefined, async () => {
        const input = parseOpen({ title: `Revert: ${record.title}`.slice(0, 256), description: `Reverts change request ${id}.`, changes }, draft);
        await bus.append(stream(newId), 'no_stream', decideOpen(newId, input), actor);
        return view(newId);
      });
    },

    /** Protects a resource at once: it only adds a check. Protecting a protected one writes nothing. */
    async protect(body: unknown, actor: Actor) {
      return bus.withRetry(undefined, async () => {
        const object = readMembers(body, 'body', ['resource']);
        if (object.resource === undefined) throw badRequest('resource is required: {"type": "rule" | "context" | "prompt" | "prompt-label", "id", "label"?}');
        const resource = existing(object.resource);
        if (!control.protections.has(resourceKey(resource))) {
          await bus.append(PROTECTIONS_STREAM, 'any', [{ type: 'ResourceProtected', data: { resource } }], actor);
        }
        return control.protections.get(resourceKey(resource))!;
      });
    },

    /** EventStoreDB: finishes every plan a stopped node left part way (at start, once caught up). */
    async finishPending(actor: Actor): Promise<number> {
      const pending = [...control.requests.values()].filter((r) => r.applying !== undefined && r.state !== 'applied');
      for (const record of pending) await bus.withRetry(undefined, () => finishPlan(changeRequestOf(control, record.id), actor));
      return pending.length;
    },
  };
}

function casesFail(id: string, failing: readonly { readonly name: string; readonly line: number }[]): AppError {
  const names = failing.slice(0, 20).map((c) => `${JSON.stringify(c.name)} (line ${c.line})`).join(', ');
  return conflict(`change request ${id} fails ${failing.length} test case${failing.length === 1 ? '' : 's'}: ${names}${failing.length > 20 ? ', …' : ''}; ` +
    `see ${CHANGE_REQUESTS_ROUTE}/${id}/test-results, or approve with {"override": "<reason>"} to approve it anyway (the reason is recorded)`);
}

function applyStopped(id: string, stream: string, error: unknown): AppError {
  return new AppError('conflict', `change request ${id}: its plan could not append to ${stream}, which moved outside the plan ` +
    `(${error instanceof Error ? error.message : 'unknown error'}); apply it again once the cause is resolved (${CHANGE_REQUESTS_ROUTE}/${id}/apply)`);
}

export type ChangeRequestCommands = ReturnType<typeof createChangeRequestCommands>;
