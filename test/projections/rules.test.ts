/** The rule fold: an update changes exactly the members it names and moves the provenance on. */
import t from 'tap';
import { evolve, initialState } from '../../projections';
import type { RecordedEvent } from '../../src/store/port';

function recorded(type: string, data: unknown, revision: bigint, position: bigint, actor: string, at: string): RecordedEvent {
  return { id: `e${position}`, stream: 'rule-r1', type, revision, position, data: data as never, metadata: { actor, at, request_id: 'q', schema: 1 } as never };
}

t.test('RuleUpdated', async (t) => {
  const state = initialState();
  const groups = [{ condition_operator: 'AND', conditions: [{ field: 'a', operator: 'equals', value: 'x', data_type: 'string' }] }];
  evolve(state, recorded('RuleCreated', {
    id: 'r1', name: 'first', description: 'd', status: 'ACTIVE', group_operator: 'AND', condition_groups: groups, entities: [],
  }, 0n, 10n, 'key-a', '2026-01-01T00:00:00.000Z'));
  const created = state.rules.get('r1')!;
  evolve(state, recorded('RuleUpdated', { id: 'r1', changes: { name: 'second', description: '' } }, 1n, 11n, 'key-b', '2026-01-02T00:00:00.000Z'));
  const updated = state.rules.get('r1')!;
  t.same(updated, {
    id: 'r1', name: 'second', description: '', status: 'ACTIVE', group_operator: 'AND', condition_groups: groups, entities: [],
    created_by: 'key-a', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z', revision: 1n, position: 11n,
  }, 'named members change (an empty string included), the rest stay, provenance moves on');
  t.not(updated, created, 'a new record: the previous one is left as it was');
  t.equal(created.name, 'first');
  t.same(Object.keys(updated), Object.keys(created), 'same members in the same order as a created record');
  evolve(state, recorded('RuleUpdated', { id: 'missing', changes: { name: 'x' } }, 0n, 12n, 'key-b', '2026-01-03T00:00:00.000Z'));
  t.notOk(state.rules.has('missing'), 'an update of an unknown rule creates nothing');
});
