/**
 * Fold of the `prompt-<id>` streams. Each version's template (each message's,
 * for a chat version) is wrapped here and parsed nothing: it is parsed on
 * first use and compiled on first render, once, so replaying or restoring
 * many prompts costs no template work.
 *
 * The state keeps an index of names. Names are unique since labels came in,
 * but a log written before may hold two prompts of one name: the index then
 * names the oldest live one (creation order, which a snapshot and a copy
 * keep), and falls back to the next when it is renamed or deleted.
 */
import type { PromptEvent, PromptMessage, PromptVersionBody, StoredEvent } from '../src/events';
import { compareVersions } from '../src/prompts/semver';
import { compilePromptTemplate, type PromptTemplate } from '../src/prompts/template';
import { runSteps, type Steps } from '../src/base/steps';
import { copyMap, eachInSteps } from './copy-steps';
import { created, touched } from './provenance';
import type { PromptRecord, PromptVersion } from './records';

export interface PromptsState extends Map<string, PromptRecord> {
  /** The id of the prompt holding each name (exact, case-sensitive). */
  readonly idsByName: Map<string, string>;
}

export function initialPrompts(records: Iterable<[string, PromptRecord]> = []): PromptsState {
  return runSteps(promptsFrom(records));
}

/** `initialPrompts(records)` in steps (copy-steps.ts: time travel copies the prompts so). */
export function* promptsFrom(records: Iterable<[string, PromptRecord]>): Steps<PromptsState> {
  const state = yield* copyMap(records, Object.assign(new Map<string, PromptRecord>(), { idsByName: new Map<string, string>() }));
  yield* eachInSteps(state.values(), (prompt) => {
    if (!state.idsByName.has(prompt.name)) state.idsByName.set(prompt.name, prompt.id);
  });
  return state;
}

export function evolvePrompts(state: PromptsState, event: StoredEvent<PromptEvent>): PromptsState {
  switch (event.type) {
    case 'PromptCreated': {
      const { id, name, tags, meta_properties, status, version, template, messages, config } = event.data;
      const versions = [promptVersion(version, { template, messages, config }, event)];
      return putPrompt(state, { id, name, tags, meta_properties, status, versions, labels: {}, ...created(event) });
    }
    case 'PromptVersionAdded': {
      const previous = state.get(event.data.id);
      if (previous === undefined) return state;
      const versions = addVersions(previous.versions, [promptVersion(event.data.version, event.data, event)]);
      state.set(previous.id, { ...previous, versions, ...touched(previous, event) });
      return state;
    }
    case 'PromptUpdated': {
      const previous = state.get(event.data.id);
      if (previous === undefined) return state;
      return putPrompt(state, { ...previous, ...event.data.changes, ...touched(previous, event) });
    }
    case 'PromptLabelMoved': {
      const previous = state.get(event.data.id);
      if (previous === undefined) return state;
      const labels = { ...previous.labels, [event.data.label]: event.data.version };
      state.set(previous.id, { ...previous, labels, ...touched(previous, event) });
      return state;
    }
    case 'PromptLabelRemoved': {
      const previous = state.get(event.data.id);
      if (previous === undefined) return state;
      const { [event.data.label]: _removed, ...labels } = previous.labels;
      state.set(previous.id, { ...previous, labels, ...touched(previous, event) });
      return state;
    }
    case 'PromptDeleted':
      return dropPrompt(state, event.data.id);
  }
}

/** `versions` and `added` in ascending semantic-version order: the fold's and the stream client's (src/service/evaluation-view.ts) one way. */
export function addVersions(versions: readonly PromptVersion[], added: readonly PromptVersion[]): PromptVersion[] {
  return [...versions, ...added].sort((a, b) => compareVersions(a.version, b.version));
}

/**
 * Stores a prompt record and keeps the name index: a renamed prompt gives its old
 * name up (to the oldest other holder, if any). The fold and the client's stream
 * state (src/service/evaluation-view.ts) both go through here.
 */
export function putPrompt(state: PromptsState, record: PromptRecord): PromptsState {
  const previous = state.get(record.id);
  state.set(record.id, record);
  if (previous !== undefined && previous.name !== record.name) indexName(state, previous.name);
  if (!state.idsByName.has(record.name)) state.idsByName.set(record.name, record.id);
  return state;
}

/** Removes a prompt; its name passes to the oldest other holder, if any. */
export function dropPrompt(state: PromptsState, id: string): PromptsState {
  const previous = state.get(id);
  state.delete(id);
  if (previous !== undefined) indexName(state, previous.name);
  return state;
}

/** Points the index at the oldest prompt holding `name` (rare: a rename or a delete), or drops it. */
function indexName(state: PromptsState, name: string): void {
  for (const prompt of state.values()) {
    if (prompt.name === name) {
      state.idsByName.set(name, prompt.id);
      return;
    }
  }
  state.idsByName.delete(name);
}

/** The prompt a reference names: an id, else a name. */
export function findPrompt(state: PromptsState, ref: string): PromptRecord | undefined {
  const byId = state.get(ref);
  if (byId !== undefined) return byId;
  const id = state.idsByName.get(ref);
  return id === undefined ? undefined : state.get(id);
}

/** Which version a caller asks for: a number, a label, or (neither) the latest. */
export type VersionSelector = { readonly version?: string; readonly label?: string };

/** The version a selector names, or undefined (an unknown version, a label not set). */
export function selectVersion(prompt: PromptRecord, selector: VersionSelector): PromptVersion | undefined {
  const latest = prompt.versions[prompt.versions.length - 1];
  if (selector.label !== undefined && selector.label !== LATEST) {
    const version = labelledVersion(prompt, selector.label);
    return version === undefined ? undefined : prompt.versions.find((v) => v.version === version);
  }
  if (selector.version !== undefined) return prompt.versions.find((v) => v.version === selector.version);
  return latest;
}

/**
 * The version `label` names, or undefined when it is not set. An own member
 * only: a label map is a plain object (from the fold, a snapshot, the wire),
 * and `labels.constructor` of one is Object's constructor, not a label.
 */
export function labelledVersion(prompt: PromptRecord, label: string): string | undefined {
  return Object.hasOwn(prompt.labels, label) ? prompt.labels[label] : undefined;
}

/** The label that names the newest version by itself. */
export const LATEST = 'latest';

/** A version as the read model holds it, its templates wrapped (see the top of this file). */
export function promptVersion(
  version: string, body: PromptVersionBody, event: { readonly metadata: { readonly actor: string; readonly at: string } },
): PromptVersion {
  return {
    version,
    template: body.template,
    compiled: wrap(body.template),
    ...(body.messages !== undefined ? { messages: body.messages.map(wrapMessage) } : {}),
    ...(body.config !== undefined ? { config: body.config } : {}),
    created_by: event.metadata.actor,
    created_at: event.metadata.at,
  };
}

/** A version as sent without its compiled templates (the change stream), compiled again (lazily, like the fold's). */
export function recompiledVersion(version: Omit<PromptVersion, 'compiled' | 'messages'> & { readonly messages?: readonly PromptMessage[] }): PromptVersion {
  const { messages, ...rest } = version;
  return { ...rest, compiled: wrap(version.template), ...(messages !== undefined ? { messages: messages.map(wrapMessage) } : {}) };
}

function wrapMessage(message: PromptMessage) {
  return { role: message.role, content: message.content, compiled: wrap(message.content) };
}

function wrap(source: string): PromptTemplate | undefined {
  const compiled = compilePromptTemplate(source);
  return compiled.ok ? compiled.template : undefined;
}
