/**
 * Every evaluator of the rule language behind one interface, so a table of
 * cases runs against all of them (test/engine/case-table.test.ts): the
 * compiled engine, the audit scan engine, explain's verdict and the
 * json-rules-engine reference. They share the operator table
 * (src/engine/operators.ts) but not the way they combine it: the compiled
 * engine tests arena words with its own switch (code.ts), explain judges
 * each condition and group itself.
 */
import type { RuleRecord } from '../../projections';
import { explainRules, type RuleExplanation } from '../../src/audit/explain';
import { createScanEngine, scanEngineInSlices, scanInSlices } from '../../src/audit/rule-check';
import { sliceClock } from '../../src/service/read-ahead';
import { createEngine, type Fields, type RuleDefinition } from '../../src/engine';
import { createReferenceEngine } from './reference';

/** A projected record around an engine definition. */
export function ruleRecord(rule: RuleDefinition, revision = 0n): RuleRecord {
  return {
    ...rule, name: `name ${rule.id}`, description: '', entities: [],
    created_by: 'test', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
    revision, position: revision + 10n,
  } as RuleRecord;
}

/** The ids of the rules matching `fields`, sorted, by one evaluator built over `rules`. */
export type Evaluator = (rules: readonly RuleDefinition[], fields: Fields) => Promise<string[]>;

const records = (rules: readonly RuleDefinition[]): Map<string, RuleRecord> => new Map(rules.map((r) => [r.id, ruleRecord(r)]));

/** Whether explain's groups, as explained, make the rule match (its own verdict, not its `matched`). */
function explainedVerdict(e: RuleExplanation): boolean {
  if (e.status !== 'ACTIVE' || e.groups.length === 0) return false;
  return e.group_operator === 'AND' ? e.groups.every((g) => g.result) : e.group_operator === 'OR' && e.groups.some((g) => g.result);
}

export const EVALUATORS: ReadonlyArray<readonly [name: string, evaluate: Evaluator]> = [
  ['compiled engine', async (rules, fields) => {
    const engine = createEngine();
    for (const rule of rules) engine.upsert(rule);
    return engine.evaluate(fields);
  }],
  ['audit scan engine', async (rules, fields) => createScanEngine(records(rules)).evaluate(fields)],
  // A turn after every rule: the answer must not depend on where the slices fall.
  ['audit scan in slices', (rules, fields) => scanInSlices(createScanEngine(records(rules)), fields, { sliceMs: 0, batch: 1 })],
  // Built in slices with a turn after every step, from no engine and derived from one over the first half of the rules
  // (time travel's checkpoints): the same rules scanned whichever way the engine was made.
  ['audit scan engine built in slices', async (rules, fields) => (await scanEngineInSlices(records(rules), undefined, sliceClock(0))).evaluate(fields)],
  ['audit scan engine derived in slices', async (rules, fields) => {
    const half = rules.slice(0, rules.length >> 1);
    const base = { engine: createScanEngine(records(half)), changed: new Set(rules.slice(half.length).map((r) => r.id)) };
    return (await scanEngineInSlices(records(rules), base, sliceClock(0))).evaluate(fields);
  }],
  ["explain's verdict", async (rules, fields) => {
    const all = records(rules);
    const { rules: explained } = explainRules(all, fields, 0, [], { field: undefined, ruleIds: [...all.keys()] });
    // Explain's `matched` and its own reading of the groups must agree; a rule counts when both say so.
    const matched = explained.filter((e) => e.matched).map((e) => e.rule_id);
    const judged = explained.filter(explainedVerdict).map((e) => e.rule_id);
    if (JSON.stringify(matched) !== JSON.stringify(judged)) throw new Error(`explain: matched ${matched} but its groups say ${judged}`);
    return matched.sort();
  }],
  ['json-rules-engine reference', async (rules, fields) => createReferenceEngine(rules).evaluate(fields)],
];
