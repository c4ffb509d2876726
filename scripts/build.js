#!/usr/bin/env node
/**
 * The build, and the check that skips it when it is current (docs/cli.md,
 * "No rebuild on every call"). Plain JavaScript on purpose: it must run
 * before anything is compiled.
 *
 *   node scripts/build.js              tsc, then stamp the build
 *   node scripts/build.js --if-stale   the same, only when a source is newer than the stamp
 *
 * The stamp (dist/.build-stamp) carries the time the last successful build
 * STARTED, so a source saved while tsc ran counts as newer and is built next
 * time; a failed build removes it, so the next call builds again instead of
 * running what tsc emitted beside its errors. Only the sources (TypeScript,
 * and the console's TSX, HTML and CSS) and the tsconfig files are compared:
 * the stat walk takes a few milliseconds.
 *
 * A build is three steps: tsc for the service, scripts, tests and bench; tsc
 * for the console's types (src/console has its own tsconfig: DOM, JSX); and
 * vite for the console's bundle (dist/console).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const SOURCE_DIRS = ['src', 'projections', 'scripts', 'test', 'bench'];
const SOURCE_FILE = /\.(ts|tsx|mts|html|css|json)$/;

/** The newest modification time (ms) of tsconfig.json and every .ts file in the compiled folders. */
function newestSource() {
  let newest = fs.statSync(path.join(ROOT, 'tsconfig.json')).mtimeMs;
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (SOURCE_FILE.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  for (const dir of SOURCE_DIRS) if (fs.existsSync(path.join(ROOT, dir))) walk(path.join(ROOT, dir));
  return newest;
}

function isStale() {
  let stamp;
  try {
    stamp = fs.statSync(STAMP).mtimeMs;
  } catch {
    return true;
  }
  return newestSource() > stamp;
}

/** Runs tsc; returns its exit code. Output goes to stderr so a command's stdout (--json) stays clean. */
function build() {
  const started = new Date();
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  } catch {
    process.stderr.write('rulevault: the build is missing or older than the sources, and TypeScript is not installed (run npm ci)\n');
    return 1;
  }
  const consoleDir = path.join(ROOT, 'src', 'console');
  const steps = [[tsc, '-p', path.join(ROOT, 'tsconfig.json')]];
  // The console's steps run where its sources are (a scratch project in test/cli/build.test.ts has none).
  if (fs.existsSync(path.join(consoleDir, 'tsconfig.json'))) {
    steps.push(
      [tsc, '-p', consoleDir],
      // vite's exports map hides its bin: take it from the installed package's folder.
      [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn', '-c', path.join(consoleDir, 'vite.config.mts')],
    );
  }
  for (const step of steps) {
    const run = spawnSync(process.execPath, step, { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (run.status !== 0) {
      fs.rmSync(STAMP, { force: true });
      return run.status ?? 1;
    }
  }
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, `built from sources as of ${started.toISOString()}\n`);
  fs.utimesSync(STAMP, started, started);
  return 0;
}

/** Builds when needed, saying why; returns 0 when the build is current afterwards. */
function ensureBuilt() {
  if (!isStale()) return 0;
  if (fs.existsSync(STAMP)) {
    process.stderr.write('rulevault: sources changed since the last build; building (tsc) ...\n');
    return build();
  }
  if (fs.existsSync(path.dirname(STAMP))) {
    process.stderr.write('rulevault: the last build did not finish; building again (tsc) ...\n');
    return build();
  }
  // A fresh clone: the first start waits for the whole build, so say what it is and that it happens once.
  process.stderr.write('rulevault: no build yet; building the service (tsc) and the web console (vite) into dist/, once: about a minute ...\n');
  const started = Date.now();
  const code = build();
  if (code === 0) process.stderr.write(`rulevault: built in ${Math.round((Date.now() - started) / 1000)} s\n`);
  return code;
}

if (require.main === module) {
  process.exitCode = process.argv.includes('--if-stale') ? ensureBuilt() : build();
}

module.exports = { ensureBuilt, isStale };
