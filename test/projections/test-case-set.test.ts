/**
 * The test-case set (ADR 0067) in the fold, a snapshot body and the digest:
 * TestCasesSet replaces the set and names the request that wrote it; a
 * snapshot body keeps it; a body written before sets existed (no member)
 * reads as no set, so the format stays; and the digest of a log without a
 * set is what it was before sets existed.
 */
import t from 'tap';
import { digestMembers, evolve, initialState, restoreState, snapshotMembers } from '../../projections';
import type { RecordedEvent } from '../../src/store/port';

const setEvent = (revision: bigint, text: string, count: number, changeRequest: string): RecordedEvent => ({
  id: `event-${revision}`, stream: 'test-cases', type: 'TestCasesSet', revision, position: revision + 1n,
  data: { text, count },
  metadata: { actor: 'key-1', at: '2026-12-01T12:00:00.000Z', request_id: 'req', schema: 1, change_request: changeRequest },
});

const CASE = '{"name":"gold","entity_type":"context","fields":{"tier":"gold"},"expect":{"rules":[]}}';

t.test('the fold keeps the last set and who set it', async (t) => {
  const state = initialState();
  evolve(state, setEvent(0n, CASE, 1, 'cr-1'));
  evolve(state, setEvent(1n, '', 0, 'cr-2'));
  t.same(state.changeControl.testCases, { text: '', count: 0, set_by: 'key-1', set_at: '2026-12-01T12:00:00.000Z', change_request: 'cr-2', revision: 1n });
});

t.test('a snapshot body keeps the set; one without the member reads as none', async (t) => {
  const state = initialState();
  evolve(state, setEvent(0n, CASE, 1, 'cr-1'));
  const body = JSON.parse(JSON.stringify(snapshotMembers(state)));
  t.same(restoreState(1n, body).changeControl.testCases, state.changeControl.testCases, 'round trip');
  const { test_cases: _gone, ...older } = JSON.parse(JSON.stringify(snapshotMembers(initialState())));
  t.equal(restoreState(0n, older).changeControl.testCases, undefined, 'a body from before sets: no set');
});

t.test('the digest covers the set only once there is one', async (t) => {
  t.notOk('change_control' in digestMembers(initialState()).canonical, 'an empty log: no change-control member, as before');
  const state = initialState();
  evolve(state, setEvent(0n, CASE, 1, 'cr-1'));
  const covered = digestMembers(state).canonical.change_control as { test_cases?: { text: string } };
  t.equal(covered.test_cases?.text, CASE, 'a set is in the digest');
});
