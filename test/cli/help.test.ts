/**
 * Every command and command group of `rulevault` answers --help and -h
 * (usage, options, an example), refuses an unknown option with exit 2, and
 * docs/cli.md lists every command with the summary its --help prints first
 * (one line per command; the options are --help's). The command lines run
 * in this process through the CLI's own dispatch (what main() runs, with
 * stdout and stderr collected): none of them reaches a command's work, so
 * a process each would only add Node's start-up. The compiled CLI and the
 * package bin are spawned once each, and must print the same.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { dispatch, everyPath } from '../../src/cli/command';
import { ROOT } from '../../src/cli/rulevault';
import { runCli, type ScriptRun } from '../support/process';

const REPO = path.resolve(__dirname, '..', '..', '..');
const PATHS = everyPath(ROOT).map(({ path, node }) => ({ path, isGroup: 'commands' in node }));

/** One command line through the CLI's dispatch, in this process: its exit code and what it wrote. */
async function cli(args: readonly string[]): Promise<ScriptRun> {
  let stdout = '';
  let stderr = '';
  const code = await dispatch(ROOT, args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** `work` on every item, one after another (each is a parse and a print: nothing to overlap). */
async function each<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await work(item));
  return results;
}

/** docs/cli.md's command table: `| \`rulevault ...\` | summary |`, the summary with `|` escaped as markdown needs. */
function documentedCommands(): Map<string, string> {
  const page = readFileSync(path.join(REPO, 'docs', 'cli.md'), 'utf8');
  const rows = new Map<string, string>();
  for (const match of page.matchAll(/^\| `(rulevault[^`]*)` \| (.*) \|$/gm)) rows.set(match[1]!, match[2]!.replace(/\\\|/g, '|'));
  return rows;
}

t.test('--help and -h on every command and group, and docs/cli.md lists each with its summary', async (t) => {
  const helps = await each(PATHS, async ({ path }) => ({
    long: await cli([...path.slice(1), '--help']),
    short: await cli([...path.slice(1), '-h']),
  }));
  const documented = documentedCommands();
  PATHS.forEach(({ path, isGroup }, i) => {
    const name = path.join(' ');
    const { long, short } = helps[i]!;
    t.equal(long.code, 0, `${name} --help exits 0`);
    t.equal(long.stderr, '');
    t.ok(long.stdout.startsWith(`usage: ${name} `), `${name}: the usage line first`);
    t.equal(short.stdout, long.stdout, `${name} -h is --help`);
    if (isGroup) t.match(long.stdout, /\ncommands:\n/, `${name} lists its commands`);
    else t.match(long.stdout, /\noptions:\n[\s\S]*--json[\s\S]*-h, --help[\s\S]*\nexamples?:\n {2}\S/, `${name}: options, --json and an example`);
    // The summary is the line after the usage line and a blank one; details may follow it.
    const summary = long.stdout.split('\n')[2];
    t.equal(documented.get(name), summary, `docs/cli.md lists \`${name}\` with the summary its --help prints`);
  });
  t.same([...documented.keys()].sort(), PATHS.map(({ path }) => path.join(' ')).sort(), 'and no row for a command that does not exist');
});

t.test('an unknown option or command on any command exits 2 and says which', async (t) => {
  const runs = await each(PATHS, ({ path }) => cli([...path.slice(1), '--no-such-option']));
  PATHS.forEach(({ path, isGroup }, i) => {
    const run: ScriptRun = runs[i]!;
    const name = path.join(' ');
    t.equal(run.code, 2, `${name} --no-such-option exits 2`);
    t.equal(run.stdout, '');
    t.match(run.stderr, isGroup ? /^error: unknown option --no-such-option \(a command comes first\)/ : new RegExp(`^error: unknown option --no-such-option for ${name}\n`));
    t.match(run.stderr, new RegExp(`\nusage: ${name} `));
  });
  const json = await cli(['secrets', 'get', 'X', '--nope', '--json']);
  t.equal(json.code, 2);
  t.same(JSON.parse(json.stderr), { error: { kind: 'usage', message: 'unknown option --nope for rulevault secrets get', usage: 'rulevault secrets get <key> [options]' } });
  const unknown = await cli(['secrets', 'frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /^error: unknown command "frobnicate" for rulevault secrets; commands: list, get, put, rm, run, export\n/);
  const missing = await cli(['secrets', 'get']);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /^error: missing <key>\n/);
  const noValue = await cli(['log', '--limit']);
  t.equal(noValue.code, 2);
  t.match(noValue.stderr, /^error: option --limit needs a value <n>\n/);
  const bare = await cli([]);
  t.equal(bare.code, 2);
  t.match(bare.stderr, /^error: a command is missing; commands: api-keys, log, rotate-master-key, secrets, import, test, audit\n/);
});

t.test('--version prints the package version; a mistyped command or option is answered with the one it is closest to', async (t) => {
  const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
  const plain = await cli(['--version']);
  t.same([plain.code, plain.stdout, plain.stderr], [0, `rulevault ${version}\n`, '']);
  const json = await cli(['--version', '--json']);
  t.same([json.code, JSON.parse(json.stdout)], [0, { name: 'rulevault', version }]);
  const help = await cli(['--help']);
  t.match(help.stdout, new RegExp(`\noptions:\n {6}--version +print the version of this CLI \\(rulevault ${version.replace(/\./g, '\\.')};`), 'the root --help says --version');
  t.notMatch((await cli(['audit', '--help'])).stdout, /--version/, 'and only the root has it');

  const command = await cli(['secrts', 'list']);
  t.equal(command.code, 2);
  t.match(command.stderr, /^error: unknown command "secrts" for rulevault \(did you mean "secrets"\?\); commands: api-keys, log, /);
  const nested = await cli(['audit', 'raeds']);
  t.match(nested.stderr, /^error: unknown command "raeds" for rulevault audit \(did you mean "reads"\?\); commands: /);
  const option = await cli(['log', '--limt', '5']);
  t.equal(option.code, 2);
  t.match(option.stderr, /^error: unknown option --limt for rulevault log \(did you mean --limit\?\)\n/);
  const far = await cli(['frobnicate']);
  t.match(far.stderr, /^error: unknown command "frobnicate" for rulevault; commands: /, 'no guess when nothing is close');
});

t.test('the compiled CLI and the package bin print what dispatch does, and exit with its code', async (t) => {
  const compiled = await runCli(['log', '--limt', '5'], {});
  t.same(compiled, await cli(['log', '--limt', '5']), 'the compiled rulevault.js: a usage error, exit 2');
  t.equal(compiled.code, 2);
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(REPO, 'bin', 'rulevault.js'), 'secrets', 'run', '--help']);
  t.equal(stdout, (await cli(['secrets', 'run', '--help'])).stdout, 'the bin: --help, exit 0');
  t.same(JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')).bin, { rulevault: 'bin/rulevault.js' });
});
