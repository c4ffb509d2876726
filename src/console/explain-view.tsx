/** An evaluate answer and, per rule, which conditions held and which decided. */
import type { DryRunExplanation, EvaluateResponse, RuleExplanation } from './api';

type Explanation = RuleExplanation | DryRunExplanation;

/**
 * Which conditions decided a rule's outcome, as `group:condition` keys. A
 * dry-run answer says so itself (`decisive`, src/audit/dry-run.ts); for
 * explain and the audit's evaluate the same rule is applied here: with AND,
 * the failing parts when one failed, else all; with OR, the holding parts
 * when one held, else all; at the group level under group_operator, then
 * within each deciding group under its condition_operator.
 */
export function decidingConditions(rule: Explanation): Set<string> {
  const deciding = new Set<string>();
  if ('draft' in rule) {
    for (const group of rule.groups) for (const c of group.conditions) if (c.decisive) deciding.add(`${group.index}:${c.index}`);
    return deciding;
  }
  const groups = rule.groups.map((g) => g.result);
  const held = groups.length > 0 && (rule.group_operator === 'AND' ? groups.every(Boolean) : groups.some(Boolean));
  for (const group of rule.groups) {
    if (group.result !== held) continue;
    for (const c of group.conditions) if (c.result === group.result) deciding.add(`${group.index}:${c.index}`);
  }
  return deciding;
}

export function ExplainView({ explanations }: { explanations: readonly Explanation[] }) {
  if (explanations.length === 0) return <p>No rule to explain: none matched, and none was named.</p>;
  return (
    <div class="explain">
      {explanations.map((rule) => {
        const deciding = decidingConditions(rule);
        return (
        <section key={rule.rule_id} class={`explain-rule ${rule.matched ? 'matched' : 'unmatched'}`} aria-label={`explanation of ${rule.name}`}>
          <h4>{rule.name} <span class="badge">{rule.matched ? 'matched' : 'did not match'}</span>{'draft' in rule && rule.draft && <> <span class="badge draft">draft</span></>} <small>{rule.revision === null ? 'as edited here' : `rev ${rule.revision}`}, {rule.status}</small></h4>
          {rule.reason !== null && <p class="reason">{rule.reason}</p>}
          {rule.splits?.map((split) => (
            <p key={split.entity_type} class="split-explained">
              Split of {split.entity_type} by <code>{split.bucket_by}</code>: {split.value === null ? 'no value' : <>value <code>{JSON.stringify(split.value)}</code>, bucket {split.bucket} of {split.total}</>}
              {' '}→ variant <strong>{split.variant}</strong> ({split.reason}); ranges {split.ranges.map((r) => `${r.variant} [${r.from}, ${r.to})`).join(', ')}
              {split.progress !== undefined && `; rollout ${(split.progress * 100).toFixed(1)}% through`}
            </p>
          ))}
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
        <ul>{answer.entities.map((e) => (
          <li key={`${e.rule_id}:${e.entity_id}`}>{e.entity_type} <code>{names.get(e.entity_id) ?? e.entity_id}</code> via {names.get(e.rule_id) ?? e.rule_id}
            {e.variant !== null && <> · variant <strong>{e.variant}</strong> <small>({e.reason})</small></>}</li>
        ))}</ul>
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
