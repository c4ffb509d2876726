/**
 * Black-box: `rulevault secrets ...` (the compiled CLI as a child process)
 * against a real node over HTTP. Values go in on stdin and come out only
 * where asked (get, run's child, export); never in argv or an error.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseEnv } from 'node:util';
import t from 'tap';
import { childEnv, CLI_SCRIPT, exited, freePort, runCli, type ScriptRun } from '../support/process';
import { withNode } from '../support/with-node';

const VALUES = {
  DB_PASSWORD: 'hunter2-db-plaintext',
  MULTILINE: '-----BEGIN KEY-----\nline "two" $HOME\n-----END KEY-----',
  QUOTES: `it's "quoted" $(id) \${PATH} back\\slash`,
};

t.test('secrets list, put, get, run, export and rm over HTTP', async (t) => {
  const live = withNode(t);
  const runs: ScriptRun[] = [];
  let admin: Record<string, string> = {};
  let reader: Record<string, string> = {};
  const cli = async (args: string[], env: Record<string, string>, input?: string) => {
    const run = await runCli(args, env, input);
    runs.push(run);
    return run;
  };
  t.before(async () => {
    admin = { RULEVAULT_URL: live.url, RULEVAULT_API_KEY: live.node.adminKey };
    const key = (await live.admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] })).json.key as string;
    reader = { RULEVAULT_URL: live.url, RULEVAULT_API_KEY: key };
  });

  t.test('put reads the value from stdin; list shows metadata only', async (t) => {
    const created = await cli(['secrets', 'put', 'DB_PASSWORD', '--tags', 'prod,db'], admin, 'first-value\n');
    t.equal(created.code, 0, created.stderr);
    t.match(created.stdout, /^created DB_PASSWORD \(version 1\)$/m);
    const updated = await cli(['secrets', 'put', 'DB_PASSWORD', '--json'], admin, VALUES.DB_PASSWORD + '\n');
    t.equal(updated.code, 0, updated.stderr);
    t.match(JSON.parse(updated.stdout), { action: 'updated', secret: { key: 'DB_PASSWORD', version: 2, tags: ['prod', 'db'] } }, 'a second put is a new version; tags kept');
    for (const key of ['MULTILINE', 'QUOTES'] as const) {
      const put = await cli(['secrets', 'put', key, '--tags', 'files'], admin, VALUES[key]);
      t.equal(put.code, 0, put.stderr);
    }
    const listed = await cli(['secrets', 'list'], admin);
    t.equal(listed.code, 0, listed.stderr);
    t.match(listed.stdout, /^KEY +TAGS +VERSION +UPDATED +ID$/m);
    t.match(listed.stdout, /^DB_PASSWORD +prod,db +2 /m);
    const json = await cli(['secrets', 'list', '--json'], admin);
    t.same(JSON.parse(json.stdout).secrets.map((s: { key: string }) => s.key).sort(), ['DB_PASSWORD', 'MULTILINE', 'QUOTES']);
    for (const value of Object.values(VALUES)) t.notOk(listed.stdout.includes(value) || json.stdout.includes(value), 'no value in a listing');
    const asReader = await cli(['secrets', 'list'], reader);
    t.equal(asReader.code, 1);
    t.match(asReader.stderr, /^error: .*admin/m, 'listing needs admin: the service says so');
  });

  t.test('get prints exactly the value', async (t) => {
    const got = await cli(['secrets', 'get', 'MULTILINE'], reader);
    t.equal(got.code, 0, got.stderr);
    t.equal(got.stdout, VALUES.MULTILINE, 'as stored, no newline added on a pipe');
    const json = await cli(['secrets', 'get', 'QUOTES', '--json'], reader);
    t.same(JSON.parse(json.stdout), { key: 'QUOTES', value: VALUES.QUOTES });
    const missing = await cli(['secrets', 'get', 'NOPE'], reader);
    t.equal(missing.code, 1);
    t.equal(missing.stderr, 'error: no secret "NOPE" that this API key may read\n');
    const jsonError = await cli(['secrets', 'get', 'NOPE', '--json'], reader);
    t.equal(jsonError.code, 1);
    t.equal(jsonError.stdout, '');
    t.same(JSON.parse(jsonError.stderr), { error: { kind: 'failed', message: 'no secret "NOPE" that this API key may read' } });
  });

  t.test('run gives the child the secrets in its environment and passes its exit code through', async (t) => {
    // The child prints its variables and the command line of its parent (the CLI): no value may be there.
    const script = `const fs = require('fs');
      process.stdout.write(JSON.stringify({ env: { DB_PASSWORD: process.env.DB_PASSWORD, MULTILINE: process.env.MULTILINE, QUOTES: process.env.QUOTES },
        parentArgv: fs.readFileSync('/proc/' + process.ppid + '/cmdline', 'utf8') }));
      process.exit(7);`;
    const ran = await cli(['secrets', 'run', '--', process.execPath, '-e', script], reader);
    t.equal(ran.code, 7, `the child's exit code (${ran.stderr})`);
    const seen = JSON.parse(ran.stdout);
    t.same(seen.env, VALUES);
    t.match(seen.parentArgv, /secrets\0run/, 'the parent is the CLI');
    for (const value of Object.values(VALUES)) t.notOk(seen.parentArgv.includes(value), 'no value in the CLI\'s argv');
    const tagged = await cli(['secrets', 'run', '--tags', 'prod', '--', process.execPath, '-e', 'process.stdout.write(JSON.stringify([process.env.DB_PASSWORD ?? null, process.env.MULTILINE ?? null]))'], reader);
    t.same(JSON.parse(tagged.stdout), [VALUES.DB_PASSWORD, null], '--tags narrows what the child gets');
    const signalled = await cli(['secrets', 'run', '--', 'sh', '-c', 'kill -TERM $$'], reader);
    t.equal(signalled.code, 128 + 15, 'a signal becomes 128 + its number');
    // A supervisor's SIGTERM to the CLI reaches the child, whose exit code comes back.
    const supervised = spawn(process.execPath, [CLI_SCRIPT, 'secrets', 'run', '--', 'sh', '-c', 'trap "exit 42" TERM; echo started; while :; do sleep 0.1; done'], {
      env: childEnv(reader),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await once(supervised.stdout, 'data');
    supervised.kill('SIGTERM');
    t.equal(await exited(supervised), 42, 'SIGTERM is passed on to the child');
    const missing = await cli(['secrets', 'run', '--', 'no-such-command-rulevault'], reader);
    t.equal(missing.code, 127);
    t.match(missing.stderr, /cannot run "no-such-command-rulevault": ENOENT/);
    const noCommand = await cli(['secrets', 'run'], reader);
    t.equal(noCommand.code, 2);
    t.match(noCommand.stderr, /missing <command> \[args\.\.\.\]/);
  });

  t.test('export: dotenv that Node reads back unchanged, and JSON', async (t) => {
    const dotenv = await cli(['secrets', 'export', '--format', 'dotenv'], reader);
    t.equal(dotenv.code, 0, dotenv.stderr);
    t.same({ ...parseEnv(dotenv.stdout) }, VALUES, 'newlines, quotes and $ survive the round trip');
    t.match(dotenv.stdout, /^MULTILINE='-----BEGIN KEY-----$/m);
    const json = await cli(['secrets', 'export', '--json'], reader);
    t.same(JSON.parse(json.stdout), VALUES);
    const explicit = await cli(['secrets', 'export', '--format', 'json', '--tags', 'db'], reader);
    t.same(JSON.parse(explicit.stdout), { DB_PASSWORD: VALUES.DB_PASSWORD });
    const badFormat = await cli(['secrets', 'export', '--format', 'yaml'], reader);
    t.equal(badFormat.code, 2);
    t.match(badFormat.stderr, /--format must be dotenv or json/);
  });

  t.test('rm deletes by key', async (t) => {
    const removed = await cli(['secrets', 'rm', 'QUOTES', '--json'], admin);
    t.equal(removed.code, 0, removed.stderr);
    t.match(JSON.parse(removed.stdout), { removed: 'QUOTES' });
    const again = await cli(['secrets', 'rm', 'QUOTES'], admin);
    t.equal(again.code, 1);
    t.equal(again.stderr, 'error: no secret "QUOTES"\n');
    t.equal((await cli(['secrets', 'get', 'QUOTES'], reader)).code, 1, 'gone for readers');
  });

  t.test('a value on the command line is refused, and never echoed', async (t) => {
    const refused = await cli(['secrets', 'put', 'TOKEN', 'argv-plaintext-value'], admin);
    t.equal(refused.code, 2);
    t.match(refused.stderr, /the value comes from stdin or a prompt, never from the command line/);
    t.notOk(refused.stderr.includes('argv-plaintext-value'));
    const inline = await cli(['secrets', 'put', 'TOKEN', '--value=argv-plaintext-value'], admin);
    t.equal(inline.code, 2);
    t.equal(inline.stderr.split('\n')[0], 'error: unknown option --value for rulevault secrets put');
    const empty = await cli(['secrets', 'put', 'TOKEN'], admin);
    t.equal(empty.code, 1);
    t.match(empty.stderr, /no value on stdin/);
    t.equal((await live.admin.get('/api/vault/secrets')).json.secrets.some((s: { key: string }) => s.key === 'TOKEN'), false, 'nothing stored');
  });

  t.test('where the service is and who calls it', async (t) => {
    const noUrl = await cli(['secrets', 'list'], { RULEVAULT_URL: '', RULEVAULT_API_KEY: 'x' });
    t.equal(noUrl.code, 1);
    t.equal(noUrl.stderr, 'error: no RuleVault URL: pass --url or set RULEVAULT_URL\n');
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await cli(['secrets', 'list', '--url', closed], admin);
    t.equal(unreachable.code, 1);
    t.equal(unreachable.stderr, `error: RuleVault at ${closed} is unreachable: ECONNREFUSED\n`);
    const badKey = await cli(['secrets', 'get', 'DB_PASSWORD'], { ...reader, RULEVAULT_API_KEY: 'rv_not-a-key' });
    t.equal(badKey.code, 1);
    t.match(badKey.stderr, /^error: .*invalid/i);
    const viaFlags = await cli(['secrets', 'get', 'DB_PASSWORD', '--url', live.url, '--api-key-file', '/no/such/file'], {});
    t.equal(viaFlags.code, 1);
    t.match(viaFlags.stderr, /cannot read the API key file \/no\/such\/file: ENOENT/);
  });

  t.test('no run printed a value in an error', async (t) => {
    const errors = runs.map((run) => run.stderr).join('\n');
    for (const value of [...Object.values(VALUES), 'first-value', 'argv-plaintext-value']) t.notOk(errors.includes(value), 'stderr is clean');
  });
});
