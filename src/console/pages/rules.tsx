/**
 * The rules list, a page at a time: the server filters (status, linked
 * entity, field, operator, search) and pages (`limit`, `cursor`), so a long
 * list costs one page of rendering; *Load more* follows the cursor. And the
 * rule editor, whose test panel evaluates the draft on the server (dry-run).
 */
import { useMemo, useState } from 'preact/hooks';
import {
  ApiError, createRule, deleteRule, getRule, listContexts, listPrompts, ruleHistory, rulesPage, updateRule,
  type Api, type Context, type Prompt, type Rule, type RuleInput, type RuleQuery, type Scope,
} from '../api';
import { ConditionBuilder, emptyCondition, useProblems } from '../condition-builder';
import { pretty } from '../diff';
import { conditionsText } from '../resource-text';
import { OPERATORS } from '../../engine/conditions';
import { go, href } from '../router';
import { DiffView, Field, MoreButton, Show, splitTags, useAction, useDebounced, useLoad, usePages, when } from '../ui';
import { ProtectControl, useProtections, WriteError, isProtected, type ProposedEdit } from '../protection';
import { TestPanel } from './test-panel';
import { SplitEditor } from '../split-editor';

/** What links are chosen from: the contexts and prompts, by name. */
interface Catalog { contexts: Context[]; prompts: Prompt[] }

const loadCatalog = async (api: Api): Promise<Catalog> => {
  const [contexts, prompts] = await Promise.all([listContexts(api), listPrompts(api)]);
  return { contexts, prompts };
};

/** Names by id, for showing links and answers by name. */
export function namesOf(catalog: Partial<Catalog>, rules: readonly Rule[] = []): Map<string, string> {
  const names = new Map<string, string>();
  for (const list of [rules, catalog.contexts, catalog.prompts]) for (const x of list ?? []) names.set(x.id, x.name);
  return names;
}

/** Rules per page: a page renders at once, whatever the size of the list. */
const PAGE = 50;

interface Filters { q: string; status: string; entity: string; field: string; operator: string }
const NO_FILTERS: Filters = { q: '', status: '', entity: '', field: '', operator: '' };

/** The list query of the filters: `entity` is `type:<entity type>` or `<entity type>:<id>`. */
function ruleQuery(filters: Filters): RuleQuery {
  const [kind, id] = filters.entity === '' ? [] : [filters.entity.slice(0, filters.entity.indexOf(':')), filters.entity.slice(filters.entity.indexOf(':') + 1)];
  return {
    limit: String(PAGE),
    q: filters.q.trim() || undefined,
    status: (filters.status || undefined) as RuleQuery['status'],
    entity_type: (kind === 'type' ? id : kind) as RuleQuery['entity_type'],
    entity_id: kind === 'type' ? undefined : id,
    field: filters.field.trim() || undefined,
    operator: (filters.operator || undefined) as RuleQuery['operator'],
  };
}

/** Whether the list was asked with a filter (beyond its page size): an empty answer then means no rule matches, not no rule. */
const isFiltered = (query: RuleQuery): boolean => Object.entries(query).some(([name, value]) => name !== 'limit' && value !== undefined);

export function RulesPage({ api }: { api: Api }) {
  const [catalog] = useLoad(() => loadCatalog(api), [api]);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  // Typing in a text filter asks the server once the typing pauses, not per key.
  const query = useDebounced(ruleQuery(filters), 250);
  const paged = usePages((cursor) => rulesPage(api, { ...query, cursor }), [api, JSON.stringify(query)]);
  const set = (name: keyof Filters) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setFilters({ ...filters, [name]: e.currentTarget.value });
  const names = useMemo(() => namesOf(catalog.state === 'ready' ? catalog.value : {}), [catalog]);
  const linkables = catalog.state === 'ready' ? [...catalog.value.contexts.map((c) => ['context', c] as const), ...catalog.value.prompts.map((p) => ['prompt', p] as const)] : [];
  return (
    <section aria-labelledby="rules-title">
      <div class="title-row">
        <h2 id="rules-title">Rules</h2>
        <a class="button" href={href('rules', 'new')}>New rule</a>
        <button type="button" class="secondary" onClick={paged.reload}>Refresh</button>
      </div>
      <form class="filters" role="search" aria-label="Filter rules" onSubmit={(e) => { e.preventDefault(); paged.reload(); }}>
        <Field label="Search name, description or id">{(id) => <input id={id} type="search" value={filters.q} onInput={set('q')} />}</Field>
        <Field label="Status">{(id) => (
          <select id={id} value={filters.status} onChange={set('status')}>
            <option value="">any</option><option value="active">ACTIVE</option><option value="inactive">INACTIVE</option>
          </select>
        )}</Field>
        <Field label="Linked entity">{(id) => (
          <select id={id} value={filters.entity} onChange={set('entity')}>
            <option value="">any or none</option>
            <option value="type:context">any context</option><option value="type:prompt">any prompt</option><option value="type:evaluation">any evaluation</option>
            {linkables.map(([type, x]) => <option key={x.id} value={`${type}:${x.id}`}>{type} {x.name}</option>)}
          </select>
        )}</Field>
        <Field label="Field name" hint="Exact; with an operator, one condition has both">{(id, hint) => <input id={id} aria-describedby={hint} value={filters.field} onInput={set('field')} />}</Field>
        <Field label="Operator">{(id) => (
          <select id={id} value={filters.operator} onChange={set('operator')}>
            <option value="">any</option>
            {OPERATORS.map((op) => <option key={op} value={op}>{op}</option>)}
          </select>
        )}</Field>
        {filters !== NO_FILTERS && <button type="button" class="secondary" onClick={() => setFilters(NO_FILTERS)}>Clear filters</button>}
      </form>
      <Show loaded={paged.pages} what="rules">{({ items, next }) => (
        <>
          <p role="status">{items.length === 0
            ? (isFiltered(query) ? 'No rule matches these filters.' : 'No rules yet: create one with New rule.')
            : `${items.length} rule${items.length === 1 ? '' : 's'} shown${next === null ? '' : '; more on the server'}`}</p>
          <RuleTable rules={items} names={names} />
        </>
      )}</Show>
      <MoreButton paged={paged} label={`Load ${PAGE} more`} />
    </section>
  );
}

function RuleTable({ rules, names }: { rules: readonly Rule[]; names: ReadonlyMap<string, string> }) {
  return (
    <table class="list">
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Conditions</th><th scope="col">Links</th><th scope="col">Updated</th></tr></thead>
      <tbody>
        {rules.map((rule) => (
          <tr key={rule.id}>
            <td><a href={href('rules', rule.id)}>{rule.name}</a></td>
            <td><span class={`status status-${rule.status}`}>{rule.status}</span></td>
            <td>{conditionsText(rule.condition_groups, rule.group_operator)}</td>
            <td>{rule.entities.map((e) => names.get(e.entity_id) ?? e.entity_id).join(', ')}</td>
            <td>{rule.updated_at.slice(0, 19).replace('T', ' ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the editor holds: the rule's own members, in the shapes the API answers (complete, unlike its input). */
type Draft = Pick<Rule, 'name' | 'description' | 'status' | 'group_operator' | 'condition_groups' | 'entities' | 'splits'> & RuleInput;

const newDraft = (): Draft => ({
  name: '', description: '', status: 'ACTIVE', group_operator: 'AND',
  condition_groups: [{ condition_operator: 'AND', conditions: [emptyCondition()] }], entities: [], splits: [],
});

const draftOf = (rule: Rule): Draft => ({
  name: rule.name, description: rule.description, status: rule.status, group_operator: rule.group_operator,
  condition_groups: rule.condition_groups, entities: rule.entities, splits: rule.splits,
});

/** A refused save: my draft, the rule as it is now, and who changed it since my revision, when. */
interface Conflict { mine: Draft; theirs: Rule; writers: string[] }

export function RuleEditorPage({ api, scopes, id }: { api: Api; scopes: readonly Scope[]; id: string | undefined }) {
  const [loaded] = useLoad(async () => {
    const [catalog, rule] = await Promise.all([loadCatalog(api), id === undefined ? Promise.resolve(undefined) : getRule(api, id)]);
    return { catalog, rule };
  }, [api, id]);
  return (
    <Show loaded={loaded} what="the rule">{({ catalog, rule }) => <RuleEditor key={rule?.id ?? 'new'} api={api} scopes={scopes} catalog={catalog} rule={rule} />}</Show>
  );
}

function RuleEditor({ api, scopes, catalog, rule: initial }: { api: Api; scopes: readonly Scope[]; catalog: Catalog; rule: Rule | undefined }) {
  const [rule, setRule] = useState(initial);
  const [draft, setDraft] = useState<Draft>(() => (initial === undefined ? newDraft() : draftOf(initial)));
  const [conflict, setConflict] = useState<Conflict | undefined>();
  const [saved, setSaved] = useState('');
  const [refused, setRefused] = useState<ProposedEdit | undefined>();
  const protections = useProtections(api);
  const problems = useProblems(draft.condition_groups);
  const action = useAction();
  const names = useMemo(() => namesOf(catalog, rule === undefined ? [] : [rule]), [catalog, rule]);
  const evaluations = draft.entities.filter((e) => e.entity_type === 'evaluation').map((e) => e.entity_id).join(', ');

  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const linked = (entityId: string) => draft.entities.some((e) => e.entity_id === entityId);
  // Unlinking here drops the entity's split variants from the draft too: the server refuses a PATCH whose variant names
  // a link it drops (deleting an entity takes its variants, there). A split left without variants goes.
  const toggleLink = (entity_type: 'context' | 'prompt', entity_id: string, on: boolean) => set(on
    ? { entities: [...draft.entities, { entity_type, entity_id }] }
    : {
      entities: draft.entities.filter((e) => e.entity_id !== entity_id),
      splits: draft.splits.map((s) => ({ ...s, variants: s.variants.filter((v) => v.entity_id !== entity_id) })).filter((s) => s.variants.length > 0),
    });

  /** Writes `patch` at `revision`; a 409 keeps the draft and shows the other writer's change. */
  const write = (patch: Partial<Draft>, revision: string | undefined, message: string) => action.run(async () => {
    try {
      if (rule === undefined) {
        const created = await createRule(api, draft);
        go('rules', created.id);
        return;
      }
      setRefused({ title: `Edit rule "${rule.name}"`, change: { op: 'update', resource: { type: 'rule', id: rule.id }, base_revision: revision, body: patch as never } });
      const updated = await updateRule(api, rule.id, patch, revision);
      setRule(updated);
      setDraft(draftOf(updated));
      setConflict(undefined);
      setSaved(`${message} (revision ${updated.revision})`);
    } catch (error) {
      // A protected rule changes only by a change request: the refusal offers one (WriteError), not a conflict view.
      if (error instanceof ApiError && error.status === 409 && !isProtected(error) && rule !== undefined) {
        const [theirs, history] = await Promise.all([getRule(api, rule.id), ruleHistory(api, rule.id)]);
        const writers = history.events.filter((e) => Number(e.revision) > Number(rule.revision)).map((e) => `${e.actor} at ${when(e.at)}`);
        setConflict({ mine: draft, theirs, writers });
        return;
      }
      throw error;
    }
  });

  const remove = () => action.run(async () => {
    if (rule === undefined || !confirm(`Delete rule "${rule.name}"? It stops matching at once.`)) return;
    setRefused({ title: `Delete rule "${rule.name}"`, change: { op: 'delete', resource: { type: 'rule', id: rule.id }, base_revision: rule.revision } });
    await deleteRule(api, rule.id, rule.revision);
    go('rules');
  });

  return (
    <section aria-labelledby="editor-title">
      <div class="title-row">
        <h2 id="editor-title">{rule === undefined ? 'New rule' : `Rule: ${rule.name}`}</h2>
        {rule !== undefined && <a href={href('audit', 'history', rule.id)}>History</a>}
        <a href={href('rules')}>Back to rules</a>
      </div>
      {rule !== undefined && (
        <p class="meta">Revision {rule.revision} · {rule.status} · id <code>{rule.id}</code>{' '}
          <ProtectControl api={api} protections={protections} resource={{ type: 'rule', id: rule.id }} name={rule.name} /></p>
      )}
      {conflict !== undefined && (
        <div class="conflict" role="alert">
          <h3>Someone else changed this rule</h3>
          <p>Your save was refused: the rule is at revision {conflict.theirs.revision} now (you edited revision {rule?.revision}),
            changed by {conflict.writers.join('; ') || 'another writer'}. Their change:</p>
          <DiffView label="the other writer's change" before={pretty(draftOf(rule!))} after={pretty(draftOf(conflict.theirs))} />
          <div class="actions">
            <button type="button" onClick={() => { setRule(conflict.theirs); setDraft(draftOf(conflict.theirs)); setConflict(undefined); }}>Reload theirs (drop my edits)</button>
            <button type="button" onClick={() => { setRule(conflict.theirs); void write(conflict.mine, conflict.theirs.revision, 'Reapplied'); }}>Reapply my edits on top</button>
          </div>
        </div>
      )}
      <form onSubmit={(e) => { e.preventDefault(); void write(draft, rule?.revision, 'Saved'); }}>
        <Field label="Name">{(id) => <input id={id} required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />}</Field>
        <Field label="Description">{(id) => <input id={id} value={draft.description} onInput={(e) => set({ description: e.currentTarget.value })} />}</Field>
        <Field label="Status">{(id) => (
          <select id={id} value={draft.status} onChange={(e) => set({ status: e.currentTarget.value as Draft['status'] })}>
            <option value="ACTIVE">ACTIVE</option><option value="INACTIVE">INACTIVE</option>
          </select>
        )}</Field>
        <ConditionBuilder groups={draft.condition_groups} groupOperator={draft.group_operator} problems={problems}
          onChange={(condition_groups) => set({ condition_groups })} onGroupOperator={(group_operator) => set({ group_operator })} />
        <fieldset>
          <legend>Links</legend>
          <div class="links">
            <div>
              <h4>Contexts</h4>
              {catalog.contexts.length === 0 && <p class="hint">No contexts yet.</p>}
              {catalog.contexts.map((c) => (
                <label key={c.id} class="inline"><input type="checkbox" checked={linked(c.id)} onChange={(e) => toggleLink('context', c.id, e.currentTarget.checked)} /> {c.name}</label>
              ))}
            </div>
            <div>
              <h4>Prompts</h4>
              {catalog.prompts.length === 0 && <p class="hint">No prompts yet.</p>}
              {catalog.prompts.map((p) => (
                <label key={p.id} class="inline"><input type="checkbox" checked={linked(p.id)} onChange={(e) => toggleLink('prompt', p.id, e.currentTarget.checked)} /> {p.name}</label>
              ))}
            </div>
          </div>
          <Field label="Evaluation ids" hint="Comma-separated; an evaluation link may name any id.">{(id, hint) => (
            <input id={id} aria-describedby={hint} value={evaluations} onChange={(e) => set({
              entities: [...draft.entities.filter((x) => x.entity_type !== 'evaluation'),
                ...splitTags(e.currentTarget.value).map((entity_id) => ({ entity_type: 'evaluation' as const, entity_id }))],
            })} />
          )}</Field>
        </fieldset>
        <SplitEditor splits={draft.splits} entities={draft.entities} names={names} onChange={(splits) => set({ splits })} />
        <div class="actions">
          <button type="submit" disabled={action.busy || problems.size > 0}>{rule === undefined ? 'Create rule' : 'Save'}</button>
          {rule !== undefined && (
            <>
              <button type="button" class="secondary" disabled={action.busy}
                onClick={() => void write({ status: rule.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE' }, rule.revision, rule.status === 'ACTIVE' ? 'Deactivated' : 'Activated')}>
                {rule.status === 'ACTIVE' ? 'Deactivate' : 'Activate'}
              </button>
              <button type="button" class="danger" disabled={action.busy} onClick={() => void remove()}>Delete</button>
            </>
          )}
        </div>
        {problems.size > 0 && <p class="hint">Fix the problems above to save.</p>}
        {saved !== '' && <p role="status" class="ok">{saved}</p>}
        <WriteError api={api} error={action.error} edit={refused} />
      </form>
      <TestPanel api={api} scopes={scopes} ruleIds={rule === undefined ? [] : [rule.id]} names={names} revision={rule?.revision}
        drafts={[rule === undefined ? draft : { id: rule.id, ...draft }]}
        draftFields={[...new Set(draft.condition_groups.flatMap((g) => g.conditions.map((c) => c.field)).filter((f) => f !== ''))]} />
    </section>
  );
}
