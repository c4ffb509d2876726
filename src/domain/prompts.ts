/** Prompt commands: a prompt is a uniquely named series of versions, with labels naming versions. Pure. */
import { badRequest, conflict, notFound } from '../base/errors';
import type { PromptAttributes, PromptEvent, PromptMessage, PromptVersionBody } from '../events';
import type { PromptRecord } from '../../projections';
import { labelledVersion } from '../../projections/prompts';
import type { Json } from '../store/port';
import { compareVersions, nextMinor, parseVersion } from '../prompts/semver';
import { checkPromptTemplate, type TemplateLimits } from '../prompts/template';
import {
  INPUT_LIMITS, changedMembers, checkIfMatch, has, optional, readArray, readEnum, readMembers, readMetaProperties, readString, readTags,
  requireObject, type IfMatch,
} from './input';

const STATUSES = ['ACTIVE', 'INACTIVE'] as const;
const PROMPT_PATCH_MEMBERS = ['name', 'tags', 'meta_properties', 'status'] as const;
const PROMPT_MEMBERS = [...PROMPT_PATCH_MEMBERS, 'prompt', 'version', 'config'] as const;
const VERSION_MEMBERS = ['prompt', 'version', 'config'] as const;
const MESSAGE_MEMBERS = ['role', 'content'] as const;
export const FIRST_VERSION = '1.0.0';

/** Sizes of a version's chat messages and config (docs/prompts.md#chat-prompts-and-configs). */
export const PROMPT_LIMITS = {
  messages: 100,
  roleLength: 64,
  /** Bytes of the config's JSON text. */
  configBytes: 16 * 1024,
} as const;

/** The labels: `latest` moves by itself; `production` and custom ones by an admin call; only custom ones are removed. */
export const LATEST_LABEL = 'latest';
export const PRODUCTION_LABEL = 'production';
// Starts with a letter, so a label never reads as a version (1.2.0).
const LABEL_PATTERN = /^[a-z][a-z0-9._-]{0,63}$/;

export interface PromptCreateInput extends PromptAttributes, PromptVersionBody {
  readonly version: string;
}

export interface PromptVersionInput extends PromptVersionBody {
  readonly version: string | undefined;
}

export type PromptPatch = Partial<PromptAttributes>;

export function parsePromptCreate(body: unknown, limits: TemplateLimits): PromptCreateInput {
  const input = readMembers(body, 'body', PROMPT_MEMBERS);
  for (const member of ['name', 'prompt']) if (!has(input, member)) throw badRequest(`${member} is required`);
  return {
    name: readString(input.name, 'name', { maxLength: INPUT_LIMITS.nameLength }),
    ...readVersionBody(input, limits),
    version: optional(input, 'version', readVersion) ?? FIRST_VERSION,
    tags: optional(input, 'tags', readTags) ?? [],
    meta_properties: optional(input, 'meta_properties', readMetaProperties) ?? {},
    status: optional(input, 'status', (v, p) => readEnum(v, p, STATUSES)) ?? 'ACTIVE',
  };
}

export function parsePromptVersion(body: unknown, limits: TemplateLimits): PromptVersionInput {
  const input = readMembers(body, 'body', VERSION_MEMBERS);
  if (!has(input, 'prompt')) throw badRequest('prompt is required');
  return { ...readVersionBody(input, limits), version: optional(input, 'version', readVersion) };
}

export function isLabel(value: unknown): value is string {
  return typeof value === 'string' && LABEL_PATTERN.test(value);
}

/** A label name in a URL or a request: lowercase, starting with a letter (400 otherwise). */
export function readLabel(value: unknown, path: string): string {
  if (!isLabel(value)) {
    throw badRequest(`${path} must be a label: a lowercase letter, then up to 63 of a-z, 0-9, '.', '_', '-' (e.g. production)`);
  }
  return value;
}

/** The body of `PUT /api/prompts/:id/labels/:label`: the version the label is to name. */
export function parseLabelMove(body: unknown): { readonly version: string } {
  const input = readMembers(body, 'body', ['version']);
  if (!has(input, 'version')) throw badRequest('version is required: the version the label is to name');
  return { version: readVersion(input.version, 'version') };
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

/** `nameHolder`: the prompt that holds the name already, if any (names are unique). */
export function decideCreatePrompt(id: string, input: PromptCreateInput, nameHolder?: string): PromptEvent[] {
  if (nameHolder !== undefined) throw nameTaken(input.name, nameHolder);
  const { template, messages, config, version, ...attributes } = input;
  return [{ type: 'PromptCreated', data: { id, version, ...versionBody({ template, messages, config }), ...attributes } }];
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
  return [{ type: 'PromptVersionAdded', data: { id, version, ...versionBody(input) } }];
}

/** A PATCH that changes nothing decides no event. `nameHolder`: the prompt holding the patched name, if any. */
export function decideUpdatePrompt(
  id: string,
  current: PromptRecord | undefined,
  patch: PromptPatch,
  ifMatch: IfMatch | undefined,
  nameHolder?: string,
): PromptEvent[] {
  if (current === undefined) throw notFound('prompt', id);
  checkIfMatch('prompt', id, current.revision, ifMatch);
  const changes = changedMembers<PromptAttributes>(current, patch);
  if (changes.name !== undefined && nameHolder !== undefined && nameHolder !== id) throw nameTaken(changes.name, nameHolder);
  return Object.keys(changes).length === 0 ? [] : [{ type: 'PromptUpdated', data: { id, changes } }];
}

/** Points `production` or a custom label at a version of the prompt; to where it already points, no event. */
export function decideMoveLabel(
  id: string, current: PromptRecord | undefined, label: string, move: { readonly version: string }, ifMatch: IfMatch | undefined,
): PromptEvent[] {
  if (current === undefined) throw notFound('prompt', id);
  checkIfMatch('prompt', id, current.revision, ifMatch);
  if (label === LATEST_LABEL) throw badRequest(`the label ${LATEST_LABEL} names the newest version by itself and cannot be moved`);
  if (!current.versions.some((v) => v.version === move.version)) {
    throw badRequest(`version ${move.version} is not a version of prompt ${id}; it has ${current.versions.map((v) => v.version).join(', ')}`);
  }
  const previous = labelledVersion(current, label);
  if (previous === move.version) return [];
  return [{ type: 'PromptLabelMoved', data: { id, label, version: move.version, previous: previous ?? null } }];
}

/** Takes a custom label off its version; `latest` and `production` stay (production is moved, not removed). */
export function decideRemoveLabel(id: string, current: PromptRecord | undefined, label: string, ifMatch: IfMatch | undefined): PromptEvent[] {
  if (current === undefined) throw notFound('prompt', id);
  checkIfMatch('prompt', id, current.revision, ifMatch);
  if (label === LATEST_LABEL || label === PRODUCTION_LABEL) {
    throw badRequest(`the label ${label} cannot be removed, only moved${label === LATEST_LABEL ? ' (and latest moves by itself)' : ''}`);
  }
  const previous = labelledVersion(current, label);
  if (previous === undefined) throw notFound(`label ${label} of prompt`, id);
  return [{ type: 'PromptLabelRemoved', data: { id, label, previous } }];
}

/** Rules that link to the prompt are unlinked first (see decideUnlinkEntity). */
export function decideDeletePrompt(id: string, current: PromptRecord | undefined, ifMatch: IfMatch | undefined): PromptEvent[] {
  if (current === undefined) throw notFound('prompt', id);
  checkIfMatch('prompt', id, current.revision, ifMatch);
  return [{ type: 'PromptDeleted', data: { id } }];
}

function nameTaken(name: string, holder: string) {
  return conflict(`prompt name ${JSON.stringify(name.length <= 100 ? name : `${name.slice(0, 100)}...`)} is taken by prompt ${holder}`);
}

/** The event data of a version: `messages` and `config` only when given. */
function versionBody(body: PromptVersionBody): PromptVersionBody {
  return {
    template: body.template,
    ...(body.messages !== undefined ? { messages: body.messages } : {}),
    ...(body.config !== undefined ? { config: body.config } : {}),
  };
}

/** `prompt` (a template, or a chat: an array of messages) and `config` of a create or a new version. */
function readVersionBody(input: { readonly [key: string]: unknown }, limits: TemplateLimits): PromptVersionBody {
  const config = optional(input, 'config', readConfig);
  const withConfig = config === undefined ? {} : { config };
  if (Array.isArray(input.prompt)) return { template: '', messages: readMessages(input.prompt, limits), ...withConfig };
  return { template: readTemplate(input.prompt, 'prompt', limits), ...withConfig };
}

function readMessages(value: unknown, limits: TemplateLimits): PromptMessage[] {
  const items = readArray(value, 'prompt', PROMPT_LIMITS.messages);
  if (items.length === 0) throw badRequest('prompt, as a chat, must have at least one message');
  return items.map((item, i) => {
    const message = readMembers(item, `prompt[${i}]`, MESSAGE_MEMBERS);
    for (const member of MESSAGE_MEMBERS) if (!has(message, member)) throw badRequest(`prompt[${i}].${member} is required`);
    return {
      role: readString(message.role, `prompt[${i}].role`, { maxLength: PROMPT_LIMITS.roleLength }),
      content: readTemplate(message.content, `prompt[${i}].content`, limits),
    };
  });
}

/** Any JSON object (model, temperature, tools, ...), stored as given within a size bound. */
function readConfig(value: unknown, path: string): { [key: string]: Json } {
  const config = readMetaProperties(value, path);
  const bytes = Buffer.byteLength(JSON.stringify(config), 'utf8');
  if (bytes > PROMPT_LIMITS.configBytes) throw badRequest(`${path} is ${bytes} bytes of JSON; the limit is ${PROMPT_LIMITS.configBytes}`);
  return config;
}

/** A template within the limits (the 400 names the limit's setting) that will render without error. */
function readTemplate(value: unknown, path: string, limits: TemplateLimits): string {
  if (path === 'prompt' && typeof value !== 'string') throw badRequest('prompt must be a string (a template) or an array of {role, content} messages (a chat)');
  // The size is the pre-scan's to judge, in bytes, against RULEVAULT_TEMPLATE_MAX_BYTES.
  const template = readString(value, path, { allowEmpty: true, maxLength: Number.MAX_SAFE_INTEGER });
  const checked = checkPromptTemplate(template, limits);
  if (checked.ok) return template;
  const where = path === 'prompt' ? '' : `${path}: `;
  throw badRequest(checked.limit ? `${where}${checked.error}` : `${path} is not a valid Handlebars template: ${checked.error}`);
}

function readVersion(value: unknown, path: string): string {
  const text = readString(value, path, { maxLength: 64 });
  if (parseVersion(text) === undefined) throw badRequest(`${path} must be MAJOR.MINOR.PATCH, e.g. 1.2.0`);
  return text;
}
