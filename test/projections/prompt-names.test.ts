/**
 * The prompts' name index and labels through the folds, a copy and a snapshot
 * round trip, including a log written before names were unique (two prompts
 * of one name: the oldest live one holds it).
 */
import t from 'tap';
import { copyState, restoreState, snapshotMembers, type CatalogState } from '../../projections';
import { findPrompt } from '../../projections/prompts';
import { applyStreamChange, restoreEvaluationState } from '../../src/service/evaluation-view';
import type { DomainEvent } from '../../src/events';
import { given } from '../support/given';

const created = (id: string, name: string): DomainEvent => ({
  type: 'PromptCreated', data: { id, version: '1.0.0', template: `I am ${id}`, name, tags: [], meta_properties: {}, status: 'ACTIVE' },
});
const holder = (name: string) => (s: CatalogState) => findPrompt(s.prompts, name)?.id;
const roundTrips = (s: CatalogState) => [copyState(s), restoreState(s.position ?? 0n, JSON.parse(JSON.stringify(snapshotMembers(s))))];

t.test('legacy duplicates: the oldest live prompt of a name holds it, and the next takes over', async (t) => {
  const legacy = [created('a', 'dup'), created('b', 'dup'), created('c', 'dup')];
  given(legacy).then(t, holder('dup'), 'a', 'the oldest');
  given([...legacy, { type: 'PromptDeleted', data: { id: 'a' } }]).then(t, holder('dup'), 'b', 'deleted: the next oldest');
  given([...legacy, { type: 'PromptUpdated', data: { id: 'a', changes: { name: 'other' } } }]).then(t, (s) => [holder('dup')(s), holder('other')(s)], ['b', 'a'], 'renamed away');
  given([...legacy, { type: 'PromptUpdated', data: { id: 'c', changes: { name: 'x' } } }, { type: 'PromptUpdated', data: { id: 'c', changes: { name: 'dup' } } }])
    .then(t, holder('dup'), 'a', 'renamed back: still the oldest');
  given([created('a', 'one'), { type: 'PromptDeleted', data: { id: 'a' } }]).then(t, (s) => [...s.prompts.idsByName.keys()], [], 'a deleted name leaves the index');
  given([created('a', 'n')]).then(t, holder('a'), 'a', 'an id is found as such');
});

t.test('a copy and a snapshot keep the index and the labels', async (t) => {
  const events: DomainEvent[] = [
    created('a', 'dup'), created('b', 'dup'), created('c', 'solo'),
    { type: 'PromptVersionAdded', data: { id: 'c', version: '2.0.0', template: '', messages: [{ role: 'user', content: 'Hi {{x}}' }], config: { model: 'm' } } },
    { type: 'PromptLabelMoved', data: { id: 'c', label: 'production', version: '1.0.0', previous: null } },
    { type: 'PromptLabelMoved', data: { id: 'c', label: 'beta', version: '2.0.0', previous: null } },
    { type: 'PromptLabelRemoved', data: { id: 'c', label: 'beta', previous: '2.0.0' } },
    { type: 'PromptDeleted', data: { id: 'a' } },
  ];
  given(events).then(t, (s) => roundTrips(s).map((r) => [
    holder('dup')(r), holder('solo')(r), r.prompts.get('c')?.labels, r.prompts.get('c')?.versions[1]?.config,
    r.prompts.get('c')?.versions[1]?.messages?.map((m) => m.compiled?.render({ x: 'X' }, { templateMaxBytes: 1e6, templateMaxExpressions: 100, templateMaxDepth: 10, renderMaxBytes: 1e6, renderMaxSteps: 1e4 }).text),
  ]), [
    ['b', 'c', { production: '1.0.0' }, { model: 'm' }, ['Hi X']],
    ['b', 'c', { production: '1.0.0' }, { model: 'm' }, ['Hi X']],
  ], 'copy, then snapshot');
});

t.test("the client's stream state keeps the name index as the fold does", async (t) => {
  const limits = { templateMaxBytes: 1e6, templateMaxExpressions: 100, templateMaxDepth: 10, renderMaxBytes: 1e6, renderMaxSteps: 1e4 };
  const wire = (id: string, name: string) => ({ id, name, tags: [], meta_properties: {}, status: 'ACTIVE', labels: {}, versions: [{ version: '1.0.0', template: `I am ${id}` }] });
  const state = restoreEvaluationState({ position: '1', limits: limits as never, rules: [], contexts: [], prompts: [wire('a', 'dup'), wire('b', 'dup')] });
  t.equal(findPrompt(state.prompts, 'dup')?.id, 'a', 'restored: the oldest holds the name');
  applyStreamChange(state, { position: '2', upsert: { prompts: [wire('a', 'renamed')] } });
  t.same([findPrompt(state.prompts, 'dup')?.id, findPrompt(state.prompts, 'renamed')?.id], ['b', 'a'], 'a rename gives the old name to the next holder');
  applyStreamChange(state, { position: '3', remove: { prompts: ['b'] } });
  t.same([...state.prompts.idsByName.keys()], ['renamed'], 'a removed prompt leaves the index');
});
