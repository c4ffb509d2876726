/** How an event leaves the API (audit log, rule history): bigints as decimal strings. */
import { toJsonPosition, type RecordedEvent } from '../store/port';

/** An event as the audit log and rule history show it (positions and revisions as decimal strings). */
export function eventView(event: RecordedEvent) {
  return {
    type: event.type,
    revision: toJsonPosition(event.revision),
    position: toJsonPosition(event.position),
    actor: event.metadata.actor,
    at: event.metadata.at,
    request_id: event.metadata.request_id,
    data: event.data,
    metadata: event.metadata,
  };
}
