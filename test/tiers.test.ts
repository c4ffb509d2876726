/**
 * The suite's tiers (test/tiers.json; CONTRIBUTING.md, "Test, by tier"; ADR
 * 0052): every test file is in exactly one, and a tier's files import only
 * what the tier allows. `npm run test:unit` promises no socket, no child
 * process, no thread, no store file and no browser, so a unit file's whole
 * import graph (through src/ and the test support) is read here: a module
 * that could listen, spawn or launch anywhere in it moves the file out of
 * the tier, whether or not the test calls it today (type-only imports,
 * which the compiler erases, load nothing and do not count).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT, runtimeSpecifiers, sourceOf, targetOf, tsFiles } from './support/imports';

type Tier = 'unit' | 'node' | 'system';
const TIERS = JSON.parse(readFileSync(path.join(ROOT, 'test', 'tiers.json'), 'utf8')) as Record<Tier, string[]>;

/** What a unit test may not reach: sockets and servers, processes, threads, the store's file, the browser. */
const NOT_IN_UNIT = new Set([
  'child_process', 'cluster', 'worker_threads', 'http', 'https', 'http2', 'net', 'dgram',
  'express', '@grpc/grpc-js', '@eventstore/db-client', 'better-sqlite3', 'playwright-core',
]);
/** What a node-tier file may not use itself: it runs in this process (the matrix's worker cells start the service through with-node). */
const SPAWNS = /\bfrom 'node:(child_process|cluster)'|\bfrom 'playwright-core'|\b(spawnService|spawnServiceFor|runService|runScript|runCli)\(/;

const testFiles = tsFiles('test').filter((file) => file.endsWith('.test.ts')).map((file) => file.slice('test/'.length));

/** The first forbidden module in `file`'s import graph, with the chain of imports that reaches it. */
function forbiddenIn(file: string): string | undefined {
  const from = new Map<string, string | undefined>([[file, undefined]]);
  const queue = [file];
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    for (const spec of runtimeSpecifiers(current)) {
      if (spec.startsWith('.')) {
        const source = sourceOf(targetOf(current, spec));
        if (source !== undefined && !from.has(source)) {
          from.set(source, current);
          queue.push(source);
        }
      } else if (NOT_IN_UNIT.has(spec.replace(/^node:/, ''))) {
        const chain = [spec];
        for (let at: string | undefined = current; at !== undefined; at = from.get(at)) chain.unshift(at);
        return chain.join(' -> ');
      }
    }
  }
  return undefined;
}

t.test('every test file is in exactly one tier, and every listed file exists', async (t) => {
  const listed = Object.values(TIERS).flat();
  t.same(Object.keys(TIERS), ['unit', 'node', 'system'], 'three tiers, cheapest first');
  t.same(testFiles.filter((file) => !listed.includes(file)), [], 'no test file is left out');
  t.same(listed.filter((file, i) => listed.indexOf(file) !== i), [], 'none is in two');
  t.same(listed.filter((file) => !testFiles.includes(file)), [], 'none is listed that does not exist');
  for (const tier of Object.values(TIERS)) t.same(tier, [...tier].sort(), 'each list is sorted');
});

t.test('a unit file imports nothing that listens, spawns, starts a thread, opens the store or launches a browser', async (t) => {
  const reached = TIERS.unit.map((file) => forbiddenIn(`test/${file}`)).filter((chain) => chain !== undefined);
  t.same(reached, []);
  t.ok(TIERS.unit.length > 40, 'and the tier holds the pure tests');
});

t.test('the walk finds a forbidden module however deep', async (t) => {
  t.match(forbiddenIn('test/http/evaluate.test.ts'), /^test\/http\/evaluate\.test\.ts -> .* -> (node:)?(http|net|child_process|worker_threads|cluster|express|@grpc\/grpc-js|better-sqlite3)$/);
  t.equal(forbiddenIn('test/engine/operators.test.ts'), undefined);
});

t.test('a node-tier file spawns nothing and launches no browser itself', async (t) => {
  t.same(TIERS.node.filter((file) => SPAWNS.test(readFileSync(path.join(ROOT, 'test', file), 'utf8'))), []);
});

t.test('the tier scripts run the tiers, and npm test the whole suite', async (t) => {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  for (const tier of Object.keys(TIERS)) t.equal(scripts[`test:${tier}`], `node scripts/test-tier.js ${tier}`);
  t.equal(scripts.test, 'npm run build --silent && tap', 'npm test runs every file under dist/test');
});
