#!/usr/bin/env node
/**
 * One tier of the test suite (test/tiers.json; CONTRIBUTING.md, "Test, by
 * tier"; ADR 0052):
 *
 *   node scripts/test-tier.js unit     [words] [tap options]   pure tests, transpiled by esbuild into dist-unit/
 *   node scripts/test-tier.js node     [words] [tap options]   in-process black-box suites, on the full build
 *   node scripts/test-tier.js system   [words] [tap options]   child processes, workers and the browser, on the full build
 *
 * Words (arguments without a leading -) keep the tier's files whose path
 * holds one of them: `npm run test:unit -- engine/ docs/`. A tap option
 * with a value is written --name=value.
 *
 * The unit tier skips tsc on purpose: type-checking ~55k lines is most of a
 * minute on two cores, and its files need no console bundle and no compiled
 * CLI, so an esbuild transpile (a second or two, no type check) makes the
 * loop a developer runs after each edit. `npm test` and CI still type-check
 * everything. dist-unit/ sits beside dist/ at the same depth, so a test's
 * paths from __dirname (the repository root two folders up) hold in both.
 *
 * Without tap options, the unit tier's files run under plain node, one per
 * core at a time, each a tap test that prints its TAP and exits non-zero on
 * a failure: tap's runner loads its process-tracking loader
 * (@tapjs/processinfo, for coverage) into every test process, most of a
 * second of CPU per file, half the tier's CPU. A failing file's whole TAP
 * output is printed. With tap options (--grep=..., --bail), tap runs them.
 * Plain JavaScript: it runs before anything is compiled.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureBuilt } = require('./build.js');

const ROOT = path.resolve(__dirname, '..');
const TIERS = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'tiers.json'), 'utf8'));
/** What the unit transpile compiles: the folders tsconfig.json includes, without the console (its own build). */
const UNIT_SOURCES = ['src', 'projections', 'scripts', 'test', 'bench'];
const UNIT_OUT = 'dist-unit';

/** Every .ts file (not .d.ts) under `dir`, src/console left out. */
function tsFiles(dir) {
  const files = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (full !== path.join(ROOT, 'src', 'console')) files.push(...tsFiles(full));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files;
}

/** esbuild, transpile only, every source into dist-unit/ (emptied first, so a deleted source leaves no stale file). */
function transpileForUnit() {
  const esbuild = require('esbuild');
  const outdir = path.join(ROOT, UNIT_OUT);
  fs.rmSync(outdir, { recursive: true, force: true });
  esbuild.buildSync({
    entryPoints: UNIT_SOURCES.filter((dir) => fs.existsSync(path.join(ROOT, dir))).flatMap((dir) => tsFiles(path.join(ROOT, dir))),
    outdir,
    outbase: ROOT,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  return outdir;
}

/** Runs each file as `node <file>`, `jobs` at a time; resolves with the files that failed. */
function runEach(files, jobs) {
  const { timeout } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).tap;
  const env = { ...process.env, TAP_TIMEOUT: String(timeout) };
  const failed = [];
  let next = 0;
  let running = 0;
  return new Promise((resolve) => {
    const startNext = () => {
      if (next === files.length) {
        if (running === 0) resolve(failed);
        return;
      }
      const file = files[next++];
      const started = Date.now();
      running++;
      const child = spawn(process.execPath, ['--enable-source-maps', file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('close', (code) => {
        running--;
        const name = path.relative(ROOT, file);
        process.stdout.write(`${code === 0 ? 'ok' : 'not ok'} ${name} # time=${Date.now() - started}ms\n`);
        if (code !== 0) {
          failed.push(name);
          process.stdout.write(output.replace(/^/gm, '    ') + '\n');
        }
        startNext();
      });
    };
    for (let slot = 0; slot < jobs; slot++) startNext();
  });
}

async function main(argv) {
  const [tier, ...rest] = argv;
  const words = rest.filter((arg) => !arg.startsWith('-'));
  const tapArgs = rest.filter((arg) => arg.startsWith('-'));
  if (!Object.hasOwn(TIERS, tier ?? '')) {
    process.stderr.write(`usage: node scripts/test-tier.js <${Object.keys(TIERS).join('|')}> [words] [tap options]\n`);
    return 2;
  }
  let out;
  if (tier === 'unit') out = transpileForUnit();
  else {
    const built = ensureBuilt();
    if (built !== 0) return built;
    out = path.join(ROOT, 'dist');
  }
  const files = TIERS[tier]
    .filter((file) => words.length === 0 || words.some((word) => file.includes(word)))
    .map((file) => path.join(out, 'test', file.replace(/\.ts$/, '.js')));
  if (files.length === 0) {
    process.stderr.write(`no ${tier} test file's path holds ${words.join(' or ')}\n`);
    return 1;
  }
  if (tier === 'unit' && tapArgs.length === 0) {
    const started = Date.now();
    const failed = await runEach(files, os.availableParallelism());
    process.stdout.write(`# ${files.length - failed.length} of ${files.length} files passed in ${Math.round((Date.now() - started) / 1000)} s${failed.length ? `; failed: ${failed.join(' ')}` : ''}\n`);
    return failed.length === 0 ? 0 : 1;
  }
  const tap = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', '.bin', 'tap'), ...tapArgs, ...files], { cwd: ROOT, stdio: 'inherit' });
  return tap.status ?? 1;
}

void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
