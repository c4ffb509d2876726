/** Context commands. Pure. */
import { badRequest, notFound } from '../base/errors';
import type { ContextBody, ContextEvent } from '../events';
import type { ContextRecord } from '../../projections';
import {
  INPUT_LIMITS, changedMembers, checkIfMatch, has, optional, readEnum, readMembers, readMetaProperties, readString, readTags,
  type IfMatch,
} from './input';

const STATUSES = ['ACTIVE', 'INACTIVE'] as const;
const CONTEXT_MEMBERS = ['name', 'description', 'content', 'tags', 'meta_properties', 'status'] as const;

export type ContextPatch = Partial<ContextBody>;

export function parseContextCreate(body: unknown): ContextBody {
  const input = readMembers(body, 'body', CONTEXT_MEMBERS);
  for (const member of ['name', 'content']) if (!has(input, member)) throw badRequest(`${member} is required`);
  return {
    name: readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength }),
    description: optional(input, 'description', (v, p) => readString(v, p, { allowEmpty: true })) ?? '',
    content: readString(input.content, 'content', { allowEmpty: true }),
    tags: optional(input, 'tags', readTags) ?? [],
    meta_properties: optional(input, 'meta_properties', readMetaProperties) ?? {},
    status: optional(input, 'status', (v, p) => readEnum(v, p, STATUSES)) ?? 'ACTIVE',
  };
}

export function parseContextPatch(body: unknown): ContextPatch {
  const input = readMembers(body, 'body', CONTEXT_MEMBERS);
  const patch: { -readonly [K in keyof ContextBody]?: ContextBody[K] } = {};
  if (has(input, 'name')) patch.name = readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength });
  if (has(input, 'description')) patch.description = readString(input.description, 'description', { allowEmpty: true });
  if (has(input, 'content')) patch.content = readString(input.content, 'content', { allowEmpty: true });
  if (has(input, 'tags')) patch.tags = readTags(input.tags, 'tags');
  if (has(input, 'meta_properties')) patch.meta_properties = readMetaProperties(input.meta_properties, 'meta_properties');
  if (has(input, 'status')) patch.status = readEnum(input.status, 'status', STATUSES);
  return patch;
}

export function decideCreateContext(id: string, body: ContextBody): ContextEvent[] {
  return [{ type: 'ContextCreated', data: { id, ...body } }];
}

/** A PATCH that changes nothing decides no event. */
export function decideUpdateContext(
  id: string,
  current: ContextRecord | undefined,
  patch: ContextPatch,
  ifMatch: IfMatch | undefined,
): ContextEvent[] {
  if (current === undefined) throw notFound('context', id);
  checkIfMatch('context', id, current.revision, ifMatch);
  const changes = changedMembers<ContextBody>(current, patch);
  return Object.keys(changes).length === 0 ? [] : [{ type: 'ContextUpdated', data: { id, changes } }];
}

/** Rules that link to the context are unlinked first (see decideUnlinkEntity). */
export function decideDeleteContext(id: string, current: ContextRecord | undefined, ifMatch: IfMatch | undefined): ContextEvent[] {
  if (current === undefined) throw notFound('context', id);
  checkIfMatch('context', id, current.revision, ifMatch);
  return [{ type: 'ContextDeleted', data: { id } }];
}
