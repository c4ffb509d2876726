/**
 * The ready line's memory figures and the warning a start gives when its
 * heap is past half its limit: the pure reading and rule, then a real
 * service process started with a small heap (`--max-old-space-size`) and
 * with Node's own limit.
 */
import t, { type Test } from 'tap';
import { HEAP_WARN_SHARE, memoryRoom, memoryWarning } from '../src/memory-room';
import { removeDir, tempDir, testEnv } from './support/node';
import { runService } from './support/process';

const MB = 2 ** 20;
const readings = (used: number, limit: number, constrained: number | undefined) => ({
  heap: { used_heap_size: used * MB, heap_size_limit: limit * MB }, rss: 300 * MB, constrained, total: 24_000 * MB,
});

t.test('the figures in MB; a cgroup limit only when it is below the machine', async (t) => {
  t.same(memoryRoom(readings(100, 4144, 2048 * MB)), { rss_mb: 300, heap_used_mb: 100, heap_limit_mb: 4144, limit_mb: 2048 });
  t.equal(memoryRoom(readings(100, 4144, 2 ** 64)).limit_mb, null, 'no cgroup limit: the huge number Node reports');
  t.equal(memoryRoom(readings(100, 4144, 0)).limit_mb, null, 'none reported');
  t.equal(memoryRoom(readings(100, 4144, undefined)).limit_mb, null, 'a Node without process.constrainedMemory');
  t.equal(memoryRoom(readings(100, 4144, 24_000 * MB)).limit_mb, null, 'a limit at the machine\'s size limits nothing');
});

t.test('a warning past half the heap limit, naming the figures and the fix', async (t) => {
  t.equal(HEAP_WARN_SHARE, 0.5);
  t.equal(memoryWarning(memoryRoom(readings(500, 1000, undefined))), undefined, 'at half: none');
  const warning = memoryWarning(memoryRoom(readings(501, 1000, undefined)));
  t.match(warning, /^the heap is at 501 of its 1000 MB limit at start; .* raise it with NODE_OPTIONS=--max-old-space-size=<MB> \(README, Operations > Memory\)$/);
});

/** The JSON log lines of a service started on a fresh folder with `nodeOptions` as its NODE_OPTIONS, up to its ready line. */
async function startLines(t: Test, nodeOptions: string): Promise<Record<string, unknown>[]> {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  // Only these options: the test runner's own (a coverage loader) would take heap of the service's.
  const env = { ...testEnv(dir, { PORT: '0' }), NODE_OPTIONS: nodeOptions };
  const run = await runService(env, /"msg":"ready"/);
  return run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

t.test('a service started with a small heap warns before its ready line; with Node\'s own limit it does not', async (t) => {
  const small = await startLines(t, '--max-old-space-size=20 --max-semi-space-size=1');
  const ready = small.find((line) => line.msg === 'ready') as { memory: { heap_used_mb: number; heap_limit_mb: number; rss_mb: number } };
  t.ok(ready.memory.heap_limit_mb >= 20 && ready.memory.heap_limit_mb < 30, `the ready line gives the heap's limit (${ready.memory.heap_limit_mb} MB)`);
  t.ok(ready.memory.heap_used_mb > ready.memory.heap_limit_mb / 2, 'this start fills more than half of it');
  t.ok(ready.memory.rss_mb > ready.memory.heap_used_mb, 'and its RSS');
  const warned = small.findIndex((line) => line.level === 'warn' && String(line.msg).startsWith('the heap is at'));
  t.ok(warned !== -1 && warned < small.indexOf(ready), 'the warning comes before the ready line');
  t.same(small[warned]?.memory, ready.memory, 'with the same figures');

  const roomy = await startLines(t, '');
  const roomyReady = roomy.find((line) => line.msg === 'ready') as { memory: { heap_limit_mb: number } };
  t.ok(roomyReady.memory.heap_limit_mb > 100, 'Node\'s own limit');
  t.notOk(roomy.some((line) => String(line.msg).startsWith('the heap is at')), 'no warning');
});
