/** Context commands. Pure. */
import { badRequest, conflict, notFound } from '../errors';
import type { ContextBody, ContextEvent } from '../events';
import type { ContextRecord } from '../../projections';
import {
  INPUT_LIMITS, has, optional, readEnum, readMetaProperties, readString, readTags, requireObject,
} from './input';

const STATUSES = ['ACTIVE', 'INACTIVE'] as const;

export type ContextPatch = Partial<ContextBody>;

export function parseContextCreate(body: unknown): ContextBody {
  const input = requireObject(body, 'body');
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
  const input = requireObject(body, 'body');
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

export function decideUpdateContext(
  id: string,
  current: ContextRecord | undefined,
  patch: ContextPatch,
  expectedRevision: bigint | undefined,
): ContextEvent[] {
  if (current === undefined) throw notFound('context', id);
  if (expectedRevision !== undefined && expectedRevision !== current.revision) {
    throw conflict(`context ${id} is at revision ${current.revision}, not ${expectedRevision}`);
  }
  return [{ type: 'ContextUpdated', data: { id, changes: patch } }];
}

export function decideDeleteContext(id: string, current: ContextRecord | undefined): ContextEvent[] {
  if (current === undefined) throw notFound('context', id);
  return [{ type: 'ContextDeleted', data: { id } }];
}
