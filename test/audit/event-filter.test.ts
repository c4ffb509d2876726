/** The audit log query: parameters that are wrong are named; filters match what they say. */
import t from 'tap';
import { matchesFilter, parseEventQuery } from '../../src/audit/event-filter';
import type { RecordedEvent } from '../../src/store/port';

const event = (stream: string, type: string, actor: string, at: string) => ({
  id: 'e', stream, type, revision: 0n, position: 1n, data: {}, metadata: { actor, at, request_id: 'r', schema: 1 },
}) as RecordedEvent;

t.test('bad parameters are 400s naming the parameter', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ after: '-1' }, /^after /],
    [{ after: 'x' }, /^after /],
    [{ limit: '0' }, /^limit /],
    [{ limit: '1001' }, /^limit /],
    [{ limit: '1e2' }, /^limit /],
    [{ stream: '' }, /^stream /],
    [{ type: '' }, /^type /],
    [{ actor: '' }, /^actor /],
    [{ from: 'yesterday' }, /^from /],
    [{ to: '2026-01-01' }, /^to /],
    [{ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, /^from must not be later than to/],
  ];
  for (const [query, message] of cases) {
    t.throws(() => parseEventQuery(query), { message, code: 'bad_request' }, JSON.stringify(query));
  }
});

t.test('filters', async (t) => {
  const e = event('rule-123', 'RuleUpdated', 'alice', '2026-01-15T10:00:00.000Z');
  const f = (query: Record<string, string>) => matchesFilter(parseEventQuery(query).filter, e);
  t.ok(f({}));
  t.ok(f({ stream: 'rule-123' }), 'exact stream');
  t.notOk(f({ stream: 'rule-12' }), 'exact means exact');
  t.ok(f({ stream: 'rule-' }), 'a trailing - is a prefix');
  t.ok(f({ stream: 'rule-1*' }), 'a trailing * is a prefix');
  t.notOk(f({ stream: 'context-' }));
  t.ok(f({ type: 'RuleCreated,RuleUpdated' }), 'a list of types');
  t.notOk(f({ type: 'RuleCreated' }));
  t.ok(f({ actor: 'alice' }));
  t.notOk(f({ actor: 'bob' }));
  t.ok(f({ from: '2026-01-15T10:00:00Z', to: '2026-01-15T10:00:00Z' }), 'bounds are inclusive');
  t.ok(f({ from: '2026-01-15T11:00:00+01:00' }), 'zones are normalized');
  t.notOk(f({ from: '2026-01-15T10:00:00.001Z' }));
  t.notOk(f({ to: '2026-01-15T09:59:59.999Z' }));
});
