/**
 * The command bus under group commit, on the real SQLite store and read
 * model: the store's `durable()` is gated by the test (the real one runs
 * after the gate opens), so the order of decisions, commits, syncs and
 * answers can be seen. The next decision runs while the previous write waits
 * for its sync; no command answers before a sync that covers it.
 */
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULTS } from '../../src/base/config';
import { createReadModel } from '../../src/read-model/read-model';
import { createCatalogCommands } from '../../src/service/catalog-commands';
import { createCommandBus } from '../../src/service/command-bus';
import { openSqliteStore } from '../../src/store/sqlite';
import { StoreUnavailableError, type EventStore } from '../../src/store/port';

const ACTOR = { id: 'test', requestId: 'command-bus-test' };

/** A real store followed by a read model, and the catalog commands over it with `durable` in place of the store's own. */
async function commandNode(t: tap.Test, durable: (real: EventStore) => () => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), 'rulevault-bus-'));
  const real = openSqliteStore(join(dir, 'events.db'));
  const readModel = createReadModel();
  const subscription = real.subscribe(undefined, { onEvent: (event) => readModel.apply(event) });
  t.teardown(async () => {
    await subscription.close();
    await real.close();
    await rm(dir, { recursive: true, force: true });
  });
  const runtime = { now: () => new Date('2026-11-24T00:00:00.000Z'), newId: randomUUID };
  const bus = createCommandBus({ ...real, durable: durable(real) }, readModel, runtime);
  const catalog = createCatalogCommands({ bus, readModel, runtime, maxRegexLength: 1000, templateLimits: DEFAULTS.limits });
  return { bus, catalog, readModel };
}

/** `commandNode` whose `durable()` waits for `openGates()`, then runs the real one; `log` records both. */
async function gatedNode(t: tap.Test) {
  const log: string[] = [];
  let gates: (() => void)[] = [];
  const node = await commandNode(t, (real) => async () => {
    log.push('durable asked');
    await new Promise<void>((resolve) => gates.push(resolve));
    await real.durable();
    log.push('durable');
  });
  const openGates = () => {
    const open = gates;
    gates = [];
    for (const gate of open) gate();
  };
  return { ...node, log, openGates, waiting: () => gates.length };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('the next decision runs while the previous write waits for its sync; neither answers before it', async (t) => {
  const { catalog, readModel, log, openGates, waiting } = await gatedNode(t);
  const answered = (name: string) => (view: { id: string }) => {
    log.push(`answered ${name}`);
    return view;
  };
  const a = catalog.createContext({ name: 'a', content: 'A' }, ACTOR).then(answered('a'));
  const b = catalog.createContext({ name: 'b', content: 'B' }, ACTOR).then(answered('b'));
  for (let i = 0; i < 20 && waiting() < 2; i++) await settle();
  t.equal(waiting(), 2, 'both writes wait for durability at once: the second was decided and committed meanwhile');
  t.equal(readModel.state.contexts.size, 2, 'both are applied (visible) before either is durable');
  t.notOk(log.some((line) => line.startsWith('answered')), 'neither has answered');
  openGates();
  const [first, second] = await Promise.all([a, b]);
  t.ok(readModel.state.contexts.has(first.id) && readModel.state.contexts.has(second.id));
  t.same(log.filter((line) => line === 'durable').length, 2);
  for (const name of ['a', 'b']) {
    t.ok(log.indexOf(`answered ${name}`) > log.indexOf('durable'), `${name} answered after a sync finished`);
  }
});

t.test('an append outside withRetry takes its own turn and settles only once durable', async (t) => {
  const { bus, log, openGates, waiting } = await gatedNode(t);
  let settled = false;
  const append = bus.append('context-outside', 'no_stream', [
    { type: 'ContextCreated', data: { id: 'outside', name: 'outside', description: '', content: '', tags: [], meta_properties: {}, status: 'ACTIVE' } },
  ] as never, ACTOR).then(() => {
    settled = true;
  });
  for (let i = 0; i < 20 && waiting() < 1; i++) await settle();
  t.equal(waiting(), 1, 'it asked for durability');
  t.notOk(settled, 'and has not settled');
  openGates();
  await append;
  t.same(log, ['durable asked', 'durable']);
});

t.test('a failed sync makes the command a 503, after its write was applied', async (t) => {
  const { catalog, readModel } = await commandNode(t, () => () => Promise.reject(new StoreUnavailableError('sync failed')));
  await t.rejects(catalog.createContext({ name: 'lost', content: '' }, ACTOR), { code: 'unavailable' });
  t.equal(readModel.state.contexts.size, 1, 'the write was committed and applied, just never acknowledged');
});
