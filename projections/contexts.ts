/** Fold of the `context-<id>` streams into context records. */
import type { ContextEvent, StoredEvent } from '../src/events';
import { created, touched } from './provenance';
import type { ContextRecord } from './records';

export type ContextsState = Map<string, ContextRecord>;

export function evolveContexts(state: ContextsState, event: StoredEvent<ContextEvent>): ContextsState {
  switch (event.type) {
    case 'ContextCreated': {
      const { id, name, description, content, tags, meta_properties, status } = event.data;
      state.set(id, { id, name, description, content, tags, meta_properties, status, ...created(event) });
      return state;
    }
    case 'ContextUpdated': {
      const previous = state.get(event.data.id);
      if (previous !== undefined) state.set(previous.id, { ...previous, ...event.data.changes, ...touched(previous, event) });
      return state;
    }
    case 'ContextDeleted':
      state.delete(event.data.id);
      return state;
  }
}
