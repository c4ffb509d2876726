import t from 'tap';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyChain } from '../../src/audit/chain-verify';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/store/port';
import { ConcurrencyError, LOG_PAGE_BYTES, StoreUnavailableError, StreamDeletedError } from '../../src/store/port';
import { expectationHolds } from '../../src/store/sqlite-append';
import { openSqliteStore, pageSize, type SqliteStoreOptions } from '../../src/store/sqlite';
import { TURN_EVERY } from '../../src/store/sqlite-subscription';
import { runStoreContract } from './contract';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'rulevault-sqlite-'));
}

function event(type: string, data: NewEvent['data'] = {}): NewEvent {
  return { type, data, metadata: { actor: 'system', at: '2026-11-22T00:00:00.000Z', request_id: 'sqlite-test', schema: 1 } };
}

/** A fresh store in a temporary folder, as the contract suite opens them. */
function freshStore(options: SqliteStoreOptions = {}) {
  return async () => {
    const dir = await tempDir();
    const store = openSqliteStore(join(dir, 'events.db'), options);
    return {
      store,
      traits: { erasesDeletedStreamsAtOnce: true, erasesInPlace: true },
      async cleanup() {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  };
}

runStoreContract(t, 'sqlite', freshStore());
// The same contract with every catch-up read ahead on a worker thread, two events a page.
runStoreContract(t, 'sqlite (read-ahead)', freshStore({ readAheadFrom: 0, readAheadPageSize: 2 }));

/** A subscription from the log's start: what it delivered, and a wait until it delivered `n` events. */
function followFromStart(t: tap.Test, store: EventStore) {
  const delivered: RecordedEvent[] = [];
  let notify = (): void => undefined;
  const subscription = store.subscribe(undefined, {
    onEvent(e) {
      delivered.push(e);
      notify();
    },
  });
  t.teardown(() => subscription.close());
  const deliveredCount = (n: number): Promise<void> =>
    new Promise((resolve) => {
      notify = () => delivered.length >= n && resolve();
      notify();
    });
  return { delivered, deliveredCount };
}

t.test('expectationHolds', async (t) => {
  t.ok(expectationHolds('any', undefined));
  t.ok(expectationHolds('any', 3n));
  t.ok(expectationHolds('no_stream', undefined));
  t.notOk(expectationHolds('no_stream', 0n));
  t.ok(expectationHolds('stream_exists', 0n));
  t.notOk(expectationHolds('stream_exists', undefined));
  t.ok(expectationHolds(2n, 2n));
  t.notOk(expectationHolds(2n, 1n));
  t.notOk(expectationHolds(0n, undefined));
});

t.test('pageSize defaults to 1000 and caps at 10000', async (t) => {
  t.equal(pageSize(undefined), 1000);
  t.equal(pageSize(5), 5);
  t.equal(pageSize(50_000), 10_000);
  t.equal(pageSize(0), 1);
  t.equal(pageSize(Number.NaN), 1000);
});

t.test('readAll caps a page at 10000 events', async (t) => {
  const dir = await tempDir();
  const store = openSqliteStore(join(dir, 'events.db'));
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 12; i++) {
    await store.append(`bulk-${i}`, Array.from({ length: 1000 }, (_, n) => event('Bulk', { n })), 'no_stream');
  }
  t.equal((await store.readAll({ limit: 1_000_000 })).length, 10_000);
  t.equal((await store.readAll()).length, 1000);
});

/** The two ways a batch is written: on the store's connection, and on a worker's (an import of 2,000 events or more). */
const BATCH_PATHS: readonly (readonly [string, SqliteStoreOptions])[] = [['on the store\'s connection', {}], ['on a worker thread', { batchWorkerFrom: 1 }]];

for (const [label, options] of BATCH_PATHS) {
  t.test(`appendAtomically ${label}: several streams in one transaction, all or nothing`, async (t) => {
    const dir = await tempDir();
    const store = openSqliteStore(join(dir, 'events.db'), options);
    t.teardown(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    await store.append('taken-1', [event('Made')], 'no_stream');
    await store.append('gone-1', [event('Made')], 'no_stream');
    await store.deleteStream('gone-1');
    const results = await store.appendAtomically!([
      { stream: 'a-1', events: [event('A'), event('A2')], expected: 'no_stream' },
      { stream: 'taken-1', events: [event('B')], expected: 0n },
    ]);
    t.same(results.map((r) => [r.nextRevision, r.position]), [[1n, 4n], [1n, 5n]], 'results in the order given');
    const stale = await store.appendAtomically!([
      { stream: 'c-1', events: [event('C')], expected: 'no_stream' },
      { stream: 'taken-1', events: [event('D')], expected: 0n },
      { stream: 'e-1', events: [event('E')], expected: 'no_stream' },
    ]).catch((error: unknown) => error);
    // The class too: the command bus retries a ConcurrencyError by its class.
    t.type(stale, ConcurrencyError, 'a failed expectation refuses the whole batch');
    t.match(stale, { message: 'stream taken-1: expected revision 0, actual 1', stream: 'taken-1', expected: 0n, actual: 1n }, 'named as the store names it');
    const gone = await store.appendAtomically!([
      { stream: 'c-1', events: [event('C')], expected: 'no_stream' },
      { stream: 'gone-1', events: [event('D')], expected: 'any' },
    ]).catch((error: unknown) => error);
    t.type(gone, StreamDeletedError, 'a deleted stream refuses the whole batch');
    t.match(gone, { stream: 'gone-1' });
    t.same((await store.readAll()).map((e) => e.type), ['Made', 'A', 'A2', 'B'], 'nothing of the refused batches was written');
    t.same(await store.readStream('c-1'), [], 'not even the append before the failed one');
    t.same(store.durabilityStats?.().commits, 4, 'each written batch counted once as a commit, the refused ones not');
  });
}

t.test('creates the folder and file; an empty log has no head', async (t) => {
  const dir = await tempDir();
  const path = join(dir, 'nested', 'deeper', 'events.db');
  const store = openSqliteStore(path);
  t.teardown(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  t.ok(existsSync(path));
  t.equal(await store.headPosition(), undefined);
  t.same(await store.readAll(), []);
  t.match(store.description, /^sqlite:/);
});

t.test('reopening after close keeps everything', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const first = openSqliteStore(path);
  await first.append('rule-1', [event('RuleCreated', { name: 'ä' }), event('RuleUpdated')], 'no_stream');
  await first.append('rule-2', [event('RuleCreated')], 'no_stream');
  await first.append('secret-1', [event('SecretStored')], 'no_stream');
  await first.deleteStream('secret-1');
  const before = await first.readAll();
  await first.close();
  await first.close();

  const second = openSqliteStore(path);
  t.teardown(() => second.close());
  t.same(await second.readAll(), before, 'the same events at the same positions');
  t.equal((await second.append('rule-1', [event('RuleUpdated')], 1n)).nextRevision, 2n, 'revisions continue');
  await t.rejects(second.append('secret-1', [event('SecretStored')], 'any'), { name: 'StreamDeletedError' }, 'deletion is remembered');
  const head = await second.headPosition();
  t.ok(head !== undefined && head > before[before.length - 1]!.position, 'positions continue');
});

t.test('a closed store ends its subscriptions and refuses work', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = openSqliteStore(join(dir, 'events.db'));
  const delivered: RecordedEvent[] = [];
  let caughtUp!: () => void;
  const ready = new Promise<void>((resolve) => (caughtUp = resolve));
  store.subscribe(undefined, { onEvent: (e) => void delivered.push(e), onCaughtUp: () => caughtUp() });
  await ready;
  await store.close();
  await t.rejects(store.append('x', [event('Made')], 'any'), StoreUnavailableError);
  await t.rejects(store.readAll(), StoreUnavailableError);
  t.throws(() => store.subscribe(undefined, { onEvent: () => undefined }), StoreUnavailableError);
  t.same(delivered, []);
  // tap ends this process only if close() left no timers or handles behind.
});

t.test('a second connection on the same file: its appends reach subscriptions by polling', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const service = openSqliteStore(path, { pollIntervalMs: 10 });
  const operator = openSqliteStore(path);
  t.teardown(async () => {
    await operator.close();
    await service.close();
  });
  await service.append('rule-a', [event('RuleCreated')], 'no_stream');
  const { delivered, deliveredCount } = followFromStart(t, service);
  await deliveredCount(1);
  await operator.append('rule-b', [event('RuleCreated', { by: 'cli' })], 'no_stream');
  await operator.append('rule-a', [event('RuleUpdated', { by: 'cli' })], 0n);
  await deliveredCount(3);
  t.same(delivered.map((e) => `${e.stream}@${e.revision}`), ['rule-a@0', 'rule-b@0', 'rule-a@1']);
  await t.rejects(service.append('rule-a', [event('RuleUpdated')], 0n), { name: 'ConcurrencyError', actual: 1n }, 'the service sees the operator revision');
});

t.test('a live subscription gets exactly the events the file holds, handed from the commit or read back', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const service = openSqliteStore(path, { pollIntervalMs: 5 });
  const operator = openSqliteStore(path);
  t.teardown(async () => {
    await operator.close();
    await service.close();
  });
  const { delivered, deliveredCount } = followFromStart(t, service);
  // This connection's commits one by one (each handed over from the commit), several before the
  // subscription reads (the last commit's rows no longer follow its cursor: read back), a batch, and
  // another connection's commits in between (read back: this one's last commit does not follow them).
  let written = 0;
  for (let i = 0; i < 5; i++) {
    await service.append(`rule-${i}`, [event('RuleCreated', { i, text: 'x'.repeat(i * 100) })], 'no_stream');
    await deliveredCount(++written);
  }
  await Promise.all([0, 1, 2].map((i) => service.append(`rule-${i}`, [event('RuleUpdated', { i })], 0n)));
  written += 3;
  await service.appendAtomically!([
    { stream: 'context-a', expected: 'no_stream', events: [event('ContextCreated', { a: 1 }), event('ContextUpdated', { a: 2 })] },
    { stream: 'rule-9', expected: 'no_stream', events: [event('RuleCreated', { nine: true })] },
  ]);
  written += 3;
  await operator.append('rule-op', [event('RuleCreated', { by: 'cli' })], 'no_stream');
  await service.append('rule-4', [event('RuleUpdated', { after: 'cli' })], 0n);
  written += 2;
  await deliveredCount(written);
  await operator.append('rule-op', [event('RuleUpdated', { by: 'cli' })], 0n);
  await deliveredCount(++written);
  t.same(delivered, await service.readAll({ limit: 100 }), 'the same events, values and order as a read of the file');
  t.same(delivered.map((e) => e.position), Array.from({ length: written }, (_, i) => BigInt(i + 1)), 'each once, in order');
});

t.test('a catch-up too short for the read-ahead reads pages of at most LOG_PAGE_BYTES of data, and misses nothing', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = openSqliteStore(join(dir, 'events.db'));
  t.teardown(() => store.close());
  // 30 events of ~400 KB (12 MB) fit in one page of 5,000 rows: bytes must cut it. One append each, so the
  // subscription reads the file (the last commit's rows do not follow its cursor).
  const bytes = (e: RecordedEvent): number => Buffer.byteLength(JSON.stringify(e.data));
  for (let n = 0; n < 30; n++) await store.append(`big-${n}`, [event('ContextCreated', { n, pad: 'x'.repeat(400_000) })], 'no_stream');
  // The follower gives the loop a turn between pages and none within a catch-up page, so the turn an event
  // arrives in names its page.
  let turn = 0;
  let ticker = setImmediate(function tick() {
    turn++;
    ticker = setImmediate(tick);
  });
  t.teardown(() => clearImmediate(ticker));
  const pages: RecordedEvent[][] = [];
  await new Promise<void>((resolve) => {
    let pageTurn = -1;
    store.subscribe(undefined, {
      onEvent(e) {
        if (turn !== pageTurn) pages.push([]);
        pageTurn = turn;
        pages[pages.length - 1]!.push(e);
      },
      onCaughtUp: resolve,
    });
  });
  t.same(pages.flat().map((e) => (e.data as { n: number }).n), Array.from({ length: 30 }, (_, n) => n), 'every event, in order, before caught-up');
  t.same(pages.map((page) => page.length), [21, 9], 'cut where the page reached LOG_PAGE_BYTES');
  const first = pages[0]!.reduce((sum, e) => sum + bytes(e), 0);
  t.ok(first >= LOG_PAGE_BYTES && first - bytes(pages[0]![20]!) < LOG_PAGE_BYTES, 'the first page ends with the event that reached the bound');
});

// Handed from the commit's own rows (written on the store's connection), or read back from the file (written on the batch worker).
for (const [label, options] of [['from the commit\'s rows', { batchWorkerFrom: Infinity }], ['read back from the file', {}]] as const) {
t.test(`a live commit larger than a page (${label}) is delivered to a follower ${TURN_EVERY} events at a time, with the event loop turning between`, async (t) => {
    const dir = await tempDir();
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const store = openSqliteStore(join(dir, 'events.db'), options);
    t.teardown(() => store.close());
    await store.append('rule-first', [event('RuleCreated', { first: true })], 'no_stream');
    const { delivered, deliveredCount } = followFromStart(t, store);
    await deliveredCount(1);
    // Events delivered between two turns of the event loop: at most TURN_EVERY once the follower is live.
    let sinceTurn = 0;
    let most = 0;
    let going = true;
    const tick = (): void => {
      sinceTurn = 0;
      if (going) setImmediate(tick);
    };
    setImmediate(tick);
    const counting = store.subscribe(delivered.at(-1)!.position, {
      onEvent() {
        most = Math.max(most, ++sinceTurn);
      },
    });
    t.teardown(() => counting.close());
    // One commit of 7,000 events (an import).
    await store.appendAtomically!(Array.from({ length: 7000 }, (_, i) => ({ stream: `rule-${i}`, expected: 'no_stream' as const, events: [event('RuleCreated', { i })] })));
    await deliveredCount(7001);
    going = false;
    t.ok(most <= TURN_EVERY, `at most ${most} events delivered without a turn between`);
    t.ok(most >= TURN_EVERY / 2, `but ${most} in a row: no turn per event`);
    const file: RecordedEvent[] = [];
    for (let page = await store.readAll({ limit: 1000 }); page.length > 0; page = await store.readAll({ after: page.at(-1)!.position, limit: 1000 })) file.push(...page);
    t.same(delivered, file, 'the same events, values and order as a read of the file');
  });

}

for (const [label, options] of BATCH_PATHS) {
  t.test(`a batch appended atomically ${label} links on from the log's head, stream after stream, and the whole log verifies`, async (t) => {
    const dir = await tempDir();
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const store = openSqliteStore(join(dir, 'events.db'), options);
    t.teardown(() => store.close());
    await store.append('rule-before', [event('RuleCreated', { n: 0 })], 'no_stream');
    await store.appendAtomically!(['a', 'b', 'c'].map((s) => ({
      stream: `rule-${s}`, expected: 'no_stream' as const, events: [event('RuleCreated', { s }), event('RuleUpdated', { s, again: true })],
    })));
    await store.append('rule-after', [event('RuleCreated', { n: 7 })], 'no_stream');
    const log = await store.readAll({ limit: 100 });
    const links = log.map((e) => (e.metadata as { chain?: { seq: number; prev: string; hash: string } }).chain!);
    t.same(links.map((l) => l.seq), [1, 2, 3, 4, 5, 6, 7, 8], 'one sequence through the batch');
    t.ok(links.every((l, i) => i === 0 || l.prev === links[i - 1]!.hash), 'each link names the one before it');
    const records = (async function* () {
      yield* log;
    })();
    const report = await verifyChain(records, { publicKeys: [], checkSignature: () => false });
    t.same([report.verified, report.events, report.break], [true, 8, null], 'the verifier finds no break');
  });
}

t.test('a batch on a worker thread: the event loop turns meanwhile, a read sees all of it or none, a write meanwhile lands after it', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = openSqliteStore(join(dir, 'events.db'), { batchWorkerFrom: 1000 });
  t.teardown(() => store.close());
  await store.append('rule-before', [event('RuleCreated', { n: 0 })], 'no_stream');
  const size = 20_000;
  let settled = false;
  const writing = store.appendAtomically!(Array.from({ length: size }, (_, i) => ({
    stream: `rule-${i}`, expected: 'no_stream' as const, events: [event('RuleCreated', { i, text: 'x'.repeat(100) })],
  }))).finally(() => {
    settled = true;
  });
  // Issued while the batch is being written: it waits for the batch, then takes the next position.
  const meanwhile = store.append('rule-meanwhile', [event('RuleCreated', { n: 1 })], 'no_stream');
  const seen = new Set<number>();
  let turns = 0;
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve));
    turns += 1;
    seen.add(Number((await store.headPosition()) ?? 0n));
  }
  const results = await writing;
  t.ok(turns > 1, `the event loop turned ${turns} times while the batch was written`);
  // The head before the batch, after it, or after it and the write that waited for it.
  t.same([...seen].filter((head) => head !== 1 && head !== 1 + size && head !== 2 + size), [], 'every read meanwhile saw the batch whole or not at all');
  t.equal(results.at(-1)!.position, BigInt(1 + size));
  t.equal((await meanwhile).position, BigInt(2 + size), 'the write issued meanwhile landed after the batch');
  // rule-i is at position i + 2.
  const tail = await store.readAll({ after: BigInt(size - 1), limit: 10 });
  t.same(tail.map((e) => e.stream), [`rule-${size - 2}`, `rule-${size - 1}`, 'rule-meanwhile']);
});

t.test('a batch on a worker thread with group commit off, and a close while one is written', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const store = openSqliteStore(path, { batchWorkerFrom: 1, groupCommit: false });
  const writing = store.appendAtomically!(Array.from({ length: 3000 }, (_, i) => ({ stream: `rule-${i}`, expected: 'no_stream' as const, events: [event('RuleCreated', { i })] })));
  const closing = store.close();
  t.equal((await writing).at(-1)!.position, 3000n, 'the batch in flight finished');
  await closing;
  const reopened = openSqliteStore(path);
  t.teardown(() => reopened.close());
  t.equal(await reopened.headPosition(), 3000n, 'and was there when the file was opened again');
  await t.rejects(store.append('rule-late', [event('RuleCreated')], 'no_stream'), StoreUnavailableError, 'the closed store refuses writes');
});

/**
 * A store holding a sealed-looking marker in one stream, between two events
 * of another, and a scan of its files (database, WAL, shm) for the marker.
 */
async function storeWithMarkedStream(t: tap.Test) {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const store = openSqliteStore(path);
  t.teardown(() => store.close());
  const marker = `SEALED-${randomUUID()}`;
  const stream = `secret-${randomUUID()}`;
  await store.append('rule-1', [event('RuleCreated', { name: 'kept-rule' })], 'no_stream');
  // Big enough to spill into overflow pages as well as small enough to share a page.
  await store.append(stream, [event('SecretStored', { sealed: marker }), event('SecretRotated', { sealed: marker.repeat(200) })], 'no_stream');
  await store.append('rule-1', [event('RuleUpdated', { note: 'written after the secret' })], 0n);
  const rawFiles = async (): Promise<Buffer> =>
    Buffer.concat(await Promise.all(['', '-wal', '-shm'].map((suffix) => readFile(path + suffix).catch(() => Buffer.alloc(0)))));
  t.ok((await rawFiles()).includes(marker), 'the marker is on disk before the erasure (the scan can see it)');
  return { store, stream, marker, rawFiles };
}

t.test('deleteStream leaves no copy of the events in the database, WAL or shm files', async (t) => {
  const { store, stream, marker, rawFiles } = await storeWithMarkedStream(t);
  await store.deleteStream(stream);
  t.notOk((await rawFiles()).includes(marker), 'no byte of the marker survives the delete');
  t.ok((await rawFiles()).includes('kept-rule'), 'other events are still on disk');
  t.equal((await store.readStream('rule-1')).length, 2);
});

t.test('appendErasing leaves no copy of the erased content in the database, WAL or shm files', async (t) => {
  const { store, stream, marker, rawFiles } = await storeWithMarkedStream(t);
  await store.appendErasing(stream, [event('SecretErased', { id: 'kept-record' })], 1n);
  const files = await rawFiles();
  t.notOk(files.includes(marker), 'no byte of the marker survives the erasure');
  t.ok(files.includes('kept-rule') && files.includes('kept-record'), 'other events and the erasure record are on disk');
  t.same((await store.readStream(stream)).map((e) => e.type), ['SecretStored', 'SecretRotated', 'SecretErased']);
});

t.test('opening the store folds a WAL left by a killed process into the file, so an erasure cut short before its checkpoint leaves no copy', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const marker = `SEALED-${randomUUID()}`;
  // A child writes a secret, erases it with the checkpoint skipped (as a kill between commit and checkpoint would), and is killed.
  const child = spawn(process.execPath, [join(__dirname, 'fixtures', 'store-child.js'), 'erase-then-die', path, marker], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exitSignal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  t.equal(exitSignal, 'SIGKILL', 'the child died by SIGKILL');
  const wal = await readFile(`${path}-wal`).catch(() => Buffer.alloc(0));
  t.ok(wal.includes(marker), 'the killed process left the marker in the WAL');
  const store = openSqliteStore(path);
  t.teardown(() => store.close());
  const files = Buffer.concat(await Promise.all(['', '-wal'].map((suffix) => readFile(path + suffix).catch(() => Buffer.alloc(0)))));
  t.notOk(files.includes(marker), 'opened: no copy left in the file or the WAL');
  t.same((await store.readStream('secret-1')).map((e) => e.type), ['SecretStored', 'SecretErased']);
});

/** Starts a racing child process; resolves with its stdout lines once it is ready. */
function startRacer(path: string, stream: string, revision: bigint): Promise<{ go(): void; result: Promise<string> }> {
  const proc = spawn(process.execPath, [join(__dirname, 'fixtures', 'store-child.js'), 'race', path, stream, String(revision)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  return lines.next().then((ready) => {
    if (ready.value !== 'ready') throw new Error(`racer said ${String(ready.value)}`);
    return {
      go: () => proc.stdin.end('go\n'),
      result: lines.next().then((line) => String(line.value)),
    };
  });
}

t.test('processes appending at the same expected revision: exactly one wins', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const store = openSqliteStore(path);
  t.teardown(() => store.close());
  await store.append('rule-raced', [event('RuleCreated')], 'no_stream');
  const racers = await Promise.all(Array.from({ length: 4 }, () => startRacer(path, 'rule-raced', 0n)));
  for (const racer of racers) racer.go();
  const results = (await Promise.all(racers.map((racer) => racer.result))).sort();
  t.same(results, ['lost 1', 'lost 1', 'lost 1', 'won'], 'one winner; the losers learn revision 1');
  const events = await store.readStream('rule-raced');
  t.same(events.map((e) => e.revision), [0n, 1n]);
  t.equal(events[1]?.type, 'Raced');
});

t.test('group commit: appends asked for together share syncs; with it off every commit is its own', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const groupCommit of [true, false]) {
    const store = openSqliteStore(join(dir, `events-${String(groupCommit)}.db`), { groupCommit });
    t.teardown(() => store.close());
    const before = store.durabilityStats!();
    // Fifty durable appends in one turn: all commit at once; the first starts a sync, the other 49 wait for the next.
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.append(`group-${i}`, [event('Grouped')], 'no_stream')));
    const after = store.durabilityStats!();
    t.equal(after.commits - before.commits, 50, `group commit ${groupCommit ? 'on' : 'off'}: fifty commits`);
    t.equal(after.syncs - before.syncs, groupCommit ? 2 : 50, groupCommit ? 'two syncs' : 'fifty fsyncs (synchronous=FULL)');
  }
});

t.test('group commit: the WAL descriptor outlives erasure checkpoints (TRUNCATE) and later commits are durable', async (t) => {
  const dir = await tempDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'events.db');
  const store = openSqliteStore(path);
  await store.append('secret-a', [event('SecretCreated')], 'no_stream');
  await store.appendErasing('secret-a', [event('SecretDeleted')], 0n);
  const after = await store.append('rule-after', [event('RuleCreated')], 'no_stream');
  await store.close();
  // Read back through a fresh connection: the commit after the truncation is in the file.
  const reopened = openSqliteStore(path);
  t.teardown(() => reopened.close());
  t.same((await reopened.readStream('rule-after')).map((e) => e.position), [after.position]);
});
