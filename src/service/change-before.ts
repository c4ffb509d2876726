/**
 * What each change of a request replaces: the resource as it was at the
 * revision the change is pinned to (docs/change-requests.md#before). An
 * approve key reads no rule, context or prompt route, so the request's
 * answer carries the resources it names, and only those.
 */
import type { CatalogState, ContextRecord, PromptRecord, RuleRecord } from '../../projections';
import type { ChangeRequestRecord } from '../../projections/change-control';
import type { Change } from '../events';
import type { TemplateLimits } from '../prompts/template';
import { StreamDeletedError, type EventStore } from '../store/port';
import { recordAt } from './change-revert';
import { contextAdminView, promptAdminView, ruleView } from './views';

type Resource = RuleRecord | ContextRecord | PromptRecord;

/**
 * The revision a change replaces: for an applied request the one its apply
 * found, else the one it was drafted against; none for a create, a protect
 * or an unprotect (nor, below, for the test-case set).
 */
function replacedRevision(record: ChangeRequestRecord, index: number): string | undefined {
  const change = record.changes[index]!;
  if (change.op === 'create' || change.op === 'protect' || change.op === 'unprotect') return undefined;
  return record.state === 'applied' ? record.results?.[index]?.before_revision : change.base_revision;
}

function liveRecord(state: CatalogState, type: 'rule' | 'context' | 'prompt', id: string): Resource | undefined {
  return type === 'rule' ? state.rules.get(id) : type === 'context' ? state.contexts.get(id) : state.prompts.get(id);
}

/** As GET of the resource answers it; a prompt at the version its label names (a label change), else its newest. */
function viewOf(record: Resource, change: Change, limits: TemplateLimits) {
  if (change.resource.type === 'rule') return ruleView(record as RuleRecord);
  if (change.resource.type === 'context') return contextAdminView(record as ContextRecord);
  const prompt = record as PromptRecord;
  const labelled = change.resource.label === undefined ? undefined : prompt.labels[change.resource.label];
  const version = prompt.versions.find((v) => v.version === labelled) ?? prompt.versions[prompt.versions.length - 1]!;
  return promptAdminView(prompt, version, limits);
}

export type ChangeBefore = ReturnType<typeof viewOf> | null;

/**
 * Each change's `before`: the live record while its revision is still the
 * one replaced, else the record at that revision folded from its stream;
 * null where nothing is replaced or the stream is gone.
 */
export async function changesBefore(store: EventStore, state: CatalogState, record: ChangeRequestRecord, limits: TemplateLimits): Promise<ChangeBefore[]> {
  return Promise.all(record.changes.map(async (change, index) => {
    const revision = replacedRevision(record, index);
    if (revision === undefined) return null;
    // The test-case set is read whole at GET /api/test-cases; a set-test-cases change says all it replaces with.
    if (change.resource.type === 'test-cases') return null;
    const type = change.resource.type === 'prompt-label' ? 'prompt' : change.resource.type;
    const live = liveRecord(state, type, change.resource.id);
    if (live !== undefined && live.revision === BigInt(revision)) return viewOf(live, change, limits);
    const then = await recordAt(store, type, change.resource.id, BigInt(revision)).catch((error: unknown) => {
      if (error instanceof StreamDeletedError) return undefined;
      throw error;
    });
    return then === undefined ? null : viewOf(then, change, limits);
  }));
}
