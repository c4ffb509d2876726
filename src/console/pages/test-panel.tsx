/**
 * The test panel: fields as a form or a pasted evaluate request. An admin key
 * asks the dry-run endpoint: the drafts (on a rule's page, the rule as edited,
 * saved or not) are evaluated by the server beside the live rules, each rule
 * explained condition by condition with what decided it; nothing is written.
 * Another key gets evaluate (and explain) of the saved rules, and is told so.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { testRule, type Api, type DraftRule, type EntityType, type EvaluateRequest, type Scope, type TestAnswer } from '../api';
import { AnswerView, ExplainView } from '../explain-view';
import { ErrorBox, Field, useAction } from '../ui';

type FieldType = 'string' | 'number' | 'boolean';
interface FieldRow { name: string; value: string; type: FieldType }

const ENTITY_TYPES: readonly EntityType[] = ['context', 'prompt', 'evaluation'];

function fieldsOf(rows: readonly FieldRow[]): EvaluateRequest['fields'] {
  const fields: Record<string, string | number | boolean> = {};
  for (const row of rows) {
    if (row.name.trim() === '') continue;
    fields[row.name.trim()] = row.type === 'number' ? Number(row.value) : row.type === 'boolean' ? row.value === 'true' : row.value;
  }
  return fields;
}

/** Parses a pasted evaluate request; throws an Error naming what is wrong. */
export function parsePastedRequest(text: string): EvaluateRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`the pasted request is not JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the pasted request must be a JSON object');
  const request = parsed as Partial<EvaluateRequest>;
  if (request.fields === undefined) throw new Error('the pasted request needs "fields"');
  return { entity_type: 'context', ...request } as EvaluateRequest;
}

export function TestPanel({ api, scopes, ruleIds = [], drafts = [], names, draftFields = [], revision }: {
  api: Api; scopes: readonly Scope[]; ruleIds?: readonly string[]; drafts?: readonly DraftRule[];
  names: ReadonlyMap<string, string>; draftFields?: readonly string[];
  /** The saved rule's revision: a save moves it, and the answer shown, of the rule before it, is dropped. */
  revision?: string;
}) {
  const [mode, setMode] = useState<'form' | 'paste'>('form');
  const [rows, setRows] = useState<FieldRow[]>(() =>
    (draftFields.length > 0 ? draftFields : ['']).map((name) => ({ name, value: '', type: 'string' as FieldType })));
  const [entityType, setEntityType] = useState<EntityType>('context');
  const [withData, setWithData] = useState(true);
  const [pasted, setPasted] = useState('{\n  "entity_type": "context",\n  "fields": {}\n}');
  const [result, setResult] = useState<TestAnswer | undefined>();
  const action = useAction();
  // An answer explains the rule as it was tested; once it is saved anew, that answer is of a rule that no longer is.
  useEffect(() => {
    setResult(undefined);
    action.clear();
  }, [revision]);
  const dryRuns = scopes.includes('admin');
  const missingFields = draftFields.filter((name) => !rows.some((row) => row.name.trim() === name));
  const shownNames = useMemo(() => (result === undefined ? names : namesOfAnswer(result, names)), [result, names]);

  const update = (i: number, change: Partial<FieldRow>) => setRows(rows.map((row, j) => (i === j ? { ...row, ...change } : row)));
  const run = () => action.run(async () => {
    const request: EvaluateRequest = mode === 'paste'
      ? parsePastedRequest(pasted)
      : { entity_type: entityType, fields: fieldsOf(rows), include_entity_data: withData && entityType !== 'evaluation' };
    setResult(await testRule(api, scopes, request, drafts, ruleIds));
  }, () => setResult(undefined));

  return (
    <section class="panel test-panel" aria-labelledby="test-title">
      <h3 id="test-title">Test panel</h3>
      <div class="tabs" role="radiogroup" aria-label="Input as">
        <label><input type="radio" name="test-mode" checked={mode === 'form'} onChange={() => setMode('form')} /> Fields form</label>
        <label><input type="radio" name="test-mode" checked={mode === 'paste'} onChange={() => setMode('paste')} /> Paste an evaluate request</label>
      </div>
      {mode === 'form' ? (
        <form onSubmit={(e) => { e.preventDefault(); void run(); }}>
          <Field label="Entity type">{(id) => (
            <select id={id} value={entityType} onChange={(e) => setEntityType(e.currentTarget.value as EntityType)}>
              {ENTITY_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          )}</Field>
          <label class="inline"><input type="checkbox" checked={withData} onChange={(e) => setWithData(e.currentTarget.checked)} /> Include entity data</label>
          <fieldset>
            <legend>Fields</legend>
            {rows.map((row, i) => (
              <div class="row" key={i}>
                <Field label={`Field ${i + 1} name`}>{(id) => <input id={id} value={row.name} onInput={(e) => update(i, { name: e.currentTarget.value })} />}</Field>
                <Field label={`Field ${i + 1} type`}>{(id) => (
                  <select id={id} value={row.type} onChange={(e) => update(i, { type: e.currentTarget.value as FieldType })}>
                    <option value="string">string</option><option value="number">number</option><option value="boolean">boolean</option>
                  </select>
                )}</Field>
                <Field label={`Field ${i + 1} value`}>{(id) => <input id={id} value={row.value} onInput={(e) => update(i, { value: e.currentTarget.value })} />}</Field>
                <button type="button" class="secondary" aria-label={`Remove field ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove</button>
              </div>
            ))}
            <button type="button" class="secondary" onClick={() => setRows([...rows, { name: '', value: '', type: 'string' }])}>Add field</button>
            {missingFields.length > 0 && (
              <button type="button" class="secondary" onClick={() => setRows([...rows.filter((r) => r.name.trim() !== ''), ...missingFields.map((name) => ({ name, value: '', type: 'string' as FieldType }))])}>
                Add the rule's fields ({missingFields.join(', ')})
              </button>
            )}
          </fieldset>
          <button type="submit" disabled={action.busy}>{action.busy ? 'Testing…' : 'Run test'}</button>
        </form>
      ) : (
        <form onSubmit={(e) => { e.preventDefault(); void run(); }}>
          <Field label="Evaluate request (JSON)" hint="The body you would POST to /api/rule-engine/evaluate.">{(id, hint) => (
            <textarea id={id} aria-describedby={hint} rows={8} value={pasted} onInput={(e) => setPasted(e.currentTarget.value)} />
          )}</Field>
          <button type="submit" disabled={action.busy}>{action.busy ? 'Testing…' : 'Run test'}</button>
        </form>
      )}
      <ErrorBox error={action.error} />
      {result !== undefined && (
        <div class="test-result" aria-live="polite">
          <p class="meta">{result.mode === 'dry-run'
            ? `Dry run at log position ${result.position ?? 'none'}: ${drafts.length === 0 ? 'the live rules' : 'your draft beside the live rules'}, evaluated by the server; nothing was saved.`
            : 'Evaluate of the saved rules.'}</p>
          <AnswerView answer={result.answer} names={shownNames} />
          <h4>Explanation per rule</h4>
          <ExplainView explanations={result.explanations} />
        </div>
      )}
      <p class="hint">{dryRuns
        ? (drafts.length > 0 ? 'Tests the rule as edited here, before it is saved (the dry-run endpoint: nothing is written).' : 'Tests the live rules through the dry-run endpoint (nothing is written).')
        : `This key lacks the admin scope, so it cannot dry-run drafts: the test evaluates the saved rules${scopes.includes('explain') ? ', explained' : ' (add the explain scope to see why)'}.`}</p>
    </section>
  );
}

/** Names by id from the answer itself: the explained rules and the records of entity_data, over `known`. */
function namesOfAnswer(result: TestAnswer, known: ReadonlyMap<string, string>): Map<string, string> {
  const names = new Map(known);
  for (const rule of result.explanations) if (!names.has(rule.rule_id)) names.set(rule.rule_id, rule.name);
  for (const record of Object.values(result.answer.entity_data ?? {})) {
    if (record !== null && !names.has(record.id)) names.set(record.id, record.name);
  }
  return names;
}
