/**
 * POST /api/prompt/get-compiled (OpenLIT's prompt route), minus HTTP: reads
 * the body OpenLIT's SDKs send and answers the prompt they expect, from the
 * read model. Failures throw AppError; the front door answers them as
 * 200 `{err, res: null}`, as OpenLIT does.
 */
import type { CatalogState } from '../../projections';
import { findPrompt, selectVersion } from '../../projections/prompts';
import { isPlainObject, type JsonObject } from '../domain/input';
import { isLabel, readLabel } from '../domain/prompts';
import { AppError, badRequest } from '../base/errors';
import { parseVersion } from '../prompts/semver';
import { promptVersionId } from '../prompts/version-id';
import type { PromptLimits } from './evaluate';
import { renderVersion } from './prompt-render';

export interface CompiledPromptRequest {
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly version: string | undefined;
  readonly label: string | undefined;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly shouldCompile: boolean;
  readonly strict: boolean;
}

/**
 * `id` or `promptId` (the Python SDK's name for it) and/or `name`; `version`
 * a MAJOR.MINOR.PATCH or a label (OpenLIT's SDKs have no label member);
 * `compile` is the older SDKs' name of `shouldCompile`. Other members
 * (`source`, `metaProperties`, `apiKey`) are ignored.
 */
export function parseCompiledPromptRequest(body: unknown): CompiledPromptRequest {
  if (!isPlainObject(body)) throw badRequest('request body must be a JSON object');
  const id = optionalString(body, 'id');
  const promptId = optionalString(body, 'promptId');
  if (id !== undefined && promptId !== undefined && id !== promptId) throw badRequest('id and promptId name different prompts');
  const name = optionalString(body, 'name');
  if (id === undefined && promptId === undefined && name === undefined) throw badRequest('name, id or promptId is required');
  const version = optionalString(body, 'version');
  const label = body.label === undefined ? undefined : readLabel(body.label, 'label');
  if (version !== undefined && label !== undefined) throw badRequest('give version or label, not both');
  const asVersion = version !== undefined && parseVersion(version) !== undefined;
  if (version !== undefined && !asVersion && !isLabel(version)) {
    throw badRequest('version must be MAJOR.MINOR.PATCH (e.g. 1.2.0) or a label (e.g. production)');
  }
  const variables = body.variables === undefined ? {} : body.variables;
  if (!isPlainObject(variables)) throw badRequest('variables must be an object');
  const compileMember = body.shouldCompile !== undefined ? 'shouldCompile' : 'compile';
  return {
    id: id ?? promptId,
    name,
    version: asVersion ? version : undefined,
    label: asVersion ? undefined : version ?? label,
    variables,
    shouldCompile: optionalBoolean(body, compileMember) ?? false,
    strict: optionalBoolean(body, 'strict') ?? false,
  };
}

export function getCompiledPrompt(state: CatalogState, request: CompiledPromptRequest, limits: PromptLimits) {
  const ref = request.id ?? request.name!;
  const prompt = findPrompt(state.prompts, ref);
  // OpenLIT reads id and name together: both must name this prompt.
  if (prompt === undefined || (request.id !== undefined && prompt.id !== request.id) || (request.name !== undefined && prompt.name !== request.name)) {
    throw new AppError('not_found', `prompt ${describe(request)} not found`);
  }
  if (prompt.status !== 'ACTIVE') throw new AppError('not_found', `prompt ${describe(request)} is ${prompt.status}`);
  const version = selectVersion(prompt, request);
  if (version === undefined) {
    throw new AppError('not_found', request.label !== undefined
      ? `prompt ${describe(request)} has no version labelled ${request.label}`
      : `version ${request.version} of prompt ${describe(request)} not found`);
  }
  const total = limits.responseMaxRenderBytes;
  const budget = { left: total, reason: `the rendered prompt would pass ${total} bytes; the limit is RULEVAULT_RESPONSE_MAX_RENDER_BYTES=${total}` };
  const rendered = renderVersion(version, request, limits, budget);
  if (rendered.error !== undefined) throw badRequest(rendered.error);
  return {
    promptId: prompt.id,
    versionId: promptVersionId(prompt.id, version.version),
    name: prompt.name,
    version: version.version,
    tags: prompt.tags,
    metaProperties: prompt.meta_properties,
    prompt: rendered.prompt,
    compiledPrompt: rendered.compiled,
    type: rendered.type,
    config: version.config ?? null,
    variables: rendered.variables,
    missingVariables: rendered.missing,
  };
}

function describe(request: CompiledPromptRequest): string {
  const shown = request.name ?? request.id!;
  return JSON.stringify(shown.length <= 100 ? shown : `${shown.slice(0, 100)}...`);
}

function optionalString(body: JsonObject, member: string): string | undefined {
  const value = body[member];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw badRequest(`${member} must be a non-empty string`);
  return value;
}

function optionalBoolean(body: JsonObject, member: string): boolean | undefined {
  const value = body[member];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw badRequest(`${member} must be a boolean`);
  return value;
}
