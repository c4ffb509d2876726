/**
 * The change stream's publisher (src/service/change-feed.ts) on a real read
 * model: it keeps changes from the catch-up on, so a resume replays exactly
 * the changes after its Last-Event-ID even on a node (a worker) that had no
 * subscriber when they were applied; a state restored from a snapshot with
 * its records unread is left so until a first subscriber.
 */
import t from 'tap';
import { evolve, initialState, unreadRules, type CatalogState, type LazyRuleRecords } from '../../projections';
import { DEFAULTS } from '../../src/base/config';
import { createEngine } from '../../src/engine';
import { createReadModel } from '../../src/read-model/read-model';
import { createChangeFeed, type StreamAccess, type StreamSink } from '../../src/service/change-feed';
import { createEvaluationView } from '../../src/service/evaluation-view';
import { decodeSnapshot, encodeSnapshot } from '../../src/snapshots';
import type { RecordedEvent } from '../../src/store/port';

/** A subscriber whose key stays valid. */
const OPEN: StreamAccess = { allowed: () => true };
const SETTINGS = { heartbeatMs: 60_000, maxBufferBytes: 1 << 20, replayEvents: 4, replayBytes: 1 << 20, maxSnapshotBytes: 1 << 20 };

function ruleCreated(position: number): RecordedEvent {
  const id = `rule-${position}`;
  return {
    id: `event-${position}`, stream: `rule-${id}`, type: 'RuleCreated', revision: 0n, position: BigInt(position),
    data: {
      id, name: `rule ${position}`, description: '', status: 'ACTIVE', group_operator: 'AND',
      condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'n', operator: 'equals', value: String(position), data_type: 'string' }] }],
      entities: [],
    },
    metadata: { actor: 'test', at: '2026-11-24T12:00:00.000Z', request_id: `req-${position}`, schema: 1 },
  };
}

/** A read model started as a snapshot start does (src/snapshots/snapshotter.ts): `count` rules restored as unread lines, the engine handed over with them (so the catch-up compiles nothing). */
function snapshotStarted(count: number) {
  const state: CatalogState = initialState();
  for (let position = 1; position <= count; position++) evolve(state, ruleCreated(position));
  const decoded = decodeSnapshot(encodeSnapshot(state, '0193a5c2-7f10-7c3e-9d2a-000000000001', { id: 'e1', chain: null }));
  if (!decoded.ok) throw new Error(decoded.reason);
  const engine = createEngine();
  engine.upsertMany([...state.rules.values()]);
  return createReadModel(decoded.snapshot.state, engine);
}

/** A sink that keeps the SSE frames it was sent, as `event#id`. */
function recordingSink(): StreamSink & { readonly frames: string[] } {
  const frames: string[] = [];
  const note = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    const event = /^event: (\w+)$/m.exec(text)?.[1];
    if (event !== undefined) frames.push(`${event}#${/^id: (\d+)$/m.exec(text)?.[1] ?? ''}`);
  };
  return { frames, buffered: 0, write: note, end: note };
}

t.test('changes applied before any subscriber are replayed to a resume, no snapshot', async (t) => {
  const readModel = createReadModel();
  readModel.apply(ruleCreated(1));
  const feed = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  readModel.markCaughtUp();
  for (const position of [2, 3, 4]) readModel.apply(ruleCreated(position));

  const resumed = recordingSink();
  feed.subscribe(2n, 'records', resumed, OPEN);
  t.same(resumed.frames, ['change#3', 'change#4'], 'exactly the changes after the Last-Event-ID');
  const fromCatchUp = recordingSink();
  feed.subscribe(1n, 'records', fromCatchUp, OPEN);
  t.same(fromCatchUp.frames, ['change#2', 'change#3', 'change#4'], 'back to the position it caught up at');

  // Past the window (4 changes): the oldest positions get a snapshot.
  for (const position of [5, 6, 7]) readModel.apply(ruleCreated(position));
  const old = recordingSink();
  feed.subscribe(2n, 'records', old, OPEN);
  t.same(old.frames, ['snapshot#7'], 'a position out of the window: a fresh snapshot');
  const kept = recordingSink();
  feed.subscribe(3n, 'records', kept, OPEN);
  t.same(kept.frames, ['change#4', 'change#5', 'change#6', 'change#7'], 'the last 4 changes still replay');
});

t.test('before the catch-up nothing is kept: a resume from then gets a snapshot', async (t) => {
  const readModel = createReadModel();
  const feed = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  for (const position of [1, 2, 3]) readModel.apply(ruleCreated(position));
  readModel.markCaughtUp();
  const sink = recordingSink();
  feed.subscribe(1n, 'records', sink, OPEN);
  t.same(sink.frames, ['snapshot#3'], 'the replay is not the stream: its events were never published');
});

t.test('a state restored with unread records stays unread until a first subscriber, which then sets the window', async (t) => {
  const readModel = snapshotStarted(3);
  t.equal(unreadRules(readModel.state.rules), 3, 'restored unread');
  const feed = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  readModel.markCaughtUp();
  t.equal(unreadRules(readModel.state.rules), 3, 'the catch-up decoded none of them');
  readModel.apply(ruleCreated(4));
  t.equal(unreadRules(readModel.state.rules), 3, 'nor did a change with no subscriber');

  const first = recordingSink();
  feed.subscribe(undefined, 'records', first, OPEN);
  t.same(first.frames, ['snapshot#4']);
  t.equal(unreadRules(readModel.state.rules), 0, 'the first subscriber\'s view read them');
  readModel.apply(ruleCreated(5));
  const resumed = recordingSink();
  feed.subscribe(4n, 'records', resumed, OPEN);
  t.same(resumed.frames, ['change#5'], 'from then on, changes replay');
});

t.test('whenCaughtUp runs at the catch-up, or at once after it, and once', async (t) => {
  const readModel = createReadModel();
  const calls: string[] = [];
  readModel.whenCaughtUp(() => calls.push('before'));
  t.same(calls, []);
  readModel.markCaughtUp();
  readModel.markCaughtUp();
  readModel.whenCaughtUp(() => calls.push('after'));
  t.same(calls, ['before', 'after']);
});

/** The `event#id` of each frame a fresh subscriber gets, after `ready` when it asks to wait. */
async function freshStart(feed: ReturnType<typeof createChangeFeed>, after?: bigint): Promise<string[]> {
  await feed.ready(after, 'records');
  const sink = recordingSink();
  feed.subscribe(after, 'records', sink, OPEN);
  return sink.frames;
}

t.test('a snapshot built once serves later subscribers, followed by the changes since, while the window holds them', async (t) => {
  const readModel = createReadModel();
  const feed = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  readModel.apply(ruleCreated(1));
  readModel.markCaughtUp();
  t.ok(feed.ready(undefined, 'records') instanceof Promise, 'no snapshot yet: built first');
  t.same(await freshStart(feed), ['snapshot#1']);
  for (const position of [2, 3]) readModel.apply(ruleCreated(position));
  t.equal(feed.ready(undefined, 'records'), undefined, 'the snapshot at 1 and the changes since serve at once');
  t.same(await freshStart(feed), ['snapshot#1', 'change#2', 'change#3']);
  for (const position of [4, 5, 6, 7]) readModel.apply(ruleCreated(position));
  t.ok(feed.ready(undefined, 'records') instanceof Promise, 'change 2 left the window: a new snapshot is built');
  t.same(await freshStart(feed), ['snapshot#7']);
});

t.test('the snapshot\'s pieces join into what one JSON.stringify of the whole snapshot gives', async (t) => {
  const readModel = createReadModel();
  for (const position of [1, 2, 3]) readModel.apply(ruleCreated(position));
  readModel.markCaughtUp();
  const view = createEvaluationView(readModel.state);
  // A record on the wire: its members in order, bigints as decimal strings.
  const wire = (record: object) => JSON.parse(JSON.stringify(record, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)));
  const rules = [...readModel.state.rules.values()].map(wire);
  const whole = (position: string | null, rules: unknown[]) => JSON.stringify({ position, limits: DEFAULTS.limits, rules, contexts: [], prompts: [] });
  t.equal([...view.snapshotJson(3n, DEFAULTS.limits)].join(''), whole('3', rules));
  const empty = createEvaluationView(createReadModel().state);
  t.equal([...empty.snapshotJson(undefined, DEFAULTS.limits)].join(''), whole(null, []), 'no records, no position');
  // Pieces taken after a change still show the view as it was at the call.
  const pieces = view.snapshotJson(3n, DEFAULTS.limits);
  readModel.apply(ruleCreated(4));
  view.apply(readModel.state, ruleCreated(4));
  t.same(JSON.parse([...pieces].join('')).rules.map((r: { id: string }) => r.id), ['rule-1', 'rule-2', 'rule-3']);
});

t.test('a view larger than maxSnapshotBytes is refused with a 503 naming the setting; nothing is written', async (t) => {
  const readModel = createReadModel();
  for (let position = 1; position <= 20; position++) readModel.apply(ruleCreated(position));
  readModel.markCaughtUp();
  const feed = createChangeFeed(readModel, { ...SETTINGS, maxSnapshotBytes: 2048 }, DEFAULTS.limits);
  await t.rejects(feed.ready(undefined, 'records')!, { code: 'unavailable', message: /RULEVAULT_STREAM_MAX_SNAPSHOT_BYTES \(2048 bytes\)/ });
  const sink = recordingSink();
  t.throws(() => feed.subscribe(undefined, 'records', sink, OPEN), { code: 'unavailable', message: /too many to evaluate locally/ });
  t.same(sink.frames, [], 'not even the retry line');
  t.equal(feed.subscribers, 0);
  const resumed = recordingSink();
  feed.subscribe(20n, 'records', resumed, OPEN);
  t.same(resumed.frames, [], 'a resume at the head needs no snapshot: served');
});

t.test('after a snapshot start, a view too large is refused from the lines alone, before a record is read', async (t) => {
  const readModel = snapshotStarted(20);
  const feed = createChangeFeed(readModel, { ...SETTINGS, maxSnapshotBytes: 2048 }, DEFAULTS.limits);
  readModel.markCaughtUp();
  await t.rejects(feed.ready(undefined, 'records')!, { code: 'unavailable' });
  t.equal(unreadRules(readModel.state.rules), 20, 'no record read');
  // A reconnect at the same position is refused again without measuring; once the log moves it measures again.
  const rules = readModel.state.rules as LazyRuleRecords;
  const measure = rules.unreadTexts.bind(rules);
  let measured = 0;
  rules.unreadTexts = function* () {
    measured += 1;
    yield* measure();
  };
  await t.rejects(feed.ready(undefined, 'records')!, { code: 'unavailable' });
  t.equal(measured, 0, 'refused again at the same position, the lines not measured again');
  readModel.apply(ruleCreated(21));
  await t.rejects(feed.ready(undefined, 'records')!, { code: 'unavailable' });
  t.equal(measured, 1, 'the log moved: measured again');
  const roomy = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  t.same(await freshStart(roomy), ['snapshot#21'], 'within the bound: every record read, then the snapshot');
  t.equal(unreadRules(readModel.state.rules), 0);
});

t.test('at an API key event a subscriber no longer allowed is sent revoked and ended, before that event\'s frame', async (t) => {
  const readModel = createReadModel();
  const feed = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  readModel.apply(ruleCreated(1));
  readModel.markCaughtUp();
  let allowed = true;
  let asked = 0;
  const revocable = recordingSink();
  const kept = recordingSink();
  feed.subscribe(1n, 'records', revocable, { allowed: () => (asked++, allowed) });
  feed.subscribe(1n, 'records', kept, OPEN);
  allowed = false;
  readModel.apply(ruleCreated(2));
  t.equal(asked, 0, 'only an API key event asks again');
  t.same(revocable.frames, ['change#2']);
  readModel.apply({ ...ruleCreated(3), stream: 'apikey-k', type: 'ApiKeyRevoked', data: { id: 'k' } });
  readModel.apply(ruleCreated(4));
  t.same(revocable.frames, ['change#2', 'revoked#'], 'ended with revoked, without the revocation\'s own frame or any after it');
  t.same(kept.frames, ['change#2', 'change#3', 'change#4'], 'a subscriber still allowed goes on');
  t.equal(feed.subscribers, 1);
});

t.test('the resume window is bounded in bytes as well as in changes, and kept so with no subscriber', async (t) => {
  const readModel = createReadModel();
  const replayBytes = 8 * 1024;
  const feed = createChangeFeed(readModel, { ...SETTINGS, replayEvents: 1000, replayBytes }, DEFAULTS.limits);
  readModel.markCaughtUp();
  /** A rule whose frame is about `bytes` long. */
  const bulky = (position: number, bytes: number): RecordedEvent => {
    const event = ruleCreated(position);
    return { ...event, data: { ...event.data, description: 'd'.repeat(bytes) } };
  };
  let most = 0;
  for (let position = 1; position <= 40; position++) {
    readModel.apply(bulky(position, 1000));
    most = Math.max(most, feed.window.bytes);
  }
  t.ok(most <= replayBytes, `never more than the bound held (${most} of ${replayBytes} bytes)`);
  t.ok(feed.window.events < 10 && feed.window.events > 4, `the bytes decide, not the 1,000 changes allowed (${feed.window.events} held)`);
  const kept = feed.window.events;
  const resumed = recordingSink();
  feed.subscribe(BigInt(40 - kept), 'records', resumed, OPEN);
  t.equal(resumed.frames.length, kept, 'a position the window still holds replays');
  const old = recordingSink();
  feed.subscribe(BigInt(40 - kept - 1), 'records', old, OPEN);
  t.same(old.frames, ['snapshot#40'], 'one just out of it gets a snapshot');

  readModel.apply(bulky(41, 2 * replayBytes));
  t.same(feed.window, { events: 0, bytes: 0 }, 'a frame larger than the bound is not kept, nor are the ones before it');
  const after = recordingSink();
  feed.subscribe(40n, 'records', after, OPEN);
  t.same(after.frames, ['snapshot#41'], 'so a resume across it gets a snapshot');
});
