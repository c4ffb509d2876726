/**
 * Many clients PATCH one rule at once. With If-Match, exactly one write wins
 * per revision (the rest get 409) and the final revision counts the wins;
 * without it, every write succeeds (decided again on fresh state) and the
 * history holds each of them once, in revision order.
 */
import t from 'tap';
import { withNode } from '../support/with-node';

const CLIENTS = 20;

const live = withNode(t);
const admin = live.admin;

async function createRule(name: string): Promise<{ id: string; revision: string }> {
  const created = await admin.post('/api/rule-engine/rules', {
    name,
    condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  return created.json;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

t.test('with the same If-Match, exactly one of the concurrent writers wins', async (t) => {
  const rule = await createRule('contended');
  const answers = await Promise.all(range(CLIENTS).map((i) =>
    admin.patch(`/api/rule-engine/rules/${rule.id}`, { description: `writer ${i}` }, { headers: { 'if-match': rule.revision } })));
  const statuses = answers.map((a) => a.status).sort();
  t.same(statuses, [200, ...Array<number>(CLIENTS - 1).fill(409)], 'one 200, the rest 409');
  for (const lost of answers.filter((a) => a.status === 409)) t.type(lost.json?.err, 'string', '409 carries {err}');
  const winner = answers.find((a) => a.status === 200)!;
  const now = await admin.get(`/api/rule-engine/rules/${rule.id}`);
  t.equal(now.json.revision, String(Number(rule.revision) + 1), 'one write, one revision');
  t.equal(now.json.description, winner.json.description, 'the stored rule is the winner\'s');
});

t.test('writers that retry on 409 each win exactly one revision', async (t) => {
  const rule = await createRule('optimistic');
  const won: string[] = [];
  let conflicts = 0;
  await Promise.all(range(CLIENTS).map(async (i) => {
    for (;;) {
      const current = await admin.get(`/api/rule-engine/rules/${rule.id}`);
      const answer = await admin.patch(`/api/rule-engine/rules/${rule.id}`, { description: `writer ${i}` }, { headers: { 'if-match': current.json.revision } });
      if (answer.status === 200) {
        t.equal(answer.json.revision, String(Number(current.json.revision) + 1), `writer ${i} moved the rule one revision on`);
        won.push(answer.json.revision);
        return;
      }
      if (answer.status !== 409) throw new Error(`writer ${i}: ${answer.status} ${answer.text}`);
      conflicts += 1;
    }
  }));
  const expected = range(CLIENTS).map((i) => String(Number(rule.revision) + 1 + i));
  t.same([...won].sort((a, b) => Number(a) - Number(b)), expected, 'every revision was won by exactly one writer');
  const final = await admin.get(`/api/rule-engine/rules/${rule.id}`);
  t.equal(final.json.revision, String(Number(rule.revision) + won.length), 'the final revision counts the successful writes');
  t.comment(`${conflicts} conflicts along the way`);
});

t.test('without If-Match every concurrent write succeeds and the history holds each, in order', async (t) => {
  const rule = await createRule('last writer wins');
  const answers = await Promise.all(range(CLIENTS).map((i) =>
    admin.patch(`/api/rule-engine/rules/${rule.id}`, { description: `writer ${i}` })));
  t.same(answers.map((a) => a.status), Array<number>(CLIENTS).fill(200), 'all succeed');
  const history = await admin.get(`/api/rule-engine/rules/${rule.id}/history`);
  const events = history.json.events as { type: string; revision: string; position: string; changes: { description?: { after: string } } }[];
  t.equal(events.length, CLIENTS + 1, 'the creation and one update per writer');
  t.same(events.map((e) => e.type), ['RuleCreated', ...Array<string>(CLIENTS).fill('RuleUpdated')]);
  t.same(events.map((e) => e.revision), range(CLIENTS + 1).map(String), 'revisions 0..N in order');
  t.ok(events.every((e, i) => i === 0 || BigInt(e.position) > BigInt(events[i - 1]!.position)), 'positions ascend');
  const written = events.slice(1).map((e) => e.changes.description?.after).sort();
  t.same(written, range(CLIENTS).map((i) => `writer ${i}`).sort(), 'each writer\'s change is in the history once');
  const final = await admin.get(`/api/rule-engine/rules/${rule.id}`);
  t.equal(final.json.revision, String(CLIENTS), 'the final revision counts the writes');
  t.equal(final.json.description, events[CLIENTS]!.changes.description?.after, 'the rule holds the last write');
});
