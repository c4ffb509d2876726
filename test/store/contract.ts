/**
 * The shared event-store contract: every adapter runs this suite unchanged;
 * adapter differences come only through `AdapterTraits`.
 *
 * The EventStoreDB stand-in may be shared between test processes, so every
 * subtest writes to its own uniquely named streams and looks at the global
 * log only through a filter on those streams.
 */
import type {} from 'tap';
import { randomUUID } from 'node:crypto';
import {
  ConcurrencyError,
  ERASED_DATA,
  isErased,
  StreamDeletedError,
  type AdapterTraits,
  type EventStore,
  type Json,
  type NewEvent,
  type RecordedEvent,
} from '../../src/store/port';
import { checkLink, markOf, splitMetadata } from '../../src/store/chain';

export interface OpenedStore {
  readonly store: EventStore;
  readonly traits: AdapterTraits;
  /** Closes the store (tolerating an earlier close) and removes what `open` created. */
  cleanup(): Promise<void>;
}

/** Runs the whole contract as subtests of `t`, one fresh store per subtest. */
export function runStoreContract(t: tap.Test, adapterName: string, open: () => Promise<OpenedStore>): void {
  const test = (name: string, body: (t: tap.Test, ctx: Context) => Promise<void>): void => {
    t.test(`${adapterName}: ${name}`, async (t) => {
      const opened = await open();
      t.teardown(() => opened.cleanup());
      await body(t, { store: opened.store, traits: opened.traits, ns: createNamespace() });
    });
  };

  test('a new stream starts at revision 0 and counts its events', async (t, { store, ns }) => {
    const stream = ns.stream('counting');
    const first = await store.append(stream, [event('Counted', { n: 0 })], 'no_stream');
    t.equal(first.nextRevision, 0n);
    t.equal(typeof first.position, 'bigint');
    const more = await store.append(stream, [event('Counted', { n: 1 }), event('Counted', { n: 2 })], 0n);
    t.equal(more.nextRevision, 2n, 'nextRevision is the revision of the last event written');
    t.ok(more.position > first.position);
    const read = await store.readStream(stream);
    t.same(read.map((e) => e.revision), [0n, 1n, 2n]);
    t.same(read.map((e) => e.data), [{ n: 0 }, { n: 1 }, { n: 2 }]);
    t.equal(read[2]?.position, more.position, 'the last event sits at the position the append reported');
    t.ok(read.every((e) => e.stream === stream && e.type === 'Counted'));
  });

  test('expected revision no_stream', async (t, { store, ns }) => {
    const stream = ns.stream('no-stream');
    await store.append(stream, [event('Made')], 'no_stream');
    await expectConcurrencyError(t, store.append(stream, [event('Made')], 'no_stream'), stream, 0n);
    t.equal((await store.readStream(stream)).length, 1, 'the failed append wrote nothing');
  });

  test('expected revision stream_exists', async (t, { store, ns }) => {
    const stream = ns.stream('exists');
    await expectConcurrencyError(t, store.append(stream, [event('Made')], 'stream_exists'), stream, undefined);
    t.same(await store.readStream(stream), [], 'the failed append created nothing');
    await store.append(stream, [event('Made')], 'any');
    const result = await store.append(stream, [event('Changed')], 'stream_exists');
    t.equal(result.nextRevision, 1n);
  });

  test('expected revision any', async (t, { store, ns }) => {
    const stream = ns.stream('any');
    t.equal((await store.append(stream, [event('Made')], 'any')).nextRevision, 0n, 'any creates a stream');
    t.equal((await store.append(stream, [event('Changed')], 'any')).nextRevision, 1n, 'any appends to one');
  });

  test('expected revision exact', async (t, { store, ns }) => {
    const stream = ns.stream('exact');
    await expectConcurrencyError(t, store.append(stream, [event('Made')], 0n), stream, undefined);
    await store.append(stream, [event('Made'), event('Changed')], 'no_stream');
    await expectConcurrencyError(t, store.append(stream, [event('Changed')], 0n), stream, 1n);
    await expectConcurrencyError(t, store.append(stream, [event('Changed')], 2n), stream, 1n);
    t.equal((await store.append(stream, [event('Changed')], 1n)).nextRevision, 2n);
    t.equal((await store.readStream(stream)).length, 3, 'only the matching append wrote');
  });

  test('concurrent appends with the same expected revision: exactly one wins', async (t, { store, ns }) => {
    const stream = ns.stream('race');
    await store.append(stream, [event('Made')], 'no_stream');
    const contenders = 8;
    const results = await Promise.allSettled(
      Array.from({ length: contenders }, (_, i) => store.append(stream, [event('Raced', { contender: i })], 0n)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    t.equal(won.length, 1, 'exactly one append wins');
    t.equal(lost.length, contenders - 1);
    for (const reason of lost) {
      t.type(reason, ConcurrencyError);
      if (reason instanceof ConcurrencyError) t.equal(reason.actual, 1n, 'losers learn the actual revision');
    }
    t.same((await store.readStream(stream)).map((e) => e.revision), [0n, 1n]);
  });

  test('appends asked for together settle each on its own, in the order asked', async (t, { store, ns }) => {
    const taken = ns.stream('taken');
    await store.append(taken, [event('Made')], 'no_stream');
    const streams = [ns.stream('g0'), taken, ns.stream('g1'), ns.stream('g2')];
    // Asked for in one turn: the SQLite adapter commits them as one group.
    const results = await Promise.allSettled(streams.map((stream, i) => store.append(stream, [event('Grouped', { i })], 'no_stream')));
    t.type(results[1]?.status === 'rejected' ? results[1].reason : undefined, ConcurrencyError, 'the one with a failed expectation is refused');
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.position] : []));
    t.equal(won.length, 3, 'the others are written');
    for (let i = 1; i < won.length; i++) t.ok(won[i]! > won[i - 1]!, 'in the order they were asked for');
    t.same((await store.readStream(taken)).length, 1, 'the refused one wrote nothing');
    for (const stream of [streams[0]!, streams[2]!, streams[3]!]) t.equal((await store.readStream(stream)).length, 1, `${stream} holds its event`);
  });

  test('deferDurability: the append is readable when it resolves, durable() settles after, expectations still hold', async (t, { store, ns }) => {
    const stream = ns.stream('deferred');
    const first = await store.append(stream, [event('Deferred', { n: 0 })], 'no_stream', { deferDurability: true });
    t.same((await store.readStream(stream)).map((e) => e.position), [first.position], 'committed: readable at once');
    const pending = store.durable();
    await expectConcurrencyError(t, store.append(stream, [event('Deferred')], 'no_stream', { deferDurability: true }), stream, 0n);
    await pending;
    const batch = await Promise.all([1, 2, 3].map(() => store.append(ns.stream('deferred-many'), [event('Deferred')], 'any', { deferDurability: true })));
    await store.durable();
    t.same((await store.readStream(ns.stream('deferred-many'))).map((e) => e.position), batch.map((r) => r.position), 'every deferred append is there');
  });

  test('positions strictly increase across streams', async (t, { store, ns }) => {
    const a = ns.stream('a');
    const b = ns.stream('b');
    const start = await store.headPosition();
    const positions: bigint[] = [];
    for (const stream of [a, b, a, b, b, a]) {
      positions.push((await store.append(stream, [event('Ticked')], 'any')).position);
    }
    for (let i = 1; i < positions.length; i++) t.ok(positions[i]! > positions[i - 1]!, `append ${i} after append ${i - 1}`);
    const inLog = (await readAllAfter(store, start)).filter(ns.owns).map((e) => e.position);
    t.same(inLog, positions, 'readAll returns them in the same order');
  });

  test('readStream from a revision (inclusive)', async (t, { store, ns }) => {
    const stream = ns.stream('from-revision');
    await store.append(stream, [0, 1, 2, 3, 4].map((n) => event('Counted', { n })), 'no_stream');
    t.same((await store.readStream(stream, { fromRevision: 2n })).map((e) => e.revision), [2n, 3n, 4n]);
    t.same((await store.readStream(stream, { fromRevision: 0n })).length, 5);
    t.same(await store.readStream(stream, { fromRevision: 5n }), [], 'past the end is empty');
    t.same(await store.readStream(ns.stream('never-written')), [], 'an absent stream is empty');
  });

  test('readAll pages in position order with an exclusive after', async (t, { store, ns }) => {
    const before = await store.headPosition();
    const written: bigint[] = [];
    for (let n = 0; n < 7; n++) {
      written.push((await store.append(ns.stream(`page-${n % 3}`), [event('Paged', { n })], 'any')).position);
    }
    const seen: RecordedEvent[] = [];
    let after = before;
    for (;;) {
      const page = await store.readAll({ after, limit: 2 });
      t.ok(page.length <= 2, 'a page respects the limit');
      if (page.length === 0) break;
      const bound = after;
      t.ok(bound === undefined || page.every((e) => e.position > bound), 'after is exclusive');
      seen.push(...page);
      after = page[page.length - 1]!.position;
    }
    assertStrictlyIncreasing(t, seen.map((e) => e.position));
    t.same(seen.filter(ns.owns).map((e) => e.data), [0, 1, 2, 3, 4, 5, 6].map((n) => ({ n })));
    const fromThird = (await readAllAfter(store, written[2]!)).filter(ns.owns);
    t.same(fromThird.map((e) => e.position), written.slice(3), 'after an event excludes that event');
    const all = await store.readAll();
    t.ok(Array.isArray(all) && all.length > 0, 'readAll without options starts at the beginning of the log');
    if (before === undefined) t.same(all.filter(ns.owns).map((e) => e.position), written, 'a fresh log holds just these');
  });

  test('readAll with maxDataBytes ends a page with the event that reaches it', async (t, { store, ns }) => {
    const before = await store.headPosition();
    // Data of 100 to 5,000 bytes of UTF-8 (each "é" is two), so bytes, not characters, are what is counted.
    const sizes = [100, 300, 1000, 100, 100, 5000, 100];
    const dataOf = (n: number, size: number) => ({ n, pad: 'é'.repeat((size - 16) / 2) });
    const bytes = (data: RecordedEvent['data']): number => Buffer.byteLength(JSON.stringify(data));
    t.same(sizes.map((size, n) => bytes(dataOf(n, size))), sizes, 'the fixtures have the sizes meant');
    const written: bigint[] = [];
    for (const [n, size] of sizes.entries()) {
      written.push((await store.append(ns.stream(`bytes-${n % 2}`), [event('Sized', dataOf(n, size))], 'any')).position);
    }
    // Another test process may write to a shared server meanwhile: what is asserted holds for any events.
    const seen: RecordedEvent[] = [];
    let after = before;
    for (let reads = 0; ; reads++) {
      const page = await store.readAll({ after, limit: 50, maxDataBytes: 1000 });
      if (page.length === 0) break;
      t.ok(page.length <= 50, 'the limit still holds');
      const total = page.reduce((sum, e) => sum + bytes(e.data), 0);
      t.ok(total - bytes(page[page.length - 1]!.data) < 1000, `page ${reads}: every event but the last is below the bound`);
      if (page.length < 50) {
        const next = await store.readAll({ after: page[page.length - 1]!.position, limit: 1 });
        t.ok(total >= 1000 || next.length === 0, `page ${reads}: a short page reached the bound or the end of the log`);
      }
      seen.push(...page);
      after = page[page.length - 1]!.position;
    }
    assertStrictlyIncreasing(t, seen.map((e) => e.position));
    const ours = seen.filter(ns.owns);
    t.same(ours.map((e) => e.position), written, 'read on until an empty page, nothing is missed');
    t.same(ours.map((e) => bytes(e.data)), sizes, 'and counted as written');
    const one = await store.readAll({ after: ours[4]!.position, limit: 10, maxDataBytes: 1 });
    t.equal(one.length, 1, 'a bound of 1 byte gives one event a page');
    t.ok(one[0]!.position <= ours[5]!.position, 'the event right after is the one read');
    const unbounded = await store.readAll({ after: ours[4]!.position, limit: 10, maxDataBytes: 10 ** 9 });
    t.ok(unbounded.length >= 2, 'a bound not reached leaves the limit and the log to end the page');
  });

  test('event data, metadata and ids round-trip', async (t, { store, ns }) => {
    const stream = ns.stream('json');
    const data: { [key: string]: Json } = {
      text: 'héllo wörld — 你好 — 🔐🧪 — "quoted" \\ back\nslash \u0000 nul',
      empty: '',
      numbers: [0, 1, -1, 3.25, -1.5e-7, 1e300, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
      flags: [true, false],
      nothing: null,
      nested: { a: { b: { c: [1, { d: 'deep' }, [], {}] } }, 'key with spaces': 'x', 'ключ': 'значение' },
    };
    const metadata = { actor: 'cli', at: '2026-11-22T01:02:03.456Z', request_id: `req-${randomUUID()}`, schema: 3 };
    const id = randomUUID();
    const start = await store.headPosition();
    await store.append(stream, [{ id, type: 'RoundTripped', data, metadata }, event('NoIdGiven'), event('NoIdGiven')], 'no_stream');
    const [given, generatedA, generatedB] = await store.readStream(stream);
    t.same(given?.data, data, 'data survives unchanged');
    t.same(splitMetadata(given!.metadata).own, metadata, 'metadata survives unchanged (beside the chain link the store adds)');
    t.equal(given?.id, id, 'a given id is kept');
    t.equal(given?.type, 'RoundTripped');
    t.equal(typeof given?.revision, 'bigint');
    t.equal(typeof given?.position, 'bigint');
    t.ok(typeof generatedA?.id === 'string' && generatedA.id.length > 0, 'an id is generated when absent');
    t.not(generatedA?.id, generatedB?.id, 'generated ids are unique');
    const inLog = (await readAllAfter(store, start)).find((e) => e.id === id);
    t.same(inLog?.data, data, 'readAll returns the same data');
    t.same(inLog?.metadata, given?.metadata, 'readAll returns the same metadata');
  });

  test('every event carries a link of the hash chain; a link a caller passes is replaced; erasure keeps the links', async (t, { store, ns }) => {
    const stream = ns.stream('chained');
    const start = await store.headPosition();
    const forged = { ...event('Made', { sealed: 'first' }).metadata, chain: { v: 1, seq: 99, prev: '0'.repeat(64), digest: '1'.repeat(64), hash: '2'.repeat(64) } };
    await store.append(stream, [{ type: 'Made', data: { sealed: 'first' }, metadata: forged as never }, event('Changed', { n: 1 })], 'no_stream');
    await store.append(ns.stream('other'), [event('Made')], 'any');
    await store.appendErasing(stream, [event('Erased', { id: '1' })], 1n);
    await store.append(stream, [event('After')], 'any');
    const log = await readAllAfter(store, start);
    t.ok(log.length >= 5, 'the events are in the log');
    const links = log.map((e) => splitMetadata(e.metadata).link);
    t.ok(links.every((link) => link !== undefined), 'every event carries a link');
    for (let i = 1; i < log.length; i++) {
      t.equal(links[i]!.seq, links[i - 1]!.seq + 1, `link ${i} follows link ${i - 1}`);
      t.equal(links[i]!.prev, links[i - 1]!.hash, `link ${i} names the hash before it`);
    }
    t.notOk(links.some((link) => link!.hash === '2'.repeat(64)), 'the forged link was not kept');
    const erasedText = JSON.stringify(ERASED_DATA);
    for (const [i, e] of log.entries()) {
      const { own } = splitMetadata(e.metadata);
      const check = checkLink(links[i]!, { stream: e.stream, revision: e.revision, id: e.id, type: e.type, dataText: JSON.stringify(e.data), metaText: JSON.stringify(own) }, erasedText);
      t.ok(check === 'ok' || (check === 'erased' && e.stream === stream && e.revision < 2n), `${e.stream}@${e.revision} matches its link (${check})`);
    }
    const erasing = log.find((e) => e.stream === stream && e.type === 'Erased');
    t.equal(splitMetadata(erasing!.metadata).link?.erases, '2', 'the erasure record names the revision before which its stream is erased');
    const after = log.find((e) => e.stream === stream && e.type === 'After');
    t.equal(after?.revision, 3n, 'an append with any links the revision it gets');
  });

  test('headPosition follows the newest event', async (t, { store, ns }) => {
    const first = await store.append(ns.stream('head'), [event('Made')], 'no_stream');
    const head1 = await store.headPosition();
    t.ok(head1 !== undefined && head1 >= first.position, 'head is at or past the last append');
    const second = await store.append(ns.stream('head'), [event('Changed')], 0n);
    const head2 = await store.headPosition();
    t.ok(head2 !== undefined && head2 >= second.position && head2 > head1!, 'head moves forward');
  });

  test('subscribe from the start: history, caught-up once, then live', async (t, { store, ns }) => {
    const stream = ns.stream('sub-start');
    await store.append(stream, [0, 1, 2].map((n) => event('Counted', { n })), 'no_stream');
    const seen = collect(ns.owns);
    const subscription = store.subscribe(undefined, seen.handlers);
    t.teardown(() => subscription.close());
    await seen.caughtUp();
    t.same(seen.events.map((e) => e.revision), [0n, 1n, 2n], 'all history arrives before caught-up');
    await store.append(stream, [event('Counted', { n: 3 }), event('Counted', { n: 4 })], 2n);
    await seen.until((events) => events.length >= 5, 'live events');
    t.same(seen.events.map((e) => e.data), [0, 1, 2, 3, 4].map((n) => ({ n })), 'live events follow in order');
    t.equal(seen.caughtUpCount(), 1, 'caught-up is signalled exactly once');
    t.same(seen.errors, []);
  });

  test('handlers are not called before subscribe returns', async (t, { store, ns }) => {
    const start = await store.headPosition();
    await store.append(ns.stream('sync'), [event('Made')], 'no_stream');
    let returned = false;
    const calledAfterReturn: boolean[] = [];
    const seen = collect(ns.owns, () => void calledAfterReturn.push(returned));
    const subscription = store.subscribe(start, {
      ...seen.handlers,
      onCaughtUp() {
        calledAfterReturn.push(returned);
        seen.handlers.onCaughtUp?.();
      },
    });
    returned = true;
    t.teardown(() => subscription.close());
    await seen.caughtUp();
    t.same(calledAfterReturn, [true, true], 'the event and caught-up both arrive after subscribe returned');
  });

  test('subscribe from a position excludes that position', async (t, { store, ns }) => {
    const stream = ns.stream('sub-from');
    const results: bigint[] = [];
    for (let n = 0; n < 4; n++) results.push((await store.append(stream, [event('Counted', { n })], 'any')).position);
    const seen = collect(ns.owns);
    const subscription = store.subscribe(results[1]!, seen.handlers);
    t.teardown(() => subscription.close());
    await seen.caughtUp();
    t.same(seen.events.map((e) => e.position), results.slice(2), 'only events after the position');
    t.same(seen.events.map((e) => e.data), [{ n: 2 }, { n: 3 }]);
  });

  test('caught-up is signalled on an empty tail, then live events flow', async (t, { store, ns }) => {
    const stream = ns.stream('sub-empty');
    const head = await store.headPosition();
    const seen = collect(ns.owns);
    const subscription = store.subscribe(head, seen.handlers);
    t.teardown(() => subscription.close());
    await seen.caughtUp();
    t.same(seen.events, [], 'nothing of ours before caught-up');
    await store.append(stream, [event('Made')], 'no_stream');
    await seen.until((events) => events.length === 1, 'the live event');
    t.equal(seen.events[0]?.stream, stream);
    t.equal(seen.caughtUpCount(), 1);
  });

  test('events appended during catch-up are neither lost nor duplicated', async (t, { store, ns }) => {
    const history = ns.stream('history');
    const during = ns.stream('during');
    const historyCount = 60;
    const start = await store.headPosition();
    for (let i = 0; i < historyCount; i += 20) {
      await store.append(history, Array.from({ length: 20 }, (_, j) => event('Old', { n: i + j })), 'any');
    }
    let appended = 0;
    const seen = collect(ns.owns, async (e) => {
      // Write while the subscription is still replaying history.
      if (e.stream === history && e.revision % 10n === 0n) {
        await store.append(during, [event('New', { n: appended++ })], 'any');
      }
    });
    const subscription = store.subscribe(start, seen.handlers);
    t.teardown(() => subscription.close());
    await seen.until((events) => events.length >= historyCount + historyCount / 10, 'history and the writes made during it');
    await seen.caughtUp();
    const expected = [...(await store.readStream(history)), ...(await store.readStream(during))]
      .sort((x, y) => (x.position < y.position ? -1 : 1))
      .map((e) => e.id);
    t.same(seen.events.map((e) => e.id), expected, 'every event once, in log order');
    t.equal(new Set(seen.events.map((e) => e.id)).size, seen.events.length, 'no duplicates');
    t.ok(seen.eventsBeforeCaughtUp()! >= historyCount, 'all history precedes caught-up');
    t.equal(seen.caughtUpCount(), 1);
  });

  test('async handlers are awaited: one event at a time, in order', async (t, { store, ns }) => {
    const stream = ns.stream('backpressure');
    let inFlight = 0;
    let maxInFlight = 0;
    const seen = collect(ns.owns, async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
    });
    const start = await store.headPosition();
    await store.append(stream, [0, 1, 2, 3, 4].map((n) => event('Counted', { n })), 'no_stream');
    const subscription = store.subscribe(start, seen.handlers);
    t.teardown(() => subscription.close());
    await seen.caughtUp();
    await store.append(stream, [5, 6, 7, 8, 9].map((n) => event('Counted', { n })), 4n);
    await seen.until((events) => events.length === 10, 'ten events');
    t.equal(maxInFlight, 1, 'the next event waits for the previous handler');
    t.same(seen.events.map((e) => e.revision), Array.from({ length: 10 }, (_, i) => BigInt(i)));
  });

  test('a throwing handler stops the subscription with onError', async (t, { store, ns }) => {
    const stream = ns.stream('failing');
    const start = await store.headPosition();
    await store.append(stream, [event('Made'), event('Changed')], 'no_stream');
    const failure = new Error('handler failed');
    const seen = collect(ns.owns, () => {
      throw failure;
    });
    const subscription = store.subscribe(start, seen.handlers);
    t.teardown(() => subscription.close());
    await seen.failed();
    t.equal(seen.errors[0], failure, 'onError receives the handler error');
    t.equal(seen.events.length, 1, 'nothing is delivered after the failure');
  });

  test('a closed subscription delivers nothing more', async (t, { store, ns }) => {
    const stream = ns.stream('closing');
    const head = await store.headPosition();
    const closed = collect(ns.owns);
    const closing = store.subscribe(head, closed.handlers);
    await closed.caughtUp();
    await store.append(stream, [event('Made')], 'no_stream');
    await closed.until((events) => events.length === 1, 'the first event');
    await closing.close();
    await store.append(stream, [event('Changed')], 0n);
    // A second, open subscription proves the event was delivered live.
    const open = collect(ns.owns);
    const witness = store.subscribe(head, open.handlers);
    t.teardown(() => witness.close());
    await open.until((events) => events.length === 2, 'both events on the open subscription');
    t.same(closed.events.map((e) => e.revision), [0n], 'the closed subscription saw only the first event');
    await closing.close();
    t.pass('closing twice is harmless');
  });

  test('appendErasing: the erasure record stays readable, the earlier content is erased', async (t, { store, traits, ns }) => {
    const erased = ns.stream('erased');
    const kept = ns.stream('kept');
    const start = await store.headPosition();
    const before = await store.append(erased, [event('Made', { sealed: 'first' }), event('Changed', { sealed: 'second' })], 'no_stream');
    await store.append(kept, [event('Made', { sealed: 'kept' })], 'no_stream');
    await expectConcurrencyError(t, store.appendErasing(erased, [event('Erased', { id: '1' })], 0n), erased, 1n);
    t.same((await store.readStream(erased)).map((e) => e.data), [{ sealed: 'first' }, { sealed: 'second' }], 'a refused erasure changes nothing');

    const result = await store.appendErasing(erased, [event('Erased', { id: '1' })], 1n);
    t.equal(result.nextRevision, 2n, 'the erasure record is appended like any event');
    const read = await store.readStream(erased);
    const record = read[read.length - 1];
    t.match(record, { type: 'Erased', revision: 2n, position: result.position, data: { id: '1' } }, 'the erasure record is readable');
    t.ok(read.slice(0, -1).every(isErased), 'every earlier event reads erased or not at all');
    t.notOk(JSON.stringify(read.map((e) => e.data)).match(/first|second/), 'no earlier content is read back');
    t.same((await store.readStream(kept)).map((e) => e.data), [{ sealed: 'kept' }], 'other streams are untouched');

    const log = (await readAllAfter(store, start)).filter(ns.owns);
    t.ok(log.some((e) => e.stream === erased && e.type === 'Erased'), 'the erasure record is in the log');
    if (traits.erasesInPlace) {
      t.same(read.map((e) => [e.revision, e.type, e.data]), [[0n, 'Made', ERASED_DATA], [1n, 'Changed', ERASED_DATA], [2n, 'Erased', { id: '1' }]],
        'the erased events keep their place, type and revision');
      t.equal(read[1]?.position, before.position, 'and their position');
      const mine = log.filter((e) => e.stream === erased);
      t.same(mine.map((e) => e.data), [ERASED_DATA, ERASED_DATA, { id: '1' }], 'readAll shows them erased');
      const seen = collect(ns.owns);
      const subscription = store.subscribe(start, seen.handlers);
      t.teardown(() => subscription.close());
      await seen.caughtUp();
      t.same(seen.events.filter((e) => e.stream === erased).map((e) => e.data), [ERASED_DATA, ERASED_DATA, { id: '1' }], 'a new subscription replays them erased');
    } else {
      t.same(read.map((e) => e.revision), [2n], 'stream reads start at the erasure record');
    }
    t.equal((await store.append(erased, [event('After')], 2n)).nextRevision, 3n, 'the stream stays open; revisions continue');
  });

  test('readAt: the event at exactly a position, named by its id and chain link; none past the head', async (t, { store, ns }) => {
    const stream = ns.stream('at');
    const first = await store.append(stream, [event('Made', { n: 1 })], 'no_stream');
    const second = await store.append(stream, [event('Changed', { n: 2 }), event('Changed', { n: 3 })], 0n);
    const written = await store.readStream(stream);
    for (const expected of written) {
      const at = await store.readAt(expected.position);
      t.same(at, expected, `the event at ${expected.position} reads as the stream has it`);
    }
    t.equal(written[0]?.position, first.position);
    const mark = markOf((await store.readAt(second.position))!);
    t.same(mark, { id: written[2]!.id, chain: splitMetadata(written[2]!.metadata).link!.hash }, 'its mark: the id and the hash of its link');
    t.match(mark.chain, /^[0-9a-f]{64}$/);
    t.equal(await store.readAt(second.position + 1n), undefined, 'past the head: none');
  });

  test('eraseBefore finishes an erasure, idempotently', async (t, { store, traits, ns }) => {
    const stream = ns.stream('finish');
    await store.append(stream, [event('Made', { sealed: 'first' }), event('Deleted', { id: '1' })], 'no_stream');
    await store.eraseBefore(stream, 1n);
    await store.eraseBefore(stream, 1n);
    const read = await store.readStream(stream);
    t.match(read[read.length - 1], { type: 'Deleted', revision: 1n, data: { id: '1' } }, 'the deletion stays readable');
    t.ok(read.slice(0, -1).every(isErased), 'the earlier event reads erased or not at all');
    t.equal(read.length, traits.erasesInPlace ? 2 : 1);
    await store.eraseBefore(ns.stream('never-written'), 3n);
    t.same(await store.readStream(ns.stream('never-written')), [], 'erasing a stream that does not exist is harmless');
  });

  test('deleteStream', async (t, { store, traits, ns }) => {
    const doomed = ns.stream('doomed');
    const kept = ns.stream('kept');
    const start = await store.headPosition();
    await store.append(doomed, [event('Made', { secret: 'x' }), event('Changed')], 'no_stream');
    await store.append(kept, [event('Made')], 'no_stream');
    await expectConcurrencyError(t, store.deleteStream(doomed, 0n), doomed, 1n);
    t.equal((await store.readStream(doomed)).length, 2, 'a refused delete removes nothing');
    await store.deleteStream(doomed, 1n);
    t.same(await store.readStream(doomed), [], 'a deleted stream reads as empty');
    for (const expected of ['any', 'no_stream', 'stream_exists', 1n, 2n] as const) {
      await t.rejects(store.append(doomed, [event('Revived')], expected), StreamDeletedError, `append(${String(expected)}) after delete`);
    }
    t.equal((await store.readStream(kept)).length, 1, 'other streams are untouched');
    const log = (await readAllAfter(store, start)).filter(ns.owns);
    t.ok(log.some((e) => e.stream === kept), 'other streams stay in the log');
    if (traits.erasesDeletedStreamsAtOnce) {
      t.notOk(log.some((e) => e.stream === doomed), 'the deleted events left the log');
      const seen = collect(ns.owns);
      const subscription = store.subscribe(start, seen.handlers);
      t.teardown(() => subscription.close());
      await seen.caughtUp();
      t.same(seen.events.map((e) => e.stream), [kept], 'a new subscription does not replay them');
    }
  });

  test('deleteStream with any, then the stream stays deleted', async (t, { store, ns }) => {
    const stream = ns.stream('delete-any');
    await store.append(stream, [event('Made')], 'no_stream');
    await store.deleteStream(stream);
    t.same(await store.readStream(stream, { fromRevision: 0n }), []);
    await t.rejects(store.append(stream, [event('Made')], 'no_stream'), StreamDeletedError, 'a deleted name cannot be reused');
    t.same(await store.readStream(stream), []);
  });
}

interface Context {
  readonly store: EventStore;
  readonly traits: AdapterTraits;
  readonly ns: Namespace;
}

interface Namespace {
  stream(tag: string): string;
  /** True for events of streams this subtest wrote. */
  owns(event: RecordedEvent): boolean;
}

function createNamespace(): Namespace {
  const prefix = `contract${randomUUID().replaceAll('-', '')}`;
  return {
    stream: (tag) => `${prefix}-${tag}`,
    owns: (event) => event.stream.startsWith(`${prefix}-`),
  };
}

function event(type: string, data: { [key: string]: Json } = {}): NewEvent {
  return { type, data, metadata: { actor: 'system', at: '2026-11-22T00:00:00.000Z', request_id: 'contract', schema: 1 } };
}

async function expectConcurrencyError(t: tap.Test, attempt: Promise<unknown>, stream: string, actual: bigint | undefined): Promise<void> {
  const error = await attempt.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  t.type(error, ConcurrencyError, 'ConcurrencyError');
  if (error instanceof ConcurrencyError) {
    t.equal(error.stream, stream, 'names the stream');
    t.equal(error.actual, actual, `reports the actual revision ${String(actual)}`);
  }
}

function assertStrictlyIncreasing(t: tap.Test, positions: readonly bigint[]): void {
  t.ok(positions.every((p, i) => i === 0 || p > positions[i - 1]!), 'positions strictly increase');
}

/** The whole log after `after`, page by page. */
async function readAllAfter(store: EventStore, after: bigint | undefined): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll({ after: cursor, limit: 500 });
    if (page.length === 0) return events;
    events.push(...page);
    cursor = page[page.length - 1]!.position;
  }
}

/** How long a subtest waits for a delivery before failing instead of hanging. */
const deliveryDeadlineMs = 20_000;

interface Collected {
  readonly handlers: Parameters<EventStore['subscribe']>[1];
  /** Events of this subtest's streams, in delivery order. */
  readonly events: RecordedEvent[];
  readonly errors: Error[];
  caughtUpCount(): number;
  /** How many of this subtest's events had arrived when caught-up was signalled. */
  eventsBeforeCaughtUp(): number | undefined;
  until(condition: (events: readonly RecordedEvent[]) => boolean, what: string): Promise<void>;
  caughtUp(): Promise<void>;
  failed(): Promise<void>;
}

/** Records what a subscription delivers, filtered to `owns`, and lets a test wait for it. */
function collect(owns: (event: RecordedEvent) => boolean, onOwnEvent?: (event: RecordedEvent) => void | Promise<void>): Collected {
  const events: RecordedEvent[] = [];
  const errors: Error[] = [];
  let caughtUpCount = 0;
  let eventsBeforeCaughtUp: number | undefined;
  const waiters = new Set<() => void>();
  const changed = (): void => {
    for (const check of [...waiters]) check();
  };
  const wait = (ready: () => boolean, what: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; got ${events.length} events`));
      }, deliveryDeadlineMs);
      const check = (): void => {
        if (!ready()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  return {
    events,
    errors,
    handlers: {
      async onEvent(event) {
        if (!owns(event)) return;
        events.push(event);
        changed();
        await onOwnEvent?.(event);
      },
      onCaughtUp() {
        caughtUpCount++;
        eventsBeforeCaughtUp ??= events.length;
        changed();
      },
      onError(error) {
        errors.push(error);
        changed();
      },
    },
    caughtUpCount: () => caughtUpCount,
    eventsBeforeCaughtUp: () => eventsBeforeCaughtUp,
    until: (condition, what) => wait(() => condition(events), what),
    caughtUp: () => wait(() => caughtUpCount > 0, 'caught-up'),
    failed: () => wait(() => errors.length > 0, 'an error'),
  };
}
