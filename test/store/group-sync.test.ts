/**
 * The group-commit loop with a sync function the test controls: no waiter is
 * released before a sync that started after it finished, one sync serves
 * everyone who joined before it started, and a failed sync rejects every
 * waiter, calls the fail-stop hook once and refuses everything after.
 */
import t from 'tap';
import { createGroupSync } from '../../src/store/group-sync';
import { StoreUnavailableError } from '../../src/store/port';

/** A sync whose every call the test finishes or fails by hand, in order. */
function controlledSync(log: string[]) {
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let started = 0;
  return {
    sync: () => new Promise<void>((resolve, reject) => {
      const n = ++started;
      log.push(`sync ${n} start`);
      pending.push({
        resolve: () => {
          log.push(`sync ${n} end`);
          resolve();
        },
        reject,
      });
    }),
    get inFlight() {
      return pending.length;
    },
    finish: () => pending.shift()!.resolve(),
    fail: (error: Error) => pending.shift()!.reject(error),
  };
}

/** Lets every queued promise reaction run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('waiters are released only by a sync that started after they joined', async (t) => {
  const log: string[] = [];
  const disk = controlledSync(log);
  const group = createGroupSync(disk.sync, () => t.fail('no failure expected'));
  const ack = (name: string) => group.durable().then(() => log.push(`ack ${name}`));

  const a = ack('a');
  await settle();
  t.equal(disk.inFlight, 1, 'the first waiter starts a sync');
  const bc = [ack('b'), ack('c')];
  await settle();
  t.equal(disk.inFlight, 1, 'waiters joining during a sync start none of their own');
  t.same(log, ['sync 1 start'], 'nobody is acknowledged while the sync runs');

  disk.finish();
  await a;
  await settle();
  t.same(log, ['sync 1 start', 'sync 1 end', 'sync 2 start', 'ack a'],
    'the sync under way releases only who joined before it; the next starts at once for the rest');
  disk.finish();
  await Promise.all(bc);
  t.same(log.slice(4), ['sync 2 end', 'ack b', 'ack c'], 'one sync serves both late joiners');
  t.equal(group.syncs, 2, 'three waiters, two syncs');

  await settle();
  t.equal(disk.inFlight, 0, 'nothing waits, nothing syncs');
});

t.test('a failed sync rejects every waiter, calls the fail-stop hook once and refuses what follows', async (t) => {
  const log: string[] = [];
  const disk = controlledSync(log);
  const failures: StoreUnavailableError[] = [];
  const group = createGroupSync(disk.sync, (error) => failures.push(error));
  const outcome = (p: Promise<void>) => p.then(() => 'acknowledged', (error: unknown) => error);

  const first = outcome(group.durable());
  await settle();
  const late = outcome(group.durable());
  await settle();
  disk.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));

  const [a, b] = await Promise.all([first, late]);
  for (const [name, error] of [['the waiter of the failed sync', a], ['the waiter queued behind it', b]] as const) {
    t.type(error, StoreUnavailableError, `${name} is rejected`);
    t.match((error as Error).message, /could not make writes durable.*EIO/, `${name} learns why`);
  }
  t.equal(failures.length, 1, 'the fail-stop hook is called once');
  t.equal(failures[0], a, 'with the error the waiters got');
  t.equal(group.failure, a, 'the failure stays');

  const after = await outcome(group.durable());
  t.equal(after, a, 'a later waiter is refused at once');
  await settle();
  t.equal(disk.inFlight, 0, 'and no sync is tried again');
  t.equal(group.syncs, 1);
  t.notOk(log.some((line) => line.startsWith('ack')), 'nothing was acknowledged');
});

t.test('close waits for the sync in flight; later waiters are refused', async (t) => {
  const disk = controlledSync([]);
  const group = createGroupSync(disk.sync, () => t.fail('no failure expected'));
  const waiting = group.durable();
  await settle();
  let closed = false;
  const closing = group.close().then(() => {
    closed = true;
  });
  await settle();
  t.notOk(closed, 'close does not return while a sync runs');
  disk.finish();
  await waiting;
  await closing;
  t.ok(closed);
  await t.rejects(group.durable(), StoreUnavailableError, 'a closed group syncs no more');
});
