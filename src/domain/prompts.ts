/** Prompt commands: a prompt is a named series of template versions. Pure. */
import { badRequest, conflict, notFound } from '../errors';
import type { PromptAttributes, PromptEvent } from '../events';
import type { PromptRecord } from '../../projections';
import { compareVersions, nextMinor, parseVersion } from '../prompts/semver';
import { checkPromptTemplate, type TemplateLimits } from '../prompts/template';
import {
  INPUT_LIMITS, changedMembers, checkIfMatch, has, optional, readEnum, readMembers, readMetaProperties, readString, readTags,
  requireObject, type IfMatch,
} from './input';

const STATUSES = ['ACTIVE', 'INACTIVE'] as const;
const PROMPT_PATCH_MEMBERS = ['name', 'tags', 'meta_properties', 'status'] as const;
const PROMPT_MEMBERS = [...PROMPT_PATCH_MEMBERS, 'prompt', 'version'] as const;
const VERSION_MEMBERS = ['prompt', 'version'] as const;
export const FIRST_VERSION = '1.0.0';

export interface PromptCreateInput extends PromptAttributes {
  readonly template: string;
  readonly version: string;
}

export interface PromptVersionInput {
  readonly template: string;
  readonly version: string | undefined;
}

export type PromptPatch = Partial<PromptAttributes>;

export function parsePromptCreate(body: unknown, limits: TemplateLimits): PromptCreateInput {
  const input = readMembers(body, 'body', PROMPT_MEMBERS);
  for (const member of ['name', 'prompt']) if (!has(input, member)) throw badRequest(`${member} is required`);
  return {
    name: readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength }),
    template: readTemplate(input.prompt, limits),
    version: optional(input, 'version', readVersion) ?? FIRST_VERSION,
    tags: optional(input, 'tags', readTags) ?? [],
    meta_properties: optional(input, 'meta_properties', readMetaProperties) ?? {},
    status: optional(input, 'status', (v, p) => readEnum(v, p, STATUSES)) ?? 'ACTIVE',
  };
}

export function parsePromptVersion(body: unknown, limits: TemplateLimits): PromptVersionInput {
  const input = readMembers(body, 'body', VERSION_MEMBERS);
  if (!has(input, 'prompt')) throw badRequest('prompt is required');
  return { template: readTemplate(input.prompt, limits), version: optional(input, 'version', readVersion) };
}

export function parsePromptPatch(body: unknown): PromptPatch {
  const input = requireObject(body, 'body');
  for (const member of ['prompt', 'version']) {
    if (has(input, member)) throw badRequest(`${member} cannot be patched: add a version with POST /api/prompts/:id/versions`);
  }
  readMembers(input, 'body', PROMPT_PATCH_MEMBERS);
  const patch: { -readonly [K in keyof PromptAttributes]?: PromptAttributes[K] } = {};
  if (has(input, 'name')) patch.name = readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength });
  if (has(input, 'tags')) patch.tags = readTags(input.tags, 'tags');
  if (has(input, 'meta_properties')) patch.meta_properties = readMetaProperties(input.meta_properties, 'meta_properties');
  if (has(input, 'status')) patch.status = readEnum(input.status, 'status', STATUSES);
  return patch;
}

export function decideCreatePrompt(id: string, input: PromptCreateInput): PromptEvent[] {
  const { template, version, ...attributes } = input;
  return [{ type: 'PromptCreated', data: { id, version, template, ...attributes } }];
}

export function decideAddPromptVersion(
  id: string,
  current: PromptRecord | undefined,
  input: PromptVersionInput,
  ifMatch: IfMatch | undefined,
): PromptEvent[] {
  if (current === undefined) throw notFound('prompt', id);
  checkIfMatch('prompt', id, current.revision, ifMatch);
  const latest = current.versions[current.versions.length - 1]!.version;
  const version = input.version ?? nextMinor(latest);
  if (compareVersions(version, latest) <= 0) {
    throw conflict(`version ${version} must be greater than the latest version ${latest}`);
  }
  return [{ type: 'PromptVersionAdded', data: { id, version, template: input.template } }];
}

/** A PATCH that changes nothing decides no event. */
export function decideUpdatePrompt(
  id: string,
  current: PromptRecord | undefined,
  patch: PromptPatch,
  ifMatch: IfMatch | undefined,
): PromptEvent[] {
  if (current === undefined) throw notFound('prompt', id);
  checkIfMatch('prompt', id, current.revision, ifMatch);
  const changes = changedMembers<PromptAttributes>(current, patch);
  return Object.keys(changes).length === 0 ? [] : [{ type: 'PromptUpdated', data: { id, changes } }];
}

/** Rules that link to the prompt are unlinked first (see decideUnlinkEntity). */
export function decideDeletePrompt(id: string, current: PromptRecord | undefined, ifMatch: IfMatch | undefined): PromptEvent[] {
  if (current === undefined) throw notFound('prompt', id);
  checkIfMatch('prompt', id, current.revision, ifMatch);
  return [{ type: 'PromptDeleted', data: { id } }];
}

/** A template within the limits (the 400 names the limit's setting) that will render without error. */
function readTemplate(value: unknown, limits: TemplateLimits): string {
  // The size is the pre-scan's to judge, in bytes, against RULEVAULT_TEMPLATE_MAX_BYTES.
  const template = readString(value, 'prompt', { allowEmpty: true, maxLength: Number.MAX_SAFE_INTEGER });
  const checked = checkPromptTemplate(template, limits);
  if (checked.ok) return template;
  throw badRequest(checked.limit ? checked.error : `prompt is not a valid Handlebars template: ${checked.error}`);
}

function readVersion(value: unknown, path: string): string {
  const text = readString(value, path, { maxLength: 64 });
  if (parseVersion(text) === undefined) throw badRequest(`${path} must be MAJOR.MINOR.PATCH, e.g. 1.2.0`);
  return text;
}
