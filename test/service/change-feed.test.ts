/**
 * The change stream's publisher (src/service/change-feed.ts) on a real read
 * model: it keeps changes from the catch-up on, so a resume replays exactly
 * the changes after its Last-Event-ID even on a node (a worker) that had no
 * subscriber when they were applied; a state restored from a snapshot with
 * its records unread is left so until a first subscriber.
 */
import t from 'tap';
import { evolve, initialState, unreadRules, type CatalogState } from '../../projections';
import { DEFAULTS } from '../../src/config';
import { createEngine } from '../../src/engine';
import { createReadModel, handOverEngine } from '../../src/read-model';
import { createChangeFeed, type StreamSink } from '../../src/service/change-feed';
import { decodeSnapshot, encodeSnapshot } from '../../src/snapshot';
import type { RecordedEvent } from '../../src/store/port';

const SETTINGS = { heartbeatMs: 60_000, maxBufferBytes: 1 << 20, replayEvents: 4 };

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
  feed.subscribe(2n, resumed);
  t.same(resumed.frames, ['change#3', 'change#4'], 'exactly the changes after the Last-Event-ID');
  const fromCatchUp = recordingSink();
  feed.subscribe(1n, fromCatchUp);
  t.same(fromCatchUp.frames, ['change#2', 'change#3', 'change#4'], 'back to the position it caught up at');

  // Past the window (4 changes): the oldest positions get a snapshot.
  for (const position of [5, 6, 7]) readModel.apply(ruleCreated(position));
  const old = recordingSink();
  feed.subscribe(2n, old);
  t.same(old.frames, ['snapshot#7'], 'a position out of the window: a fresh snapshot');
  const kept = recordingSink();
  feed.subscribe(3n, kept);
  t.same(kept.frames, ['change#4', 'change#5', 'change#6', 'change#7'], 'the last 4 changes still replay');
});

t.test('before the catch-up nothing is kept: a resume from then gets a snapshot', async (t) => {
  const readModel = createReadModel();
  const feed = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  for (const position of [1, 2, 3]) readModel.apply(ruleCreated(position));
  readModel.markCaughtUp();
  const sink = recordingSink();
  feed.subscribe(1n, sink);
  t.same(sink.frames, ['snapshot#3'], 'the replay is not the stream: its events were never published');
});

t.test('a state restored with unread records stays unread until a first subscriber, which then sets the window', async (t) => {
  const state: CatalogState = initialState();
  for (const position of [1, 2, 3]) evolve(state, ruleCreated(position));
  const decoded = decodeSnapshot(encodeSnapshot(state, '0193a5c2-7f10-7c3e-9d2a-000000000001'));
  if (!decoded.ok) throw new Error(decoded.reason);
  // As a snapshot start does (src/snapshotter.ts): the engine comes with the state, so the catch-up compiles nothing.
  const engine = createEngine();
  engine.upsertMany([...state.rules.values()]);
  handOverEngine(decoded.snapshot.state, engine);
  const readModel = createReadModel(decoded.snapshot.state);
  t.equal(unreadRules(readModel.state.rules), 3, 'restored unread');
  const feed = createChangeFeed(readModel, SETTINGS, DEFAULTS.limits);
  readModel.markCaughtUp();
  t.equal(unreadRules(readModel.state.rules), 3, 'the catch-up decoded none of them');
  readModel.apply(ruleCreated(4));
  t.equal(unreadRules(readModel.state.rules), 3, 'nor did a change with no subscriber');

  const first = recordingSink();
  feed.subscribe(undefined, first);
  t.same(first.frames, ['snapshot#4']);
  t.equal(unreadRules(readModel.state.rules), 0, 'the first subscriber\'s view read them');
  readModel.apply(ruleCreated(5));
  const resumed = recordingSink();
  feed.subscribe(4n, resumed);
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
