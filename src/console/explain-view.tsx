/** An evaluate answer and, per rule, which conditions held and which decided. */
import type { EvaluateResponse, RuleExplanation } from './api';

/**
 * Which conditions decided a rule's outcome, as `group:condition` keys. The
 * same rule at both levels (groups under group_operator, conditions under
 * condition_operator): when the outcome held, every part decided under AND
 * and the first that held under OR; when it failed, the first that failed
 * under AND and every part under OR.
 */
export function decidingConditions(rule: RuleExplanation): Set<string> {
  const deciding = new Set<string>();
  for (const group of pick(rule.groups, rule.group_operator, rule.matched)) {
    for (const c of pick(group.conditions, group.condition_operator, group.result)) deciding.add(`${group.index}:${c.index}`);
  }
  return deciding;
}

function pick<T extends { result: boolean }>(parts: readonly T[], operator: string, outcome: boolean): readonly T[] {
  const and = operator === 'AND';
  if (outcome) return and ? parts : parts.filter((p) => p.result).slice(0, 1);
  return and ? parts.filter((p) => !p.result).slice(0, 1) : parts;
}

export function ExplainView({ explanations }: { explanations: readonly RuleExplanation[] }) {
  if (explanations.length === 0) return <p>No rule to explain: none matched, and none was named.</p>;
  return (
    <div class="explain">
      {explanations.map((rule) => {
        const deciding = decidingConditions(rule);
        return (
        <section key={rule.rule_id} class={`explain-rule ${rule.matched ? 'matched' : 'unmatched'}`} aria-label={`explanation of ${rule.name}`}>
          <h4>{rule.name} <span class="badge">{rule.matched ? 'matched' : 'did not match'}</span> <small>rev {rule.revision}, {rule.status}</small></h4>
          {rule.reason !== null && <p class="reason">{rule.reason}</p>}
          <p>Groups joined by {rule.group_operator}</p>
          {rule.groups.map((group) => {
            const decides = (c: { index: number }) => deciding.has(`${group.index}:${c.index}`);
            return (
              <table key={group.index} class="conditions">
                <caption>Group {group.index + 1} ({group.condition_operator}): {group.result ? 'held' : 'did not hold'}</caption>
                <thead><tr><th scope="col">Condition</th><th scope="col">Input</th><th scope="col">Result</th></tr></thead>
                <tbody>
                  {group.conditions.map((c) => (
                    <tr key={c.index} class={`${c.result ? 'holds' : 'fails'}${decides(c) ? ' deciding' : ''}`}>
                      <td><code>{c.field} {c.operator} {JSON.stringify(c.value)}</code> <small>({c.data_type})</small></td>
                      <td><code>{c.input === null ? 'absent' : JSON.stringify(c.input)}</code></td>
                      <td>{c.reason}{decides(c) && <strong class="deciding-mark"> · deciding</strong>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            );
          })}
        </section>
        );
      })}
    </div>
  );
}

export function AnswerView({ answer, names }: { answer: EvaluateResponse; names: ReadonlyMap<string, string> }) {
  return (
    <div class="answer">
      <h4>Matching rules ({answer.matchingRuleIds.length})</h4>
      {answer.matchingRuleIds.length === 0 ? <p>No rule matched.</p> : (
        <ul class="matching">{answer.matchingRuleIds.map((id) => <li key={id}>{names.get(id) ?? id} <small><code>{id}</code></small></li>)}</ul>
      )}
      <h4>Entities ({answer.entities.length})</h4>
      {answer.entities.length > 0 && (
        <ul>{answer.entities.map((e) => <li key={`${e.rule_id}:${e.entity_id}`}>{e.entity_type} <code>{names.get(e.entity_id) ?? e.entity_id}</code> via {names.get(e.rule_id) ?? e.rule_id}</li>)}</ul>
      )}
      {answer.entity_data !== undefined && Object.keys(answer.entity_data).length > 0 && (
        <>
          <h4>Entity data</h4>
          <pre class="json">{JSON.stringify(answer.entity_data, null, 2)}</pre>
        </>
      )}
    </div>
  );
}
