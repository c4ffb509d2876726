/**
 * What the API shows of each record. Revisions and positions leave as decimal
 * strings (bigints never reach JSON); secret values and key hashes never leave.
 */
import type {
  ApiKeyRecord, ContextRecord, PromptRecord, PromptVersion, Provenance, RuleRecord, SecretRecord,
} from '../../projections';
import type { TemplateLimits } from '../prompts/template';
import { toJsonPosition } from '../store/port';
import { rawPrompt, versionType, versionVariables } from './prompt-render';

function provenance(record: Provenance) {
  return {
    created_by: record.created_by,
    created_at: record.created_at,
    updated_at: record.updated_at,
    revision: toJsonPosition(record.revision),
    position: toJsonPosition(record.position),
  };
}

export function ruleView(rule: RuleRecord) {
  return {
    id: rule.id,
    name: rule.name,
    description: rule.description,
    status: rule.status,
    group_operator: rule.group_operator,
    condition_groups: rule.condition_groups,
    entities: rule.entities,
    // Every rule answers both: its key is its id unless it was given one, and a rule without a split has [].
    key: rule.key ?? rule.id,
    splits: rule.splits ?? [],
    ...provenance(rule),
  };
}

/** The contract's entity record of a context (also what evaluate returns in entity_data). */
export function contextView(context: ContextRecord) {
  return {
    id: context.id,
    name: context.name,
    description: context.description,
    content: context.content,
    tags: context.tags,
    meta_properties: context.meta_properties,
    status: context.status,
    created_by: context.created_by,
    created_at: context.created_at,
    updated_at: context.updated_at,
  };
}

export function contextAdminView(context: ContextRecord) {
  return { ...contextView(context), ...provenance(context) };
}

/** A prompt at one version; `labels` maps every label, `latest` included, to the version it names. */
export function promptAdminView(prompt: PromptRecord, version: PromptVersion, limits: TemplateLimits) {
  const labels = promptLabels(prompt);
  const labelsOf = (v: string) => Object.keys(labels).filter((label) => labels[label] === v).sort();
  return {
    id: prompt.id,
    name: prompt.name,
    version: version.version,
    type: versionType(version),
    prompt: rawPrompt(version),
    variables: versionVariables(version, limits),
    config: version.config ?? null,
    labels,
    tags: prompt.tags,
    meta_properties: prompt.meta_properties,
    status: prompt.status,
    versions: prompt.versions.map((v) => ({ version: v.version, labels: labelsOf(v.version), created_by: v.created_by, created_at: v.created_at })),
    ...provenance(prompt),
  };
}

/** The prompt's labels with `latest` (the newest version), sorted by name. */
export function promptLabels(prompt: PromptRecord): { [label: string]: string } {
  const all: { [label: string]: string } = { ...prompt.labels, latest: prompt.versions[prompt.versions.length - 1]!.version };
  return Object.fromEntries(Object.keys(all).sort().map((label) => [label, all[label]!]));
}

export function secretView(secret: SecretRecord) {
  return { id: secret.id, key: secret.key, tags: secret.tags, version: secret.version, ...provenance(secret) };
}

export function apiKeyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    secret_tags: key.secret_tags,
    created_by: key.created_by,
    created_at: key.created_at,
  };
}
