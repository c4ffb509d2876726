/**
 * Black-box: the case table (cases.ts) through a real node, against each
 * evaluator the API exposes: evaluate (the compiled engine), explain (its
 * per-condition verdict and `matched`) and evaluate as of the current
 * position (the audit scan engine). Every case whose rules the API accepts
 * and whose fields JSON carries as they are is sent; the rules of all cases
 * live side by side, so each answer is read for its case's rules only.
 */
import t from 'tap';
import type { Fields, RuleDefinition } from '../../src/engine';
import type { Client } from '../support/http';
import { withNode } from '../support/with-node';
import { CASES } from './cases';

const live = withNode(t);

/** JSON carries the value as it is (no NaN, infinities or -0; null is JSON, an absent field). */
const jsonSafe = (fields: Fields): boolean =>
  Object.values(fields as Record<string, unknown>).every((v) =>
    v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)));

interface Sent {
  readonly name: string;
  readonly fields: Fields;
  readonly expected: readonly string[];
  /** The case's rule ids on the node, by the case's own ids. */
  readonly ids: ReadonlyMap<string, string>;
}

interface GroupAnswer { readonly result: boolean }
interface RuleAnswer { readonly rule_id: string; readonly matched: boolean; readonly status: string; readonly group_operator: string; readonly groups: GroupAnswer[] }

/** Creates a case's rules; undefined when the API refuses one (write-time validation of never-true conditions). */
async function createCase(index: number, rules: readonly RuleDefinition[]): Promise<Map<string, string> | undefined> {
  const ids = new Map<string, string>();
  for (const rule of rules) {
    const answer = await live.admin.post('/api/rule-engine/rules', {
      name: `case ${index} ${rule.id}`, status: rule.status, group_operator: rule.group_operator, condition_groups: rule.condition_groups,
    });
    if (answer.status === 400) return undefined;
    if (answer.status !== 201) throw new Error(`case ${index}: ${answer.status} ${answer.text}`);
    ids.set(rule.id, answer.json.id);
  }
  return ids;
}

/** The case's own ids among `matched` (node ids), sorted. */
function answerOf(sent: Sent, matched: readonly string[]): string[] {
  const local = new Map([...sent.ids].map(([mine, theirs]) => [theirs, mine]));
  return matched.filter((id) => local.has(id)).map((id) => local.get(id)!).sort();
}

const sent: Sent[] = [];
let skipped = 0;
let evaluator: Client;
t.before(async () => {
  evaluator = live.clientFor((await live.admin.post('/api/api-keys', { name: 'ev', scopes: ['evaluate'] })).json.key);
  for (const [index, [name, rules, fields, expected]] of CASES.entries()) {
    const ids = jsonSafe(fields) ? await createCase(index, rules) : undefined;
    if (ids === undefined) skipped += 1;
    else sent.push({ name, fields, expected, ids });
  }
});

t.test('evaluate (the compiled engine) answers every case as the table says', async (t) => {
  t.ok(sent.length > CASES.length * 0.9, `${sent.length} cases sent, ${skipped} left out (refused rules, fields JSON cannot carry)`);
  for (const c of sent) {
    const answer = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: c.fields });
    t.equal(answer.status, 200, c.name);
    t.same(answerOf(c, answer.json.matchingRuleIds), c.expected, c.name);
  }
});

t.test('evaluate as of now (the audit scan engine) answers every case as the table says', async (t) => {
  const asOf = (await live.admin.get('/readyz')).json.position;
  for (const c of sent) {
    const answer = await live.admin.post('/api/audit/evaluate', { entity_type: 'context', fields: c.fields, as_of: asOf });
    t.equal(answer.status, 200, c.name);
    t.same(answerOf(c, answer.json.matchingRuleIds), c.expected, c.name);
  }
});

t.test("explain's verdict, condition by condition, answers every case as the table says", async (t) => {
  for (const c of sent) {
    const answer = await live.admin.post('/api/rule-engine/explain', { entity_type: 'context', fields: c.fields, rule_ids: [...c.ids.values()] });
    t.equal(answer.status, 200, c.name);
    const rules = answer.json.rules as RuleAnswer[];
    t.same(answerOf(c, rules.filter((r) => r.matched).map((r) => r.rule_id)), c.expected, `${c.name}: matched`);
    // Explain's own reading of its groups, from each condition's result.
    const judged = rules.filter((r) => r.status === 'ACTIVE' && r.groups.length > 0 &&
      (r.group_operator === 'AND' ? r.groups.every((g) => g.result) : r.groups.some((g) => g.result)));
    t.same(answerOf(c, judged.map((r) => r.rule_id)), c.expected, `${c.name}: groups`);
  }
});
