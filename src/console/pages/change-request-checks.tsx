/**
 * What a change request would do (docs/change-requests.md#impact-and-test-cases):
 * its impact on the recorded decisions of the last 7 days, and its test
 * cases run against the catalog it would produce. Both are computed when
 * read, so they are read again with each revision of the request.
 */
import { changeRequestImpact, type Api, type ChangeRequest, type ImpactReport, type TestResults } from '../api';
import { ExplainView } from '../explain-view';
import { href } from '../router';
import { Named, Show, useLoad, when, type Loaded } from '../ui';

type Names = ReadonlyMap<string, string>;
type Link = ImpactReport['changes'][number]['entities']['added'][number];

const linkText = (l: Link, names: Names) => `${l.entity_type} ${names.get(l.entity_id) ?? l.entity_id}${l.variant === null ? '' : ` (variant ${l.variant})`}`;

export function ImpactView({ api, request, names }: { api: Api; request: ChangeRequest; names: Names }) {
  const [loaded] = useLoad(() => changeRequestImpact(api, request.id), [api, request.id, request.revision]);
  return (
    <section aria-labelledby="impact-title">
      <h3 id="impact-title">Impact</h3>
      <Show loaded={loaded} what="the impact report">{(report) => (
        <>
          <p role="status" aria-label="impact summary">
            {report.changed} of {report.replayed} recorded decisions would change ({when(report.window.from)} to {when(report.window.to)}).
            {report.truncated && ` Reading stopped at ${report.max_decisions} records: older ones were not replayed.`}
            {report.unreproducible.count > 0 && ` ${report.unreproducible.count} masked a field a changed rule reads and were not compared.`}
            {report.incomplete.count > 0 && ` ${report.incomplete.count} could not be replayed.`}
          </p>
          {report.not_replayed.length > 0 && (
            <p class="hint">Not replayed: {report.not_replayed.map((n) => `change ${n.index + 1} (${n.op}): ${n.why}`).join('; ')}.</p>
          )}
          {report.changes.length > 0 && (
            <table class="list" aria-label="changed decisions">
              <thead><tr><th scope="col">Decision</th><th scope="col">Rules</th><th scope="col">Entities</th><th scope="col">Variants</th></tr></thead>
              <tbody>
                {report.changes.map((c) => (
                  <tr key={c.decision_id}>
                    <td><a href={href('audit', 'decisions', c.decision_id)}><code>{c.decision_id}</code></a><br /><small>{when(c.at)}</small></td>
                    <td>
                      {c.rule_ids.added.map((id) => <div key={`+${id}`}>+ <Named id={id} names={names} /></div>)}
                      {c.rule_ids.removed.map((id) => <div key={`-${id}`}>− <Named id={id} names={names} /></div>)}
                    </td>
                    <td>
                      {c.entities.added.map((l) => <div key={`+${l.rule_id}${l.entity_id}`}>+ {linkText(l, names)}</div>)}
                      {c.entities.removed.map((l) => <div key={`-${l.rule_id}${l.entity_id}`}>− {linkText(l, names)}</div>)}
                    </td>
                    <td>{c.variants.map((v) => <div key={v.rule_id}><Named id={v.rule_id} names={names} />: {v.before ?? 'none'} → {v.after ?? 'none'}</div>)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {report.explain.map((sample) => (
            <details key={sample.decision_id} class="explain-sample">
              <summary>Explain decision <code>{sample.decision_id}</code> as proposed</summary>
              <ExplainView explanations={sample.rules} />
            </details>
          ))}
        </>
      )}</Show>
    </section>
  );
}


export function TestResultsView({ loaded }: { loaded: Loaded<TestResults> }) {
  return (
    <section aria-labelledby="tests-title">
      <h3 id="tests-title">Test cases</h3>
      <Show loaded={loaded} what="the test results">{(results) => results.cases.length === 0 ? (
        <p role="status" aria-label="test summary">No test cases{results.source === 'request' ? ' in this request' : ' yet: a request sets them (set-test-cases)'}.</p>
      ) : (
        <>
          <p role="status" aria-label="test summary">
            {results.passed} passed, {results.failed} failed ({results.source === 'request' ? 'the cases this request sets' : `the current set, revision ${results.test_cases_revision ?? 'none'}`}).
          </p>
          <table class="list" aria-label="test cases">
            <thead><tr><th scope="col">Case</th><th scope="col">Result</th><th scope="col">Diff</th></tr></thead>
            <tbody>
              {results.cases.map((c) => (
                <tr key={c.line}>
                  <td>{c.name} <small>(line {c.line})</small></td>
                  <td><span class={`status ${c.pass ? 'state-applied' : 'state-rejected'}`}>{c.pass ? 'pass' : 'fail'}</span></td>
                  <td>{c.error !== undefined && <div>{c.error}</div>}{diffLines(c.diff).map((line) => <div key={line}>{line}</div>)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}</Show>
    </section>
  );
}

/** A failing case's diff, one line a difference. */
function diffLines(diff: TestResults['cases'][number]['diff']): string[] {
  if (diff === undefined) return [];
  const lines: string[] = [];
  for (const [what, d] of [['rule', diff.rules], ['entity', diff.entities]] as const) {
    for (const id of d?.missing ?? []) lines.push(`− ${what} ${id} expected, not answered`);
    for (const id of d?.unexpected ?? []) lines.push(`+ ${what} ${id} answered, not expected`);
  }
  for (const v of diff.variants ?? []) lines.push(`~ variant of ${v.rule_id}: expected ${v.expected ?? 'none'}, answered ${v.actual ?? 'none'}`);
  return lines;
}
