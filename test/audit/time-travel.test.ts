/**
 * Time travel on a real SQLite log: every point equals a fresh fold of that
 * prefix, by position and by time, with checkpoints thinned and points
 * evicted (tiny limits), and memory held stays within the limits.
 */
import path from 'node:path';
import t, { type Test } from 'tap';
import { evolve, initialState } from '../../projections';
import { canonicalState } from '../../src/audit/digest';
import { createTimeTravel, parseAsOf } from '../../src/audit/time-travel';
import { AppError } from '../../src/base/errors';
import { openSqliteStore } from '../../src/store/sqlite';
import type { Json, RecordedEvent } from '../../src/store/port';
import { removeDir, tempDir } from '../support/temp';
import { countTurns } from '../support/turns';

const at = (i: number) => new Date(Date.parse('2026-03-01T00:00:00.000Z') + i * 1000).toISOString();
const meta = (i: number) => ({ actor: 'test', at: at(i), request_id: `r${i}`, schema: 1 });
const rule = (id: string, value: string) => ({
  id, name: id, description: '', status: 'ACTIVE', group_operator: 'AND', entities: [],
  condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'f', operator: 'equals', value, data_type: 'string' }] }],
});

t.test('every point equals a fresh fold of its prefix', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const store = openSqliteStore(path.join(dir, 'events.db'));
  t.teardown(() => store.close());
  // 300 events: three generations of 10 rules, each created, updated 80 times over, then deleted.
  for (let i = 0; i < 300; i++) {
    const id = `rule-${i % 10}-${Math.floor(i / 100)}`;
    const stream = `rule-${id}`;
    const first = i % 100 < 10;
    const last = i % 100 >= 90;
    const type = first ? 'RuleCreated' : last ? 'RuleDeleted' : 'RuleUpdated';
    const data: { [key: string]: Json } = first ? rule(id, `v${i}`) : last ? { id } : { id, changes: { condition_groups: rule(id, `v${i}`).condition_groups } };
    await store.append(stream, [{ type, data, metadata: meta(i) }], 'any');
  }
  const log: RecordedEvent[] = await store.readAll({ limit: 1000 });
  t.equal(log.length, 300);
  const prefix = (n: number) => {
    const state = initialState();
    for (const event of log.slice(0, n)) evolve(state, event);
    return canonicalState(state);
  };
  const travel = createTimeTravel(store, { checkpointEvery: 7, maxCheckpoints: 4, maxPoints: 3, pageSize: 50 });
  const picks = [299, 0, 150, 151, 149, 12, 298, 77, 150, 5, 260, 261, 100, 3];
  for (const n of picks) {
    const byPosition = await travel.at({ kind: 'position', position: log[n]!.position });
    t.equal(byPosition.position, log[n]!.position, `position point ${n}`);
    t.equal(canonicalState(byPosition.state), prefix(n + 1), `state as of event ${n} (by position)`);
    const byTime = await travel.at({ kind: 'time', at: at(n) });
    t.equal(byTime.at, at(n));
    t.equal(canonicalState(byTime.state), prefix(n + 1), `state as of event ${n} (by time)`);
    const active = [...byTime.state.rules.values()].filter((r) => r.condition_groups[0]!.conditions[0]!.value === `v${n}`).map((r) => r.id);
    t.same(byTime.engine.evaluate({ f: `v${n}` }), active.sort(), 'the point engine evaluates that state');
    const stats = travel.stats();
    t.ok(stats.checkpoints <= 4 && stats.points <= 3, `bounded: ${JSON.stringify(stats)}`);
  }
  const before = await travel.at({ kind: 'time', at: '2025-01-01T00:00:00.000Z' });
  t.equal(before.position, undefined, 'a time before the log: the empty prefix');
  t.equal(before.state.rules.size, 0);
  const beyond = await travel.at({ kind: 'position', position: 10_000n });
  t.equal(beyond.position, log[299]!.position, 'a position past the head: the whole log');
  t.ok(travel.stats().spacing > 7, 'checkpoints thinned out as the log was folded');
});

/** A log of `live` rules created and never deleted, then `updates` updates over them: every snapshot holds them all. */
async function growingLog(t: Test, live: number, updates: number): Promise<{ store: ReturnType<typeof openSqliteStore>; log: RecordedEvent[] }> {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const store = openSqliteStore(path.join(dir, 'events.db'));
  t.teardown(() => store.close());
  for (let i = 0; i < live + updates; i++) {
    const id = `rule-${i % live}`;
    const data: { [key: string]: Json } = i < live ? rule(id, `v${i}`) : { id, changes: { condition_groups: rule(id, `v${i}`).condition_groups } };
    await store.append(`rule-${id}`, [{ type: i < live ? 'RuleCreated' : 'RuleUpdated', data, metadata: meta(i) }], 'any');
  }
  return { store, log: await store.readAll({ limit: 10_000 }) };
}

t.test('checkpoints and points hold no more records than the bound, and every point is still exact', async (t) => {
  const { store, log } = await growingLog(t, 200, 100);
  const prefix = (n: number) => {
    const state = initialState();
    for (const event of log.slice(0, n)) evolve(state, event);
    return canonicalState(state);
  };
  const bound = 600;
  const bounded = createTimeTravel(store, { checkpointEvery: 10, maxCheckpoints: 64, maxPoints: 8, maxHeldRecords: bound, pageSize: 50 });
  const unbounded = createTimeTravel(store, { checkpointEvery: 10, maxCheckpoints: 64, maxPoints: 8, pageSize: 50 });
  for (const n of [299, 40, 250, 199, 120, 280, 260, 10]) {
    const point = await bounded.at({ kind: 'position', position: log[n]!.position });
    t.equal(canonicalState(point.state), prefix(n + 1), `state as of event ${n}`);
    const stats = bounded.stats();
    // Past the bound only the last point and the last checkpoint are left.
    t.ok(stats.heldRecords <= bound || (stats.points <= 1 && stats.checkpoints <= 1), `within the bound: ${JSON.stringify(stats)}`);
    await unbounded.at({ kind: 'position', position: log[n]!.position });
  }
  t.ok(unbounded.stats().heldRecords > 5 * bound, `without the bound the same queries hold far more: ${JSON.stringify(unbounded.stats())}`);
  t.ok(bounded.stats().spacing > unbounded.stats().spacing, 'the bound thinned the checkpoints');
});

t.test('a fold stopped for memory is a 503, drops the checkpoints it laid, and a later query folds again exactly', async (t) => {
  const { store, log } = await growingLog(t, 50, 250);
  let asked = 0;
  let short = true;
  // sliceMs 0: memory is asked at every event; "short" from the 120th on, as a heap filling up would be.
  const travel = createTimeTravel(store, { checkpointEvery: 10, sliceMs: 0, roomRefusal: () => (short && ++asked >= 120 ? 'memory is short' : undefined) });
  const head = { kind: 'position', position: log[299]!.position } as const;
  const stopped = await travel.at(head).then(() => undefined, (error: unknown) => error);
  t.ok(stopped instanceof AppError && stopped.status === 503 && stopped.message === 'memory is short', 'a 503 with the reason');
  t.equal(asked, 120, 'stopped at the first turn that found memory short');
  t.same(travel.stats(), { checkpoints: 0, points: 0, spacing: 10, heldRecords: 0 }, 'nothing it laid is held');
  short = false;
  const point = await travel.at(head);
  const state = initialState();
  for (const event of log) evolve(state, event);
  t.equal(canonicalState(point.state), canonicalState(state), 'with room again: the exact state');
});

t.test('a fold gives the event loop turns while it reads the log', async (t) => {
  const { store, log } = await growingLog(t, 50, 250);
  const travel = createTimeTravel(store, { checkpointEvery: 10, sliceMs: 0 });
  const turning = countTurns();
  const point = await travel.at({ kind: 'position', position: log[299]!.position });
  const turns = turning.stop();
  t.equal(point.position, log[299]!.position);
  // sliceMs 0: a turn before every event folded (the embedded store answers its pages synchronously).
  t.ok(turns >= 300, `the event loop had ${turns} turns during a fold of 300 events`);
});

t.test('a checkpoint\'s copy and scan engine give the event loop turns too', async (t) => {
  // One checkpoint over 4,500 rules: its copy (4,096 entries a step) and its scan engine (256 rules a step) are
  // made in steps, as is the point's engine derived from it; at once, each held a 1M-rule node 0.2-1.3 s.
  const { store, log } = await growingLog(t, 4500, 0);
  const travel = createTimeTravel(store, { checkpointEvery: 4499, sliceMs: 0 });
  const turning = countTurns();
  const point = await travel.at({ kind: 'position', position: log[4499]!.position });
  const turns = turning.stop();
  t.equal(point.engine.evaluate({ f: 'v4499' }).length, 1);
  // A turn before each event, then the steps: the checkpoint's engine 17 and copy 1, the point's engine 17.
  t.ok(turns >= 4500 + 30, `the event loop had ${turns} turns during a fold of 4,500 events with a checkpoint`);
});

t.test('as_of parsing names as_of', async (t) => {
  t.same(parseAsOf(42), { kind: 'position', position: 42n });
  t.same(parseAsOf('42'), { kind: 'position', position: 42n });
  t.same(parseAsOf('2026-03-01T01:00:00+01:00'), { kind: 'time', at: '2026-03-01T00:00:00.000Z' });
  for (const bad of [undefined, '', -1, 1.5, 'yesterday', '2026-03-01', '2026-13-01T00:00:00Z', '123456789012345678901', {}, null]) {
    t.throws(() => parseAsOf(bad), /as_of/, `rejects ${JSON.stringify(bad)}`);
  }
});
