/**
 * Change requests (docs/decisions/0062-change-requests.md): what a draft's
 * changes may hold, and the deciders of a request's steps, open to apply's
 * outcome. Pure: state in, events out. Apply's plan is change-apply.ts.
 */
import { AppError, badRequest, conflict, notFound } from '../base/errors';
import { isCanonicalUuid } from '../base/uuid-text';
import { resourceKey, type ChangeControlState, type ChangeRequestRecord, type RequestState } from '../../projections/change-control';
import type { CatalogState } from '../../projections';
import { findPrompt } from '../../projections/prompts';
import { CHANGE_OPS, RESOURCE_TYPES, TEST_CASES_ID, type Change, type ChangeOp, type ChangeRequestEvent, type ResourceRef } from '../events';
import type { Json } from '../store/port';
import type { TemplateLimits } from '../prompts/template';
import { parseContextCreate, parseContextPatch } from './contexts';
import { checkIfMatch, has, isPlainObject, optional, readArray, readEnum, readMembers, readString, requireObject, type IfMatch, type JsonObject } from './input';
import { parseLabelMove, parsePromptCreate, parsePromptPatch, parsePromptVersion } from './prompts';
import { readResourceRef } from './protection';
import { parseRuleCreate, parseRulePatch } from './rules';
import { parseTestCaseBody } from './test-cases';

export const CHANGE_REQUEST_LIMITS = { changes: 100, titleLength: 256, textLength: 16 * 1024 } as const;

/** Which resource types each op takes. */
const OP_TYPES: { readonly [op in ChangeOp]: readonly ResourceRef['type'][] } = {
  create: ['rule', 'context', 'prompt'],
  update: ['rule', 'context', 'prompt'],
  delete: ['rule', 'context', 'prompt'],
  'add-version': ['prompt'],
  'move-label': ['prompt-label'],
  'remove-label': ['prompt-label'],
  protect: ['rule', 'context', 'prompt', 'prompt-label'],
  unprotect: ['rule', 'context', 'prompt', 'prompt-label'],
  'set-test-cases': ['test-cases'],
};

/** The resource of a set-test-cases: the node's one set. */
const TEST_CASES_REF: ResourceRef = { type: 'test-cases', id: TEST_CASES_ID };

export interface DraftContext {
  readonly state: CatalogState;
  readonly templateLimits: TemplateLimits;
  readonly newId: () => string;
}

/** The revision of the record a resource ref names now, undefined when there is none (a prompt-label: its prompt's). */
export function currentRevision(state: CatalogState, ref: ResourceRef): bigint | undefined {
  switch (ref.type) {
    case 'rule': return state.rules.get(ref.id)?.revision;
    case 'context': return state.contexts.get(ref.id)?.revision;
    case 'test-cases': return state.changeControl.testCases?.revision;
    default: return state.prompts.get(ref.id)?.revision;
  }
}

/** Checks a change's body as its direct route would (400 naming `<path>.body` and the member). */
function checkBody(op: ChangeOp, type: ResourceRef['type'], body: unknown, path: string, limits: TemplateLimits): void {
  const parse: ((body: unknown) => unknown) | undefined = {
    create: { rule: parseRuleCreate, context: parseContextCreate, prompt: (b: unknown) => parsePromptCreate(b, limits) },
    update: { rule: parseRulePatch, context: parseContextPatch, prompt: parsePromptPatch },
    'add-version': { prompt: (b: unknown) => parsePromptVersion(b, limits) },
    'move-label': { 'prompt-label': parseLabelMove },
    'set-test-cases': { 'test-cases': parseTestCaseBody },
  }[op as 'create']?.[type as 'rule'];
  if (parse === undefined) {
    if (body !== undefined) throw badRequest(`${path}.body: a ${op} takes no body`);
    return;
  }
  if (body === undefined) throw badRequest(`${path}.body is required for a ${op}`);
  try {
    parse(body);
  } catch (error) {
    if (error instanceof AppError && error.code === 'bad_request') throw badRequest(`${path}.${error.message.startsWith('body') ? '' : 'body: '}${error.message}`);
    throw error;
  }
}

/**
 * A draft's changes, checked and pinned: each body as its route checks it,
 * each resource that must exist found (a prompt by id or name), and each
 * change without `base_revision` pinned to the resource's revision now. A
 * create gets an id when it has none.
 */
export function readChanges(value: unknown, path: string, context: DraftContext): Change[] {
  const items = readArray(value, path, CHANGE_REQUEST_LIMITS.changes);
  if (items.length === 0) throw badRequest(`${path} must hold at least one change`);
  return items.map((item, i) => readChange(item, `${path}[${i}]`, context));
}

function readChange(value: unknown, path: string, { state, templateLimits, newId }: DraftContext): Change {
  const object = readMembers(value, path, ['op', 'resource', 'base_revision', 'body']);
  const op = readEnum(object.op, `${path}.op`, CHANGE_OPS);
  if (!has(object, 'resource') && op === 'create') {
    throw badRequest(`${path}.resource is required: {"type": "rule" | "context" | "prompt"} (the id is given when absent)`);
  }
  if (op === 'set-test-cases') return readSetTestCases(object, path, state, templateLimits);
  const given = isPlainObject(object.resource) && op === 'create' && object.resource.id === undefined
    ? readResourceRef({ ...object.resource, id: newId() }, `${path}.resource`)
    : readResourceRef(object.resource, `${path}.resource`);
  if (!OP_TYPES[op].includes(given.type)) throw badRequest(`${path}.resource.type must be one of ${OP_TYPES[op].join(', ')} for a ${op}`);
  // A prompt (and a label's prompt) may be named by its name, as its routes take it.
  const prompt = given.type === 'prompt' || given.type === 'prompt-label' ? findPrompt(state.prompts, given.id) : undefined;
  const resource: ResourceRef = prompt === undefined || op === 'create' ? given : { ...given, id: prompt.id };
  const body = object.body === undefined ? undefined : requireObject(object.body, `${path}.body`) as { readonly [key: string]: Json };
  checkBody(op, resource.type, body, path, templateLimits);
  const base = optional(object, 'base_revision', (v, p) => readRevision(v, `${path}.${p}`));
  const now = currentRevision(state, resource);
  if (op === 'create') {
    if (!isCanonicalUuid(resource.id)) throw badRequest(`${path}.resource.id must be a lower-case UUID (or absent: one is given)`);
    if (base !== undefined) throw badRequest(`${path}.base_revision: a create has none`);
    if (now !== undefined) throw conflict(`${path}.resource: ${resource.type} ${resource.id} already exists`);
    return { op, resource, ...(body === undefined ? {} : { body }) };
  }
  if (now === undefined) throw notFound(`${path}.resource: ${resource.type === 'prompt-label' ? 'prompt' : resource.type}`, resource.id);
  if (op === 'unprotect' && !state.changeControl.protections.has(resourceKey(resource))) {
    throw conflict(`${path}.resource is not protected`);
  }
  if (op === 'protect' || op === 'unprotect') {
    if (base !== undefined) throw badRequest(`${path}.base_revision: a ${op} has none`);
    return { op, resource };
  }
  return { op, resource, base_revision: (base ?? now).toString(), ...(body === undefined ? {} : { body }) };
}

/**
 * A set-test-cases: the resource may be left out (there is one set, `{"type": "test-cases", "id": "default"}`), and it is
 * pinned to the set's revision now, none before the first set.
 */
function readSetTestCases(object: JsonObject, path: string, state: CatalogState, limits: TemplateLimits): Change {
  if (has(object, 'resource')) {
    const given = readResourceRef(object.resource, `${path}.resource`, RESOURCE_TYPES);
    if (given.type !== 'test-cases' || given.id !== TEST_CASES_ID) throw badRequest(`${path}.resource must be {"type": "test-cases", "id": "${TEST_CASES_ID}"} (or absent) for a set-test-cases`);
  }
  const body = object.body === undefined ? undefined : requireObject(object.body, `${path}.body`) as { readonly [key: string]: Json };
  checkBody('set-test-cases', 'test-cases', body, path, limits);
  const pinned = optional(object, 'base_revision', (v, p) => readRevision(v, `${path}.${p}`)) ?? currentRevision(state, TEST_CASES_REF);
  return { op: 'set-test-cases', resource: TEST_CASES_REF, ...(pinned === undefined ? {} : { base_revision: pinned.toString() }), ...(body === undefined ? {} : { body }) };
}

function readRevision(value: unknown, path: string): bigint {
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]{0,18})$/.test(value)) throw badRequest(`${path} must be a revision as a decimal string ("3")`);
  return BigInt(value);
}

export interface OpenInput {
  readonly title: string;
  readonly description: string;
  readonly changes: readonly Change[];
}

/** POST /api/change-requests: `{title, description?, changes}`. */
export function parseOpen(body: unknown, context: DraftContext): OpenInput {
  const object = readMembers(body, 'body', ['title', 'description', 'changes']);
  if (!has(object, 'title')) throw badRequest('title is required');
  if (!has(object, 'changes')) throw badRequest('changes is required: the proposed changes, each {op, resource, base_revision?, body?}');
  return {
    title: readString(object.title, 'title', { maxLength: CHANGE_REQUEST_LIMITS.titleLength }),
    description: optional(object, 'description', (v, p) => readString(v, p, { allowEmpty: true, maxLength: CHANGE_REQUEST_LIMITS.textLength })) ?? '',
    changes: readChanges(object.changes, 'changes', context),
  };
}

/** PATCH /api/change-requests/:id: any of `{title, description, changes}`. */
export function parseRevise(body: unknown, context: DraftContext): Partial<OpenInput> {
  const object = readMembers(body, 'body', ['title', 'description', 'changes']);
  const revision = {
    ...(has(object, 'title') ? { title: readString(object.title, 'title', { maxLength: CHANGE_REQUEST_LIMITS.titleLength }) } : {}),
    ...(has(object, 'description') ? { description: readString(object.description, 'description', { allowEmpty: true, maxLength: CHANGE_REQUEST_LIMITS.textLength }) } : {}),
    ...(has(object, 'changes') ? { changes: readChanges(object.changes, 'changes', context) } : {}),
  };
  if (Object.keys(revision).length === 0) throw badRequest('body must hold title, description or changes');
  return revision;
}

/** A reason or a comment's text. */
export function readText(body: unknown, member: 'reason' | 'text' | 'override', required: boolean): string | undefined {
  const object = body === undefined && !required ? {} : readMembers(body, 'body', [member]);
  if (!has(object, member)) {
    if (required) throw badRequest(`${member} is required`);
    return undefined;
  }
  return readString(object[member], member, { maxLength: CHANGE_REQUEST_LIMITS.textLength });
}

/** The state a reader sees: `approved` once an in-review request holds `required` approvals. */
export function requestState(record: ChangeRequestRecord, required: number): RequestState {
  return record.state === 'in_review' && record.approvals.length >= required ? 'approved' : record.state;
}

function found(control: ChangeControlState, id: string): ChangeRequestRecord {
  const record = control.requests.get(id);
  if (record === undefined) throw notFound('change request', id);
  return record;
}

function refuseClosed(record: ChangeRequestRecord, required: number, step: string): void {
  const state = requestState(record, required);
  if (state === 'stale') {
    throw new AppError('stale', `change request ${record.id} is stale (${record.closed?.reason ?? 'a resource moved'}); open a new one`);
  }
  if (state === 'applied' || state === 'rejected' || state === 'withdrawn') throw conflict(`change request ${record.id} is ${state}: it cannot be ${step}`);
}

export function decideOpen(id: string, input: OpenInput): ChangeRequestEvent[] {
  return [{ type: 'ChangeRequestOpened', data: { id, title: input.title, description: input.description, changes: input.changes } }];
}

export function decideRevise(control: ChangeControlState, id: string, revision: Partial<OpenInput>, ifMatch: IfMatch | undefined, required: number): ChangeRequestEvent[] {
  const record = found(control, id);
  checkIfMatch('change request', id, record.revision, ifMatch);
  refuseClosed(record, required, 'revised');
  return [{ type: 'ChangeRequestRevised', data: { id, ...revision } }];
}

export function decideSubmit(control: ChangeControlState, id: string, required: number): ChangeRequestEvent[] {
  const record = found(control, id);
  refuseClosed(record, required, 'submitted');
  if (record.state !== 'draft') throw conflict(`change request ${id} is already in review`);
  return [{ type: 'ChangeRequestSubmitted', data: { id } }];
}

/**
 * An approval of the revision the approver read (If-Match, required): by a
 * key with the approve scope that is not the author's and has not approved
 * this revision yet.
 */
export function decideApprove(
  control: ChangeControlState, id: string, approver: string, ifMatch: IfMatch | undefined, required: number, override: string | undefined,
): ChangeRequestEvent[] {
  const record = found(control, id);
  refuseClosed(record, required, 'approved');
  if (ifMatch === undefined || ifMatch === '*') {
    throw new AppError('bad_request', `If-Match is required: the revision of change request ${id} you read (its ETag), so an approval approves only what you saw`);
  }
  checkIfMatch('change request', id, record.revision, ifMatch);
  if (record.state === 'draft') throw conflict(`change request ${id} is a draft: it is submitted for review first`);
  if (record.author === approver) throw new AppError('forbidden', `change request ${id} was opened by this key: its author cannot approve it`);
  if (record.approvals.some((a) => a.by === approver)) throw conflict(`this key has already approved change request ${id}`);
  if (record.approvals.length >= required) throw conflict(`change request ${id} is already approved`);
  return [{ type: 'ChangeRequestApproved', data: { id, revision: record.revision.toString(), ...(override === undefined ? {} : { override }) } }];
}

export function decideReject(control: ChangeControlState, id: string, reason: string, required: number): ChangeRequestEvent[] {
  refuseClosed(found(control, id), required, 'rejected');
  return [{ type: 'ChangeRequestRejected', data: { id, reason } }];
}

export function decideWithdraw(control: ChangeControlState, id: string, reason: string, required: number): ChangeRequestEvent[] {
  refuseClosed(found(control, id), required, 'withdrawn');
  return [{ type: 'ChangeRequestWithdrawn', data: { id, reason } }];
}

export function decideComment(control: ChangeControlState, id: string, text: string): ChangeRequestEvent[] {
  found(control, id);
  return [{ type: 'ChangeRequestCommented', data: { id, text } }];
}

/** The record of a request, 404 when there is none. */
export function changeRequestOf(control: ChangeControlState, id: string): ChangeRequestRecord {
  return found(control, id);
}
