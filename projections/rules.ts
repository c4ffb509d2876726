/** Fold of the `rule-<id>` streams into rule records. */
import type { RuleEvent, StoredEvent } from '../src/events';
import { created, touched } from './provenance';
import type { RuleRecord } from './records';

export type RulesState = Map<string, RuleRecord>;

export function evolveRules(state: RulesState, event: StoredEvent<RuleEvent>): RulesState {
  switch (event.type) {
    case 'RuleCreated': {
      const { id, name, description, status, group_operator, condition_groups, entities } = event.data;
      state.set(id, { id, name, description, status, group_operator, condition_groups, entities, ...created(event) });
      return state;
    }
    case 'RuleUpdated': {
      const previous = state.get(event.data.id);
      if (previous !== undefined) state.set(previous.id, { ...previous, ...event.data.changes, ...touched(previous, event) });
      return state;
    }
    case 'RuleDeleted':
      state.delete(event.data.id);
      return state;
  }
}
