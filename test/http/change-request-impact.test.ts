/**
 * Black-box: a change request's impact and its test cases (issue 67 item 3).
 * Over a seeded history of recorded decisions, GET .../impact lists exactly
 * the decisions whose answer the request flips, each checked against the
 * node's own answers (audit evaluate at the head of the log, and dry-run with
 * the proposed rule as a draft). The test-case set changes only through an
 * applied request; a failing case blocks approval (409 naming it) unless the
 * approver overrides with a reason, which the approval and history keep.
 */
import t from 'tap';
import { seededRandom, pick } from '../engine/random-rules';
import { call, type Answer, type Client } from '../support/http';
import { forCells, type Cell } from '../support/matrix';
import { leadSeed, replayHint } from '../support/seeds';
import { withNode } from '../support/with-node';

const CR = '/api/change-requests';

interface EvalAnswer {
  matchingRuleIds: string[];
  entities: { rule_id: string; entity_type: string; entity_id: string }[];
}

const ageBody = (min: number, context: string) => ({
  name: 'adults', condition_groups: [{ conditions: [{ field: 'age', operator: 'gte', value: String(min), data_type: 'number' }] }],
  entities: [{ entity_type: 'context', entity_id: context }],
});
const entityKey = (e: EvalAnswer['entities'][number]) => `${e.rule_id} ${e.entity_type}:${e.entity_id}`;
const minus = <T>(a: T[], b: T[], key: (x: T) => string) => a.filter((x) => !new Set(b.map(key)).has(key(x))).map(key).sort();

async function ok(answer: Promise<Answer>, status = 200): Promise<Answer> {
  const done = await answer;
  if (done.status !== status) throw new Error(`expected ${status}, got ${done.status}: ${done.text}`);
  return done;
}

forCells(t, 'change-request-impact', (t, cell: Cell) => {
  const live = withNode(t, { cell, env: { RULEVAULT_DECISION_LOG: '1' } });
  const admin = live.admin;
  const seed = leadSeed();

  /** Opens and submits a request; its answer after the submit (the ETag an approval names). */
  const submitted = async (changes: unknown[]): Promise<Answer> => {
    const opened = await ok(admin.post(CR, { title: 'a change', changes }), 201);
    return ok(admin.post(`${CR}/${opened.json.id}/submit`));
  };
  const approve = (approver: Client, review: Answer, body?: unknown) =>
    approver.post(`${CR}/${review.json.id}/approve`, body, { headers: { 'If-Match': review.headers.get('etag')! } });

  t.test('impact, test cases, approval blocked and overridden', async (t) => {
    const app = live.clientFor((await ok(admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] }), 201)).json.key);
    const approver = live.clientFor((await ok(admin.post('/api/api-keys', { name: 'approver', scopes: ['approve'] }), 201)).json.key);
    const context = async (name: string) => (await ok(admin.post('/api/contexts', { name, content: name }), 201)).json.id as string;
    const [gold, adult] = [await context('gold'), await context('adult')];
    const goldRule = (await ok(admin.post('/api/rule-engine/rules', {
      name: 'gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }], entities: [{ entity_type: 'context', entity_id: gold }],
    }), 201)).json.id as string;
    const ageRule = (await ok(admin.post('/api/rule-engine/rules', ageBody(50, adult)), 201)).json.id as string;

    // The seeded history: 40 recorded answers.
    const random = seededRandom(seed);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const fields = { tier: pick(random, ['gold', 'silver']), age: Math.floor(random() * 100) };
      const answer = await ok(app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields }));
      ids.push(answer.headers.get('rulevault-decision-id')!);
    }
    const fieldsOf = new Map<string, Record<string, unknown>>();
    for (const id of ids) fieldsOf.set(id, (await ok(admin.get(`/api/audit/decisions/${id}`))).json.request.fields);

    t.test('the impact route lists exactly the decisions that flip', async (t) => {
      const review = await submitted([{ op: 'update', resource: { type: 'rule', id: ageRule }, body: ageBody(30, adult) }]);
      const report = (await ok(approver.get(`${CR}/${review.json.id}/impact`))).json;
      const head = (await admin.get('/readyz')).json.position;
      const expected = new Map<string, { rules: [string[], string[]]; entities: [string[], string[]] }>();
      for (const id of ids) {
        const fields = fieldsOf.get(id)!;
        const before: EvalAnswer = (await ok(admin.post('/api/audit/evaluate', { as_of: head, entity_type: 'context', fields }))).json;
        const after: EvalAnswer = (await ok(admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields, rules: [{ id: ageRule, ...ageBody(30, adult) }] }))).json;
        const rules: [string[], string[]] = [minus(after.matchingRuleIds, before.matchingRuleIds, String), minus(before.matchingRuleIds, after.matchingRuleIds, String)];
        const entities: [string[], string[]] = [minus(after.entities, before.entities, entityKey), minus(before.entities, after.entities, entityKey)];
        if (rules.flat().length + entities.flat().length > 0) expected.set(id, { rules, entities });
      }
      t.ok(expected.size > 0 && expected.size < ids.length, `${replayHint(seed)}: some decisions flip, not all (${expected.size} of ${ids.length})`);
      t.equal(report.read, ids.length, 'the default window holds every record');
      t.equal(report.replayed, ids.length);
      t.equal(report.changed, expected.size);
      t.same(report.changes.map((c: { decision_id: string }) => c.decision_id).sort(), [...expected.keys()].sort(), 'exactly the decisions that flip');
      for (const change of report.changes) {
        t.same({
          rules: [[...change.rule_ids.added].sort(), [...change.rule_ids.removed].sort()],
          entities: [change.entities.added.map(entityKey).sort(), change.entities.removed.map(entityKey).sort()],
        }, expected.get(change.decision_id), `${replayHint(seed)}: decision ${change.decision_id}`);
      }
      t.equal(report.explain.length, Math.min(5, report.changed), 'a sample is explained');
      t.same(report.touched_rule_ids, [ageRule]);

      const past = await ok(approver.get(`${CR}/${review.json.id}/impact?since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00Z`));
      t.same([past.json.read, past.json.window], [0, { from: '2000-01-01T00:00:00.000Z', to: '2000-01-02T00:00:00.000Z' }], 'the window is the one asked');
      const bad = await approver.get(`${CR}/${review.json.id}/impact?since=yesterday`);
      t.same([bad.status, bad.json.code], [400, 'bad_request']);
      t.match(bad.json.err, /^since must be an ISO 8601 time/);
      const unknown = await approver.get(`${CR}/${review.json.id}/impact?from=2026-01-01T00:00:00Z`);
      t.equal(unknown.status, 400);
      t.match(unknown.json.err, /from/);
      t.equal((await approver.get(`${CR}/no-such-request/impact`)).status, 404);
      t.equal((await app.get(`${CR}/${review.json.id}/impact`)).status, 403, 'an evaluate key reads no impact');
    });

    t.test('the test-case set changes only through a request; failing cases block approval', async (t) => {
      const none = (await ok(approver.get('/api/test-cases'))).json;
      t.same([none.revision, none.count, none.cases], [null, 0, []], 'no set yet');
      for (const method of ['PUT', 'POST', 'PATCH', 'DELETE']) {
        const direct = await call(live.url, method, '/api/test-cases', { key: live.node.adminKey, body: { cases: '' } });
        t.ok(direct.status >= 400, `${method} /api/test-cases writes nothing (${direct.status})`);
      }

      const cases = [
        { name: 'forty is not an adult', entity_type: 'context', fields: { age: 40 }, expect: { rules: [] } },
        { name: 'gold', entity_type: 'context', fields: { tier: 'gold', age: 10 }, expect: { rules: [goldRule], entities: [gold] } },
      ];
      const badCases = await admin.post(CR, { title: 'bad', changes: [{ op: 'set-test-cases', body: { cases: [cases[0], { name: 'x' }] } }] });
      t.equal(badCases.status, 400);
      t.match(badCases.json.err, /^changes\[0\]\.body\.cases\[1\]: line 2: entity_type must be one of/);

      const setting = await submitted([{ op: 'set-test-cases', body: { cases } }]);
      t.same(setting.json.changes[0].resource, { type: 'test-cases', id: 'default' });
      const own = (await ok(approver.get(`${CR}/${setting.json.id}/test-results`))).json;
      t.same([own.source, own.passed, own.failed], ['request', 2, 0], 'a request that sets the cases runs its own');
      t.equal((await ok(approve(approver, setting))).json.state, 'approved');
      await ok(admin.post(`${CR}/${setting.json.id}/apply`));
      const set = (await ok(approver.get('/api/test-cases'))).json;
      t.same([set.revision, set.count, set.change_request, set.cases.map((c: { name: string }) => c.name)], ['0', 2, setting.json.id, cases.map((c) => c.name)]);
      const events = (await ok(admin.get('/api/audit/events?stream=test-cases'))).json.events;
      t.same(events.map((e: { type: string; metadata: { change_request: string } }) => [e.type, e.metadata.change_request]), [['TestCasesSet', setting.json.id]]);

      // Lowering the limit to 30 makes forty an adult: the first case fails.
      const lowering = await submitted([{ op: 'update', resource: { type: 'rule', id: ageRule }, body: ageBody(30, adult) }]);
      const results = (await ok(approver.get(`${CR}/${lowering.json.id}/test-results`))).json;
      t.same([results.source, results.test_cases_revision, results.passed, results.failed], ['current', '0', 1, 1]);
      t.same(results.cases[0], { name: 'forty is not an adult', line: 1, pass: false, diff: { rules: { missing: [], unexpected: [ageRule] } } });
      const blocked = await approve(approver, lowering);
      t.same([blocked.status, blocked.json.code], [409, 'conflict'], 'a failing case blocks the approval');
      t.match(blocked.json.err, /fails 1 test case: "forty is not an adult" \(line 1\).*override/);
      const noReason = await approve(approver, lowering, { override: '' });
      t.same([noReason.status, noReason.json.code], [400, 'bad_request'], 'an override without a reason');
      t.match(noReason.json.err, /override/);
      const still = (await ok(approver.get(`${CR}/${lowering.json.id}`))).json;
      t.same([still.state, still.approvals], ['in_review', []], 'neither wrote an approval');

      const reason = 'forty-year-olds are adults from today (ticket 9)';
      const overridden = await ok(approve(approver, lowering, { override: reason }));
      t.equal(overridden.json.state, 'approved');
      t.equal(overridden.json.approvals[0].override, reason, 'the request answers the override');
      const history = (await ok(approver.get(`${CR}/${lowering.json.id}/history`))).json.events;
      const approval = history.find((e: { type: string }) => e.type === 'ChangeRequestApproved');
      t.equal(approval.data.override, reason, 'the history keeps it');

      // A request that lowers the limit and fixes the case with it passes its own cases.
      const both = await submitted([
        { op: 'update', resource: { type: 'rule', id: ageRule }, body: ageBody(30, adult) },
        { op: 'set-test-cases', body: { cases: cases.map((c) => JSON.stringify(c.name === 'gold' ? c : { ...c, name: 'forty is an adult', expect: { rules: [ageRule] } })).join('\n') } },
      ]);
      const fixed = (await ok(approver.get(`${CR}/${both.json.id}/test-results`))).json;
      t.same([fixed.source, fixed.passed, fixed.failed], ['request', 2, 0]);
      t.equal((await ok(approve(approver, both))).json.state, 'approved', 'no override needed');
      const impact = (await ok(approver.get(`${CR}/${both.json.id}/impact`))).json;
      t.match(impact.not_replayed, [{ index: 1, op: 'set-test-cases', why: /test cases/ }], 'the set is listed as not replayed');

      // Pinned like any change: a set that moved since makes a request stale.
      const rival = await submitted([{ op: 'set-test-cases', body: { cases: [] } }]);
      t.equal(rival.json.changes[0].base_revision, '0', 'pinned to the set as it is');
      await ok(approve(approver, rival));
      await ok(admin.post(`${CR}/${both.json.id}/apply`));
      t.same((await ok(approver.get('/api/test-cases'))).json.cases.map((c: { name: string }) => c.name), ['forty is an adult', 'gold'], 'applied with the rule change');
      const stale = await admin.post(`${CR}/${rival.json.id}/apply`);
      t.same([stale.status, stale.json.code], [409, 'stale']);
      t.match(stale.json.err, /the test cases moved from revision 0 to revision 1/);
      t.equal((await ok(approver.get('/api/test-cases'))).json.revision, '1', 'the stale request wrote nothing');

      // A revert sets the cases back as they were.
      const revert = (await ok(admin.post(`${CR}/${both.json.id}/revert`), 201)).json;
      const back = revert.changes.find((c: { op: string }) => c.op === 'set-test-cases');
      t.equal(back.base_revision, '1');
      t.same(back.body.cases.split('\n').map((line: string) => JSON.parse(line).name), cases.map((c) => c.name), 'the cases before the apply');
    });
  });
});
