/**
 * Fold of the `prompt-<id>` streams. Each version's template is wrapped here
 * and parsed nothing: it is parsed on first use and compiled on first render,
 * once, so replaying or restoring many prompts costs no template work.
 */
import type { PromptEvent, StoredEvent } from '../src/events';
import { compareVersions } from '../src/prompts/semver';
import { compilePromptTemplate } from '../src/prompts/template';
import { created, touched } from './provenance';
import type { PromptRecord, PromptVersion } from './records';

export type PromptsState = Map<string, PromptRecord>;

export function evolvePrompts(state: PromptsState, event: StoredEvent<PromptEvent>): PromptsState {
  switch (event.type) {
    case 'PromptCreated': {
      const { id, name, tags, meta_properties, status, version, template } = event.data;
      const versions = [promptVersion(version, template, event)];
      state.set(id, { id, name, tags, meta_properties, status, versions, ...created(event) });
      return state;
    }
    case 'PromptVersionAdded': {
      const previous = state.get(event.data.id);
      if (previous === undefined) return state;
      const versions = [...previous.versions, promptVersion(event.data.version, event.data.template, event)];
      versions.sort((a, b) => compareVersions(a.version, b.version));
      state.set(previous.id, { ...previous, versions, ...touched(previous, event) });
      return state;
    }
    case 'PromptUpdated': {
      const previous = state.get(event.data.id);
      if (previous !== undefined) state.set(previous.id, { ...previous, ...event.data.changes, ...touched(previous, event) });
      return state;
    }
    case 'PromptDeleted':
      state.delete(event.data.id);
      return state;
  }
}

function promptVersion(version: string, template: string, event: StoredEvent): PromptVersion {
  const compiled = compilePromptTemplate(template);
  return {
    version,
    template,
    compiled: compiled.ok ? compiled.template : undefined,
    created_by: event.metadata.actor,
    created_at: event.metadata.at,
  };
}
