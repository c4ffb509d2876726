/** The event decoder: the typed union for a type RuleVault writes, nothing for any other; the encoder is its inverse. */
import t from 'tap';
import { decodeEvent, encodeEventData, type DomainEvent } from '../../src/events';
import type { RecordedEvent } from '../../src/store/port';

const metadata = { actor: 'cli', at: '2026-01-01T00:00:00.000Z', request_id: 'q', schema: 1 };

function recorded(type: string, data: RecordedEvent['data']): RecordedEvent {
  return { id: 'e1', stream: 'rule-r1', type, revision: 0n, position: 5n, data, metadata };
}

t.test('a known type decodes to the typed event, as stored', async (t) => {
  const event = recorded('RuleDeleted', { id: 'r1' });
  const decoded = decodeEvent(event);
  t.equal(decoded, event, 'the same object: no copy per event on a replay');
  if (decoded?.type !== 'RuleDeleted') throw new Error('not narrowed');
  t.equal(decoded.data.id, 'r1');
});

t.test('a type RuleVault does not write decodes to nothing', async (t) => {
  t.equal(decodeEvent(recorded('SomebodyElsesEvent', { id: 'r1' })), undefined);
  t.equal(decodeEvent(recorded('ruledeleted', { id: 'r1' })), undefined, 'type names are exact');
});

t.test('the encoder hands the data over as stored JSON', async (t) => {
  const event: DomainEvent = { type: 'RuleDeleted', data: { id: 'r1' } };
  t.same(encodeEventData(event), { id: 'r1' });
  t.equal(decodeEvent(recorded(event.type, encodeEventData(event)))?.type, 'RuleDeleted');
});
