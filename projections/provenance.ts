import type { StoredEvent } from '../src/events';
import type { Provenance } from './records';

/** Provenance of a resource created by `event`. */
export function created(event: StoredEvent): Provenance {
  return {
    created_by: event.metadata.actor,
    created_at: event.metadata.at,
    updated_at: event.metadata.at,
    revision: event.revision,
    position: event.position,
  };
}

/** Provenance of `previous` after `event` changed it. */
export function touched(previous: Provenance, event: StoredEvent): Provenance {
  return {
    created_by: previous.created_by,
    created_at: previous.created_at,
    updated_at: event.metadata.at,
    revision: event.revision,
    position: event.position,
  };
}
