/**
 * Black-box: scripts/build.js, which `npm start`, `npm run cli`, `npm run audit`
 * and the `rulevault` bin run first. It builds only when a source is newer
 * than the last successful build, and a failed build is tried again on the
 * next call. Run on a scratch project (a copy of the script, a tsconfig and
 * one source file) with this repository's TypeScript.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { removeDir, tempDir } from '../support/temp';

const REPO = path.resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

async function build(root: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [path.join(root, 'scripts', 'build.js'), ...args], { cwd: root });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

t.test('builds when missing or stale, skips when current, retries after a failure', async (t) => {
  const root = tempDir('rulevault-build-');
  t.teardown(() => removeDir(root));
  mkdirSync(path.join(root, 'scripts'));
  mkdirSync(path.join(root, 'src'));
  copyFileSync(path.join(REPO, 'scripts', 'build.js'), path.join(root, 'scripts', 'build.js'));
  symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { outDir: 'dist', rootDir: '.', strict: true, types: [] }, include: ['src'] }));
  const source = path.join(root, 'src', 'a.ts');
  const output = path.join(root, 'dist', 'src', 'a.js');
  const stamp = path.join(root, 'dist', '.build-stamp');
  writeFileSync(source, 'export const answer: number = 1;\n');
  // Sources are dated in the past, so "newer than the stamp" is decided by the dates set here, not by the clock's resolution.
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(source, past, past);
  utimesSync(path.join(root, 'tsconfig.json'), past, past);

  const first = await build(root, '--if-stale');
  t.equal(first.code, 0, first.stderr);
  t.match(first.stderr, /^rulevault: no build yet; building the service \(tsc\) and the web console \(vite\) into dist\/, once: about a minute \.\.\.\nrulevault: built in \d+ s\n$/, 'no build yet: it says so (not "sources changed"), builds, and says how long it took');
  t.match(readFileSync(output, 'utf8'), /answer = 1/);

  const current = await build(root, '--if-stale');
  t.same(current, { code: 0, stderr: '' }, 'current: nothing to do, nothing said');

  writeFileSync(source, 'export const answer: number = 2;\n');
  const later = new Date(statSync(stamp).mtimeMs + 60_000);
  utimesSync(source, later, later);
  const stale = await build(root, '--if-stale');
  t.equal(stale.code, 0, stale.stderr);
  t.match(stale.stderr, /sources changed since the last build; building/, 'a stale build says why it builds');
  t.match(readFileSync(output, 'utf8'), /answer = 2/, 'a newer source is built');

  writeFileSync(source, 'export const answer: number = "three";\n');
  const evenLater = new Date(statSync(stamp).mtimeMs + 60_000);
  utimesSync(source, evenLater, evenLater);
  const broken = await build(root, '--if-stale');
  t.not(broken.code, 0, 'a type error fails the call');
  t.match(broken.stderr, /TS2322/);
  t.notOk(existsSync(stamp), 'and removes the stamp');
  const again = await build(root, '--if-stale');
  t.not(again.code, 0);
  t.match(again.stderr, /the last build did not finish; building again/, 'so the next call builds again rather than run what tsc emitted beside its errors');

  writeFileSync(source, 'export const answer: number = 4;\n');
  const forced = await build(root);
  t.equal(forced.code, 0, forced.stderr);
  t.equal(forced.stderr, '', 'a plain build (npm run build) builds without asking');
  t.ok(existsSync(stamp));
  t.same(await build(root, '--if-stale'), { code: 0, stderr: '' });
});

t.test('package.json runs the service and the CLI through the check', async (t) => {
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  t.equal(pkg.scripts.start, 'node --max-semi-space-size=64 scripts/start.js');
  t.equal(pkg.scripts.cli, 'node bin/rulevault.js');
  t.equal(pkg.scripts.audit, 'node bin/rulevault.js audit');
  t.equal(pkg.scripts.build, 'node scripts/build.js');
  for (const file of ['bin/rulevault.js', 'scripts/start.js']) t.match(readFileSync(path.join(REPO, file), 'utf8'), /ensureBuilt\(\)/, `${file} checks the build first`);
});
