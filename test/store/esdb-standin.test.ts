/**
 * The EventStoreDB adapter through the real client against the in-process
 * stand-in: what the shared contract cannot reach (server restarts, an
 * unreachable or silent server, foreign events, the position encoding).
 */
import t from 'tap';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { BACKWARDS, END, EventStoreDBClient, eventTypeFilter, jsonEvent } from '@eventstore/db-client';
import { join } from 'node:path';
import { createEsdbStore, redactCredentials } from '../../src/store/esdb';
import { comparePositions, decodePosition, encodePosition, type EsdbPosition } from '../../src/store/esdb-position';
import { StoreUnavailableError, type NewEvent, type RecordedEvent } from '../../src/store/port';
import { createEsdbStandin, type EsdbStandin } from '../support/esdb-standin';
import { propertyOptions } from '../support/seeds';

function event(type: string, data: NewEvent['data'] = {}): NewEvent {
  return { type, data, metadata: { actor: 'system', at: '2026-11-22T00:00:00.000Z', request_id: 'esdb-standin-test', schema: 1 } };
}

async function startedStandin(t: tap.Test, batchAppend = false): Promise<EsdbStandin> {
  const standin = createEsdbStandin({ batchAppend });
  await standin.start();
  t.teardown(() => standin.stop());
  return standin;
}

/** Resolves when `ready()` holds, re-checked whenever `poke` is called; fails after a hang guard. */
function condition(ready: () => boolean, what: string): { wait(): Promise<void>; poke(): void } {
  let check = (): void => undefined;
  return {
    poke: () => check(),
    wait: () =>
      new Promise<void>((resolve, reject) => {
        const guard = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 30_000);
        check = () => {
          if (!ready()) return;
          clearTimeout(guard);
          resolve();
        };
        check();
      }),
  };
}

t.test('position encoding', async (t) => {
  t.same(decodePosition(encodePosition({ commit: 0n, prepare: 0n })), { commit: 0n, prepare: 0n });
  t.same(decodePosition(encodePosition({ commit: 214n, prepare: 315n })), { commit: 214n, prepare: 315n });
  t.throws(() => encodePosition({ commit: 10n, prepare: 9n }), RangeError, 'prepare before commit is refused');
  t.throws(() => encodePosition({ commit: 0n, prepare: 1n << 24n }), RangeError, 'an offset beyond 16 MiB is refused');
  const fourTiB = 1n << 42n;
  t.ok(encodePosition({ commit: fourTiB - 1n, prepare: fourTiB - 1n + (1n << 24n) - 1n }).toString().length <= 20, 'a 4 TiB log fits 20 digits');

  const pair = fc
    .tuple(fc.bigInt({ min: 0n, max: (1n << 42n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 24n) - 1n }))
    .map(([commit, offset]): EsdbPosition => ({ commit, prepare: commit + offset }));
  for (const options of propertyOptions(2000)) {
    fc.assert(fc.property(pair, (p) => comparePositions(decodePosition(encodePosition(p)), p) === 0), options);
    fc.assert(
      fc.property(pair, pair, (a, b) => Math.sign(comparePositions(a, b)) === Math.sign(Number(encodePosition(a) - encodePosition(b)))),
      options,
    );
  }
  t.pass('round-trips and keeps $all order');
});

t.test('description leaves out credentials', async (t) => {
  t.equal(redactCredentials('esdb://admin:changeit@db.example:2113?tls=false'), 'esdb://db.example:2113?tls=false');
  t.equal(redactCredentials('esdb+discover://u:p@a:2113,b:2113'), 'esdb+discover://a:2113,b:2113');
  t.equal(redactCredentials('esdb://127.0.0.1:2113?tls=false'), 'esdb://127.0.0.1:2113?tls=false');
  const store = createEsdbStore('esdb://admin:changeit@127.0.0.1:1?tls=false');
  t.teardown(() => store.close());
  t.notMatch(store.description, /changeit|admin/);
  t.match(store.description, /127\.0\.0\.1:1/);
});

t.test('system and foreign events are invisible; a tombstone is not an event', async (t) => {
  const standin = await startedStandin(t);
  const store = createEsdbStore(standin.connectionString);
  t.teardown(() => store.close());
  t.ok(standin.log.length >= 2, 'the stand-in holds a $ system event and another application\'s event');
  t.same(await store.readAll(), [], 'readAll shows none of them');
  t.equal(await store.headPosition(), undefined, 'and the head ignores them');

  const stream = `rule-${randomUUID()}`;
  const written = await store.append(stream, [event('RuleCreated'), event('RuleUpdated')], 'no_stream');
  await store.deleteStream(stream);
  t.equal(standin.log.at(standin.log.length - 1).type, '$streamDeleted', 'the tombstone is a record in $all');
  t.same((await store.readAll()).map((e) => e.type), ['RuleCreated', 'RuleUpdated'], 'the events stay until a scavenge');
  t.equal(await store.headPosition(), written.position, 'the head is our last event, not the tombstone');

  const delivered: RecordedEvent[] = [];
  const caughtUp = condition(() => done, 'caught-up');
  let done = false;
  const subscription = store.subscribe(undefined, {
    onEvent: (e) => void delivered.push(e),
    onCaughtUp: () => {
      done = true;
      caughtUp.poke();
    },
  });
  t.teardown(() => subscription.close());
  await caughtUp.wait();
  t.same(delivered.map((e) => e.type), ['RuleCreated', 'RuleUpdated'], 'the subscription skips them too');
});

t.test('a readAll page skips foreign events between ours', async (t) => {
  const standin = await startedStandin(t);
  const store = createEsdbStore(standin.connectionString, { readBatchSize: 2 });
  t.teardown(() => store.close());
  const foreign = { id: randomUUID(), type: 'Other', contentType: 'application/json', data: Buffer.from('{}'), customMetadata: new Uint8Array() };
  for (let n = 0; n < 3; n++) {
    await store.append(`context-${n}`, [event('ContextCreated', { n })], 'no_stream');
    for (let i = 0; i < 3; i++) standin.log.append(`other-${n}`, { kind: 'any' }, [{ ...foreign, id: randomUUID() }], new Date());
  }
  const first = await store.readAll({ limit: 2 });
  t.same(first.map((e) => e.data), [{ n: 0 }, { n: 1 }], 'a full page of ours across small raw batches');
  const rest = await store.readAll({ after: first[1]!.position, limit: 2 });
  t.same(rest.map((e) => e.data), [{ n: 2 }]);
  t.equal(await store.headPosition(), rest[0]!.position, 'the head skips the foreign tail');
});

for (const batchAppend of [false, true]) {
  t.test(`the stand-in dies under a live subscription (${batchAppend ? 'BatchAppend' : 'Append'})`, async (t) => {
    const standin = await startedStandin(t, batchAppend);
    let resubscribes = 0;
    const store = createEsdbStore(standin.connectionString, {
      deadlineMs: 2_000,
      resubscribeDelayMs: { initial: 10, max: 50 },
      onResubscribe: () => {
        resubscribes++;
        progress.poke();
      },
    });
    t.teardown(() => store.close());
    const stream = `secret-${randomUUID()}`;
    const delivered: RecordedEvent[] = [];
    let caughtUps = 0;
    const progress = condition(() => false, 'nothing');
    let want = (): boolean => false;
    const until = (ready: () => boolean, what: string): Promise<void> => {
      want = ready;
      const waiting = condition(() => want(), what);
      progress.poke = waiting.poke;
      return waiting.wait();
    };
    const subscription = store.subscribe(undefined, {
      onEvent: (e) => {
        delivered.push(e);
        progress.poke();
      },
      onCaughtUp: () => {
        caughtUps++;
        progress.poke();
      },
      onError: (error) => t.fail(`the subscription gave up: ${error.message}`),
    });
    t.teardown(() => subscription.close());

    await store.append(stream, [0, 1, 2].map((n) => event('SecretCreated', { n })), 'no_stream');
    await until(() => delivered.length === 3 && caughtUps === 1, 'the first three events');

    await standin.stop();
    await t.rejects(store.append(stream, [event('SecretUpdated', { n: 99 })], 2n), StoreUnavailableError, 'append while down');
    await t.rejects(store.readStream(stream), StoreUnavailableError, 'readStream while down');
    await t.rejects(store.readAll(), StoreUnavailableError, 'readAll while down');
    await t.rejects(store.headPosition(), StoreUnavailableError, 'headPosition while down');
    await until(() => resubscribes >= 2, 'failed resubscription attempts while down');

    // Written by "another node" while we were cut off: must arrive after the restart.
    const json = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));
    standin.log.append(stream, { kind: 'revision', revision: 2n }, [
      { id: randomUUID(), type: 'SecretUpdated', contentType: 'application/json', data: json({ n: 3 }), customMetadata: json(event('x').metadata) },
    ], new Date());
    await standin.restart();
    await store.append(stream, [4, 5].map((n) => event('SecretUpdated', { n })), 3n);
    await until(() => delivered.length >= 6, 'the events written around the restart');

    t.same(delivered.map((e) => e.data), [0, 1, 2, 3, 4, 5].map((n) => ({ n })), 'every event once, in order: no gap, no duplicate');
    t.same(delivered.map((e) => e.revision), [0n, 1n, 2n, 3n, 4n, 5n]);
    t.equal(caughtUps, 1, 'caught-up is not signalled again after a resubscription');
    const path = batchAppend ? 'BatchAppend' : 'Append';
    t.ok(standin.calls(path) > 0 && standin.calls(batchAppend ? 'Append' : 'BatchAppend') === 0, `the client appended over ${path}`);
  });
}

t.test('a silent server: calls fail with StoreUnavailableError at the deadline', async (t) => {
  // Accepts TCP connections and never speaks HTTP/2.
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        silent.close(() => resolve());
      }),
  );
  const address = silent.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const store = createEsdbStore(`esdb://127.0.0.1:${port}?tls=false`, { deadlineMs: 300 });
  t.teardown(() => store.close());
  await t.rejects(store.append('rule-silent', [event('RuleCreated')], 'any'), StoreUnavailableError, 'append');
  await t.rejects(store.readStream('rule-silent'), StoreUnavailableError, 'readStream');
  await t.rejects(store.deleteStream('rule-silent'), StoreUnavailableError, 'deleteStream');
});

t.test('a bigint in event data is refused without hanging or crashing', async (t) => {
  const standin = await startedStandin(t);
  const store = createEsdbStore(standin.connectionString);
  t.teardown(() => store.close());
  const stream = `rule-${randomUUID()}`;
  const bad = { ...event('RuleCreated'), data: { revision: 1n } as unknown as NewEvent['data'] };
  await t.rejects(store.append(stream, [bad], 'no_stream'), TypeError);
  t.same(await store.readStream(stream), [], 'nothing was written');
  t.equal((await store.append(stream, [event('RuleCreated')], 'no_stream')).nextRevision, 0n, 'the store still works');
});

t.test('close() leaves no handles: the process exits by itself', async (t) => {
  const standin = await startedStandin(t);
  const child = spawn(process.execPath, [join(__dirname, '..', 'support', 'esdb-standin', 'exit-child.js'), standin.connectionString], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  clearTimeout(guard);
  t.equal(output, 'closed\n', 'the child saw its event and closed the store');
  t.equal(signal, null, 'it was not killed by the hang guard');
  t.equal(code, 0);
});

t.test('close() while resubscribing ends the subscription', async (t) => {
  const standin = await startedStandin(t);
  let resubscribes = 0;
  const retrying = condition(() => resubscribes >= 1, 'a resubscription attempt');
  const store = createEsdbStore(standin.connectionString, {
    resubscribeDelayMs: { initial: 10, max: 20 },
    onResubscribe: () => {
      resubscribes++;
      retrying.poke();
    },
  });
  const errors: Error[] = [];
  store.subscribe(undefined, { onEvent: () => undefined, onError: (error) => void errors.push(error) });
  await standin.stop();
  await retrying.wait();
  await store.close();
  t.same(errors, [], 'closing is not an error');
  t.throws(() => store.subscribe(undefined, { onEvent: () => undefined }), StoreUnavailableError, 'a closed store refuses subscriptions');
  await t.rejects(store.append('rule-x', [event('RuleCreated')], 'any'), StoreUnavailableError, 'and work');
});

t.test('the stand-in speaks the rest of the protocol the client uses', async (t) => {
  const standin = await startedStandin(t);
  const client = EventStoreDBClient.connectionString(standin.connectionString);
  t.teardown(() => client.dispose());
  const stream = `prompt-${randomUUID()}`;
  await client.appendToStream(stream, [0, 1, 2].map((n) => jsonEvent({ type: n === 1 ? 'Skip' : 'Keep', data: { n } })));

  const backwards = [];
  for await (const resolved of client.readStream(stream, { direction: BACKWARDS, fromRevision: END })) backwards.push(resolved.event?.revision);
  t.same(backwards, [2n, 1n, 0n], 'a stream reads backwards from the end');

  const checkpoints: bigint[] = [];
  const subscription = client.subscribeToAll({
    filter: eventTypeFilter({ regex: '^Keep$', maxSearchWindow: 2, checkpointInterval: 1, checkpointReached: (_s, position) => void checkpoints.push(position.commit) }),
  });
  const kept = [];
  for await (const resolved of subscription) {
    kept.push(resolved.event?.data);
    if (kept.length === 2) break;
  }
  await subscription.unsubscribe();
  t.same(kept, [{ n: 0 }, { n: 2 }], 'an event-type regex filter applies on the server');
  t.ok(checkpoints.length > 0 && checkpoints.every((c, i) => i === 0 || c >= checkpoints[i - 1]!), 'checkpoints arrive in log order');

  await client.deleteStream(stream);
  const readError = await (async () => {
    try {
      for await (const resolved of client.readStream(stream)) void resolved;
    } catch (error) {
      return error;
    }
    return undefined;
  })();
  t.match(readError, { type: 'stream-not-found' }, 'a soft-deleted stream reads as not found');
  const next = await client.appendToStream(stream, jsonEvent({ type: 'Keep', data: { n: 3 } }), { expectedRevision: 'no_stream' });
  t.equal(next.nextExpectedRevision, 3n, 'and can be written again, continuing its revisions');
});

t.test('a slow subscriber holds the server back and still gets every event in order', async (t) => {
  const standin = await startedStandin(t);
  const store = createEsdbStore(standin.connectionString);
  t.teardown(() => store.close());
  // 1 MB in all: far more than the HTTP/2 flow-control window and the streams' buffers.
  const padding = 'x'.repeat(1_000);
  for (let batch = 0; batch < 10; batch++) {
    await store.append(`apikey-${batch}`, Array.from({ length: 100 }, (_, i) => event('ApiKeyCreated', { n: batch * 100 + i, padding })), 'no_stream');
  }
  const seen: number[] = [];
  const all = condition(() => seen.length === 1_000, 'all 1000 events');
  const subscription = store.subscribe(undefined, {
    async onEvent(e) {
      // Yield to the event loop per event so the gRPC buffers fill and the server must wait for drain.
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(e.data['n'] as number);
      all.poke();
    },
  });
  t.teardown(() => subscription.close());
  await all.wait();
  t.same(seen, Array.from({ length: 1_000 }, (_, n) => n));
});
