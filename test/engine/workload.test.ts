/** The bench workload generator: deterministic, API-shaped, and close to the bench method's mix. */
import t from 'tap';
import { checkConditionGroups } from '../../src/engine';
import { percentile } from '../../bench/stats';
import { FIELDS, generateRequests, generateRules, SCOPED_FROM, scopedTenants, toDefinitions } from '../../bench/workload';

t.test('same seed, same rules and requests; another seed, others', async (t) => {
  t.same(generateRules({ seed: 3, count: 50 }), generateRules({ seed: 3, count: 50 }));
  t.same(generateRequests({ seed: 3, count: 50 }), generateRequests({ seed: 3, count: 50 }));
  t.not(JSON.stringify(generateRules({ seed: 3, count: 50 })), JSON.stringify(generateRules({ seed: 4, count: 50 })));
});

t.test('every generated rule passes write-time validation, in every shape', async (t) => {
  for (const shape of ['mixed', 'broad', 'regex-only', 'scoped'] as const) {
    const bodies = generateRules({ seed: 5, count: 2000, shape });
    const bad = bodies.filter((b) => checkConditionGroups(b.condition_groups).length > 0);
    t.same(bad, [], `${shape}: no invalid rule`);
    t.ok(bodies.every((b) => b.condition_groups.length >= 1 && b.condition_groups.length <= 2), `${shape}: 1 or 2 groups`);
  }
});

t.test('operator mix and request shape follow docs/bench-method.md', async (t) => {
  const bodies = generateRules({ seed: 6, count: 5000 });
  const counts = new Map<string, number>();
  let total = 0;
  let groupSizesOk = true;
  for (const b of bodies) {
    for (const g of b.condition_groups) {
      groupSizesOk &&= g.conditions.length >= 1 && g.conditions.length <= 4;
      for (const c of g.conditions) {
        counts.set(c.operator, (counts.get(c.operator) ?? 0) + 1);
        total++;
      }
    }
  }
  t.ok(groupSizesOk, 'every group has 1 to 4 conditions');
  const share = (...ops: string[]): number => ops.reduce((s, op) => s + (counts.get(op) ?? 0), 0) / total;
  t.ok(Math.abs(share('equals', 'in') - 0.55) < 0.03, `equals/in ${share('equals', 'in').toFixed(3)}`);
  t.ok(Math.abs(share('gt', 'gte', 'lt', 'lte', 'between') - 0.2) < 0.03, 'numeric ~20%');
  t.ok(Math.abs(share('regex') - 0.05) < 0.02, 'regex ~5%');
  t.equal(FIELDS.length, 30);
  const sizes = generateRequests({ seed: 6, count: 500 }).map((f) => Object.keys(f).length);
  t.ok(Math.min(...sizes) >= 8 && Math.max(...sizes) <= 15, 'requests carry 8 to 15 fields');
  const ids = toDefinitions(bodies).map((d) => d.id);
  t.equal(new Set(ids).size, ids.length, 'rule ids are distinct');
  t.ok(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/.test(id)), 'rule ids are UUID-shaped');
  t.equal(toDefinitions(bodies.slice(0, 2))[1].id, ids[1], 'the same index gives the same id');
  t.ok(new Set(ids.map((id) => id.slice(0, 2))).size > 200, 'ids differ early, like random UUIDs');
});

t.test('percentile is nearest-rank', async (t) => {
  t.equal(percentile([5, 1, 4, 2, 3], 50), 3);
  t.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99), 10);
  t.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 10), 1);
});

t.test('"scoped" is the standard rule set, then rules of one tenant each', async (t) => {
  const count = SCOPED_FROM + 300;
  const scoped = generateRules({ seed: 8, count, shape: 'scoped' });
  t.same(scoped.slice(0, SCOPED_FROM), generateRules({ seed: 8, count: SCOPED_FROM }), 'the first rules are the standard ones');
  const tenantScoped = scoped.slice(SCOPED_FROM).every((b) => {
    const [first] = b.condition_groups;
    const [lead] = first.conditions;
    return b.group_operator === 'AND' && first.condition_operator === 'AND' && lead.field === 'tenant.id' && lead.operator === 'equals';
  });
  t.ok(tenantScoped, 'every later rule is an AND led by tenant.id equals');
});

t.test('"scoped" past 100k rules widens tenant.id, in its rules and its requests alike', async (t) => {
  t.equal(scopedTenants(100_000), 2000, 'up to 100k: the standard 2,000 tenants (the 100k figures stay comparable)');
  t.equal(scopedTenants(1_000_000), 20_000, '1M: one tenant per 50 rules');
  t.same(generateRequests({ seed: 9, count: 300, tenants: 2000 }), generateRequests({ seed: 9, count: 300 }), '2,000 tenants: the standard requests');
  const tenantNumber = (value: unknown): number => Number(String(value).slice('tenant-'.length));
  // Only the tenant count (the rule count) is varied here: generating 1M rules in a test would take a minute.
  const wide = generateRequests({ seed: 9, count: 2000, tenants: 20_000 }).map((f) => f['tenant.id']).filter((v) => v !== undefined);
  t.ok(wide.every((v) => tenantNumber(v) < 20_000), 'requests name only tenants the rules may name');
  t.ok(wide.some((v) => tenantNumber(v) >= 2000), 'and tenants beyond the standard 2,000');
});
