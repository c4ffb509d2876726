/**
 * Impact of a change (docs/auditors.md#impact-of-a-change): a real node
 * records a seeded history of decisions, then impactOf replays them against
 * proposed changes. The decisions it lists as flipping are checked, one by
 * one, against the node's own answers: audit evaluate at the head of the
 * log (the baseline) and dry-run with the proposed rules as drafts.
 */
import path from 'node:path';
import t from 'tap';
import { impactOf, impactWindow, decisionsWithin } from '../../src/audit/impact';
import type { DecisionRecord, StoredDecision } from '../../src/audit/decision-log';
import { MASKED } from '../../src/audit/decision-mask';
import { AppError } from '../../src/base/errors';
import { loadConfig } from '../../src/base/config';
import { seededRandom, pick } from '../engine/random-rules';
import { client, createRule } from '../support/http';
import { leadSeed, replayHint } from '../support/seeds';
import { nodeWith } from './support/sink';

interface Answer {
  matchingRuleIds: string[];
  entities: { rule_id: string; entity_type: string; entity_id: string; variant: string | null }[];
}

const ageBody = (min: number, context: string) => ({
  name: 'adults', condition_groups: [{ conditions: [{ field: 'age', operator: 'gte', value: String(min), data_type: 'number' }] }],
  entities: [{ entity_type: 'context', entity_id: context }],
});
const countryBody = (context: string) => ({
  name: 'france', condition_groups: [{ conditions: [{ field: 'country', operator: 'equals', value: 'fr' }] }],
  entities: [{ entity_type: 'context', entity_id: context }],
});
const ssnBody = (prefix: string, context: string) => ({
  name: 'ssn', condition_groups: [{ conditions: [{ field: 'ssn', operator: 'starts_with', value: prefix }] }],
  entities: [{ entity_type: 'context', entity_id: context }],
});

/** The fields a replay evaluates: the masked ones left out (they are absent fields then). */
function unmaskedFields(record: DecisionRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record.request.fields).filter(([, value]) => value !== MASKED));
}

const entityKey = (e: Answer['entities'][number]) => `${e.rule_id} ${e.entity_type}:${e.entity_id}`;
const minus = <T>(a: T[], b: T[], key: (x: T) => string) => a.filter((x) => !new Set(b.map(key)).has(key(x))).map(key).sort();

t.test('impactOf lists exactly the decisions that flip, checked against audit evaluate and dry-run of each', async (t) => {
  const seed = leadSeed();
  const node = await nodeWith(t, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_DECISION_LOG_MASK_FIELDS: 'ssn' });
  const admin = client(node.url, node.adminKey);
  const app = client(node.url, (await admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key);
  const context = async (name: string) => (await admin.post('/api/contexts', { name, content: name })).json.id as string;
  const [gold, adult, france, ssnContext] = [await context('gold'), await context('adult'), await context('france'), await context('ssn')];
  const goldRule = await createRule(admin, {
    name: 'gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
    entities: [{ entity_type: 'context', entity_id: gold }],
  });
  const ageRule = await createRule(admin, ageBody(50, adult));
  const ssnRule = await createRule(admin, ssnBody('9', ssnContext));

  // The seeded history: 80 answers, some carrying the masked ssn.
  const random = seededRandom(seed);
  const ids: string[] = [];
  let withSsn = 0;
  for (let i = 0; i < 80; i++) {
    const fields: Record<string, unknown> = { tier: pick(random, ['gold', 'silver', 'bronze']), age: Math.floor(random() * 100), country: pick(random, ['de', 'fr', 'us']) };
    if (random() < 0.3) {
      fields.ssn = `${Math.floor(random() * 10)}${Math.floor(random() * 1e8)}`;
      withSsn += 1;
    }
    const answer = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields });
    t.equal(answer.status, 200);
    ids.push(answer.headers.get('rulevault-decision-id')!);
  }
  // A lookup writes what the sink has queued first.
  t.equal((await admin.get(`/api/audit/decisions/${ids[ids.length - 1]}`)).status, 200);
  const auditDir = path.join(node.dataDir, 'audit');
  const window = impactWindow(Date.now() + 1000);
  const records = [...decisionsWithin(auditDir, window)] as DecisionRecord[];
  t.same(records.map((r) => r.decision_id), [...ids].reverse(), 'the window holds every record, newest first');

  const { readModel } = node.node;
  const limits = loadConfig(node.env).limits;
  const impact = (proposed: unknown, more: Record<string, unknown> = {}) =>
    impactOf({ state: readModel.state, engine: readModel.engine, proposed, decisions: decisionsWithin(auditDir, window), window, limits, ...more });

  // The baseline of each record: audit evaluate at the head of the log.
  const head = (await admin.get('/readyz')).json.position;
  const baseline = new Map<string, Answer>();
  for (const record of records) {
    const answer = await admin.post('/api/audit/evaluate', { as_of: head, entity_type: 'context', fields: unmaskedFields(record) });
    t.equal(answer.status, 200, answer.text);
    baseline.set(record.decision_id, answer.json);
  }

  t.test('a rule update and a rule create', async (t) => {
    const created = '7d0c2f9a-8a57-4d7e-9a8e-2b1c7f3e9d10';
    const revision = readModel.state.rules.get(ageRule)!.revision.toString();
    const report = await impact([
      { op: 'update', resource: { type: 'rule', id: ageRule }, base_revision: revision, body: ageBody(30, adult) },
      { op: 'create', resource: { type: 'rule', id: created }, body: countryBody(france) },
    ]);
    // What each decision answers with the same drafts in place: dry-run (its new draft answers as draft-1).
    const expected = new Map<string, { rules: [string[], string[]]; entities: [string[], string[]] }>();
    for (const record of records) {
      const dry = await admin.post('/api/rule-engine/dry-run', {
        entity_type: 'context', fields: unmaskedFields(record), rules: [{ id: ageRule, ...ageBody(30, adult) }, countryBody(france)],
      });
      t.equal(dry.status, 200, dry.text);
      const after: Answer = {
        matchingRuleIds: dry.json.matchingRuleIds.map((id: string) => (id === 'draft-1' ? created : id)),
        entities: dry.json.entities.map((e: Answer['entities'][number]) => ({ ...e, rule_id: e.rule_id === 'draft-1' ? created : e.rule_id })),
      };
      const before = baseline.get(record.decision_id)!;
      const rules: [string[], string[]] = [minus(after.matchingRuleIds, before.matchingRuleIds, String), minus(before.matchingRuleIds, after.matchingRuleIds, String)];
      const entities: [string[], string[]] = [minus(after.entities, before.entities, entityKey), minus(before.entities, after.entities, entityKey)];
      if (rules.flat().length + entities.flat().length > 0) expected.set(record.decision_id, { rules, entities });
    }
    t.ok(expected.size > 0 && expected.size < records.length, `${replayHint(seed)}: some decisions flip, not all (${expected.size} of ${records.length})`);
    t.equal(report.read, records.length);
    t.equal(report.replayed, records.length, 'the masked ssn is read by no rule the change moves: every record replays');
    t.equal(report.unreproducible.count, 0);
    t.equal(report.truncated, false);
    t.equal(report.changed, expected.size);
    t.equal(report.unchanged, records.length - expected.size);
    t.same(report.changes.map((c) => c.decision_id).sort(), [...expected.keys()].sort(), 'exactly the decisions that flip');
    for (const change of report.changes) {
      const want = expected.get(change.decision_id)!;
      t.same({
        rules: [[...change.rule_ids.added].sort(), [...change.rule_ids.removed].sort()],
        entities: [change.entities.added.map(entityKey).sort(), change.entities.removed.map(entityKey).sort()],
      }, want, `${replayHint(seed)}: decision ${change.decision_id}`);
      t.same(change.variants, [], 'no split: no variant moves');
    }
    t.same(report.touched_rule_ids, [ageRule, created].sort());
    t.equal(report.explain.length, Math.min(5, report.changed), 'a sample of at most 5 is explained');
    for (const sample of report.explain) {
      const moved = report.changes.find((c) => c.decision_id === sample.decision_id)!;
      t.same(sample.rules.map((r) => r.rule_id).sort(), [...new Set([...moved.rule_ids.added, ...moved.rule_ids.removed])].sort());
      for (const rule of sample.rules) t.equal(rule.matched, moved.rule_ids.added.includes(rule.rule_id), 'explained as proposed');
    }
  });

  t.test('a change to a rule that reads a masked field: those records are unreproducible, never guessed', async (t) => {
    const report = await impact([{ op: 'update', resource: { type: 'rule', id: ssnRule }, body: { condition_groups: ssnBody('1', ssnContext).condition_groups } }]);
    const masked = records.filter((r) => r.masked.includes('fields.ssn')).map((r) => r.decision_id).sort();
    t.equal(masked.length, withSsn);
    t.ok(withSsn > 0, 'the seed masks some');
    t.equal(report.unreproducible.count, withSsn);
    t.same(report.unreproducible.decisions.map((d) => d.decision_id).sort(), masked);
    t.same(report.unreproducible.decisions[0]!.masked_fields, ['ssn']);
    t.equal(report.replayed, records.length - withSsn);
    t.equal(report.changed, 0, 'without ssn the rule matches neither way');
  });

  t.test('a context made INACTIVE, and a context deleted: their links drop', async (t) => {
    const holding = (id: string) => records.filter((r) => baseline.get(r.decision_id)!.entities.some((e) => e.entity_id === id)).map((r) => r.decision_id).sort();
    const inactive = await impact([{ op: 'update', resource: { type: 'context', id: gold }, body: { status: 'INACTIVE' } }]);
    t.ok(holding(gold).length > 0);
    t.same(inactive.changes.map((c) => c.decision_id).sort(), holding(gold));
    for (const change of inactive.changes) {
      t.same(change.rule_ids, { added: [], removed: [] }, 'the rule still matches');
      t.same(change.entities.removed.map(entityKey), [`${goldRule} context:${gold}`]);
    }
    const deleted = await impact([{ op: 'delete', resource: { type: 'context', id: adult } }]);
    t.same(deleted.changes.map((c) => c.decision_id).sort(), holding(adult));
    t.same(deleted.touched_rule_ids, [ageRule], 'the rule linking it is unlinked, as the delete route does');
    for (const change of deleted.changes) t.same(change.entities.removed.map(entityKey), [`${ageRule} context:${adult}`]);
  });

  t.test('the bound stops reading and says so; the window is honoured; label moves are not replayed', async (t) => {
    const bounded = await impact([{ op: 'delete', resource: { type: 'rule', id: goldRule } }], { maxDecisions: 10 });
    t.equal(bounded.read, 10);
    t.equal(bounded.truncated, true);
    t.equal(bounded.max_decisions, 10);
    const newest = new Set(ids.slice(-10));
    t.ok(bounded.changes.every((c) => newest.has(c.decision_id)), 'the newest records are the ones read');
    const before = { from: '2000-01-01T00:00:00.000Z', to: '2000-01-02T00:00:00.000Z' };
    const none = await impactOf({ state: readModel.state, engine: readModel.engine, proposed: [], decisions: decisionsWithin(auditDir, before), window: before, limits });
    t.equal(none.read, 0);
    const label = await impact([{ op: 'move-label', resource: { type: 'prompt-label', id: 'p', label: 'production' }, body: { version: '1.0.0' } }]);
    t.equal(label.changed, 0);
    t.match(label.not_replayed, [{ index: 0, op: 'move-label', why: /entity_data/ }]);
  });

  t.test('stand-ins are counted as incomplete', async (t) => {
    const standIn: StoredDecision = {
      decision_id: 'x', at: records[0]!.at, key_id: 'k', position: null, incomplete: 'the record could not be serialized', answer: { matchingRuleIds: [], entities: [] },
    };
    const report = await impactOf({ state: readModel.state, engine: readModel.engine, proposed: [], decisions: [standIn, records[0]!], window, limits });
    t.same([report.read, report.replayed, report.incomplete.count], [2, 1, 1]);
    t.same(report.incomplete.decisions, [{ decision_id: 'x', why: 'the record could not be serialized' }]);
  });

  t.test('bad changes are 400s naming the change, a moved base revision a 409', async (t) => {
    const refused = async (proposed: unknown, code: string, message: RegExp) => {
      const error = await impact(proposed).then(() => undefined, (e: unknown) => e);
      t.ok(error instanceof AppError, 'an AppError');
      t.match(error, { code, message }, message.source);
    };
    await refused({}, 'bad_request', /^changes must be an array/);
    await refused([{ op: 'rename', resource: { type: 'rule', id: ageRule } }], 'bad_request', /^changes\[0\]\.op must be one of/);
    await refused([{ op: 'update', resource: { type: 'rule' } }], 'bad_request', /^changes\[0\]\.resource\.id is required/);
    await refused([{ op: 'update', resource: { type: 'rule', id: ageRule }, body: { colour: 'red' } }], 'bad_request', /^changes\[0\]: has an unknown member "colour"/);
    await refused([{ op: 'update', resource: { type: 'rule', id: 'nope' }, body: { name: 'x' } }], 'bad_request', /^changes\[0\]: .*nope/);
    await refused([{ op: 'update', resource: { type: 'rule', id: ageRule }, base_revision: '99', body: { name: 'x' } }], 'conflict', /^changes\[0\]: rule .* is at revision 0, not 99/);
    await refused([{ op: 'create', resource: { type: 'rule' }, body: countryBody('no-such-context') }], 'bad_request', /^changes\[0\]: entities\[0\]: context no-such-context does not exist/);
  });
});
