/**
 * The parts of a worker's link to its writer that need no processes: which
 * command methods cross, and how answers and errors cross the channel.
 */
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { FORWARDED_METHODS, forwardingCommands, runForwarded, type CommandService } from '../../src/cluster/forwarded';
import { createPeer, type Channel } from '../../src/cluster/peer';
import { loadConfig, ConfigError } from '../../src/base/config';
import { AppError } from '../../src/base/errors';
import type { WriteCommands } from '../../src/http/deps';

const ROOT = path.resolve(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    return entry.isDirectory() ? sources(rel) : rel.endsWith('.ts') ? [rel] : [];
  });
}

t.test('every command method the HTTP layer calls is forwarded by a worker', async (t) => {
  const called = new Set<string>();
  for (const file of sources('src/http')) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    for (const match of text.matchAll(/\b(catalog|vault|apiKeys|imports|chain)\.(\w+)\(/g)) called.add(`${match[1]}.${match[2]}`);
  }
  t.ok(called.size >= 15, `the scan finds the routes' calls (${called.size})`);
  const forwarded = new Set(Object.entries(FORWARDED_METHODS).flatMap(([service, methods]) => methods.map((m) => `${service}.${m}`)));
  t.same([...called].filter((call) => !forwarded.has(call)), [], 'no route calls a method a worker does not forward');
});

t.test('the writer runs only listed methods, with the arguments the worker gave', async (t) => {
  const seen: unknown[][] = [];
  const commands = {
    catalog: { createRule: async (...args: unknown[]) => (seen.push(args), { id: 'r1', revision: 0n, position: 7n }) },
    vault: {}, apiKeys: { hasAdminKey: () => true }, imports: {},
  } as unknown as WriteCommands;
  const forwarded = forwardingCommands((call) => runForwarded(commands, call));
  t.same(await forwarded.catalog.createRule({ name: 'n' }, { id: 'k', requestId: 'q' }), { id: 'r1', revision: 0n, position: 7n });
  t.same(seen, [[{ name: 'n' }, { id: 'k', requestId: 'q' }]]);
  await t.rejects(runForwarded(commands, { service: 'apiKeys', method: 'hasAdminKey', args: [] }), /not a forwarded command: apiKeys.hasAdminKey/);
  await t.rejects(runForwarded(commands, { service: 'nope' as CommandService, method: 'x', args: [] }), /not a forwarded command/);
});

/** Two ends of an in-process channel, delivering as IPC does: later, and in order. */
function channelPair(): [Channel, Channel] {
  const a = new EventEmitter();
  const b = new EventEmitter();
  const end = (self: EventEmitter, other: EventEmitter): Channel => ({
    send: (message) => setImmediate(() => other.emit('message', structuredClone(message))),
    on: (event, listener) => self.on(event, listener),
    off: (event, listener) => self.off(event, listener),
  });
  return [end(a, b), end(b, a)];
}

t.test('calls cross with their values; errors keep their code, internals their secrecy', async (t) => {
  const [left, right] = channelPair();
  createPeer(right, {
    echo: (payload) => payload,
    conflict: () => {
      throw new AppError('conflict', 'prompt name greeting is taken');
    },
    crash: () => {
      throw new TypeError('cannot read properties of undefined (reading "x") at /srv/internal.js');
    },
  });
  const caller = createPeer(left, {});
  t.same(await caller.call('echo', { position: 12n, ids: ['a'] }), { position: 12n, ids: ['a'] }, 'bigints cross as bigints');
  const conflict = await caller.call('conflict').catch((error: unknown) => error);
  t.ok(conflict instanceof AppError, 'an AppError stays one');
  t.equal((conflict as AppError).code, 'conflict');
  t.equal((conflict as AppError).message, 'prompt name greeting is taken');
  const crash = await caller.call('crash').catch((error: unknown) => error);
  t.notOk(crash instanceof AppError, 'an unexpected error is not an AppError, so the HTTP layer answers 500 "internal error" without its text');
  const missing = await caller.call('nothing').catch((error: unknown) => error);
  t.match((missing as Error).message, /no such call: nothing/);
});

t.test('a closed peer rejects the calls still waiting, and new ones, as unavailable', async (t) => {
  const [left, right] = channelPair();
  createPeer(right, { slow: () => new Promise(() => undefined) });
  const caller = createPeer(left, {});
  const waiting = caller.call('slow');
  caller.close('worker 3 exited');
  for (const pending of [waiting, caller.call('slow')]) {
    const error = await pending.catch((e: unknown) => e);
    t.ok(error instanceof AppError && error.code === 'unavailable' && error.message === 'worker 3 exited');
  }
});

t.test('RULEVAULT_WORKERS', async (t) => {
  t.equal(loadConfig({}).workers, 1, 'one process unless asked');
  t.equal(loadConfig({ RULEVAULT_WORKERS: '4' }).workers, 4);
  const auto = loadConfig({ RULEVAULT_WORKERS: 'auto' }).workers;
  t.ok(auto >= 1 && auto <= 8, `auto: the cores, at most 8 (${auto})`);
  for (const bad of ['0', '65', 'two', '-1']) {
    t.throws(() => loadConfig({ RULEVAULT_WORKERS: bad }), ConfigError, `${bad} is refused`);
  }
  t.throws(() => loadConfig({ RULEVAULT_WORKERS: 'two' }), /RULEVAULT_WORKERS.*whole number from 1 to 64, or auto/);
});
