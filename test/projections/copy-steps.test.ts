/**
 * Copies of the read models in steps (projections/copy-steps.ts), as time
 * travel makes them between turns of the event loop: the same state as a
 * copy at once, apart from the original, and made in more than one step
 * once a model holds more entries than one step copies.
 */
import t from 'tap';
import { copyState, copyStateSteps, initialState, type CatalogState } from '../../projections';
import { COPY_STEP } from '../../projections/copy-steps';
import type { ApiKeyRecord, ContextRecord, PromptRecord, RuleRecord, SecretRecord } from '../../projections';
import { runCountingSteps } from '../support/turns';

const provenance = { created_by: 'k', created_at: '2026-11-25T00:00:00.000Z', updated_at: '2026-11-25T00:00:00.000Z', revision: 0n, position: 1n };

/** A state with `n` entries in every map (records shaped just enough: a copy shares them, never reads them). */
function stateOf(n: number): CatalogState {
  const state = initialState();
  for (let i = 0; i < n; i++) {
    const id = `id-${i}`;
    state.rules.set(id, { id, name: `rule ${i}` } as unknown as RuleRecord);
    state.contexts.set(id, { id, name: `context ${i}` } as unknown as ContextRecord);
    // Two prompts per name: the copy keeps the first's id for it, as the live index does.
    state.prompts.set(id, { ...provenance, id, name: `prompt ${i >> 1}` } as unknown as PromptRecord);
    if (!state.prompts.idsByName.has(`prompt ${i >> 1}`)) state.prompts.idsByName.set(`prompt ${i >> 1}`, id);
    state.vault.secrets.set(id, { id, key: `KEY_${i}` } as unknown as SecretRecord);
    state.vault.idsByKey.set(`KEY_${i}`, id);
    if (i % 2 === 0) state.vault.erasurePending.add(id);
    state.apiKeys.byId.set(id, { id, key_hash: `hash-${i}` } as unknown as ApiKeyRecord);
    state.apiKeys.byHash.set(`hash-${i}`, state.apiKeys.byId.get(id)!);
  }
  state.position = 42n;
  return state;
}

/** Every map of a state as arrays, in order: what two states must agree on. */
function contents(state: CatalogState): unknown {
  return {
    position: state.position,
    rules: [...state.rules], contexts: [...state.contexts], prompts: [...state.prompts], promptNames: [...state.prompts.idsByName],
    secrets: [...state.vault.secrets], idsByKey: [...state.vault.idsByKey], erasurePending: [...state.vault.erasurePending], keyring: state.vault.keyring,
    apiKeys: [...state.apiKeys.byId], byHash: [...state.apiKeys.byHash],
  };
}

t.test('a state copied in steps equals one copied at once, gives way between steps, and changes apart from its original', async (t) => {
  const n = COPY_STEP + 100;
  const state = stateOf(n);
  const { value: copy, yields } = runCountingSteps(copyStateSteps(state));
  // Seven maps over COPY_STEP entries, and the prompts' name index rebuilt over theirs: a step's end each.
  t.ok(yields >= 8, `the copy gave way ${yields} times`);
  t.same(contents(copy), contents(copyState(state)), 'the same state as a copy at once');
  t.same(contents(copy), contents(state), 'and as the original');
  copy.rules.delete('id-0');
  copy.vault.erasurePending.add('new');
  copy.prompts.idsByName.set('prompt 0', 'id-1');
  t.same([state.rules.has('id-0'), state.vault.erasurePending.has('new'), state.prompts.idsByName.get('prompt 0')], [true, false, 'id-0'],
    'changing the copy leaves the original alone');
});

t.test('a small state is copied in one step', async (t) => {
  const copying = copyStateSteps(stateOf(10));
  const next = copying.next();
  t.equal(next.done, true, 'no step ends before the copy is done');
});
