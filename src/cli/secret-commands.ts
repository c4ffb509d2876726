/**
 * Secret commands. They work over HTTP against a running service with an API
 * key, because the service holds the data folder (one writer at a time) and
 * is the only place that opens values. A value never travels on the command
 * line: `put` reads it from stdin or a prompt, `run` hands values to the child
 * in its environment, and no message printed here contains one.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { clientSettings } from '../base/config';
import { CliError, columns, commaList, UsageError, commandUsage, type Command, type Group, type Invocation, type Option } from './command';
import { dotenvProblem, ENV_NAME, toDotenv } from './dotenv';

export const SERVICE_OPTIONS: readonly Option[] = [
  { name: 'url', value: '<url>', help: 'the service (default: $RULEVAULT_URL)' },
  { name: 'api-key-file', value: '<file>', help: 'read the API key from this file (default: $RULEVAULT_API_KEY); never pass a key as an argument' },
];

export interface Service {
  readonly url: string;
  readonly apiKey: string;
}

export async function service(options: Invocation['options']): Promise<Service> {
  const settings = clientSettings();
  const url = typeof options.url === 'string' ? options.url : settings.url;
  if (url === undefined) throw new CliError('no RuleVault URL: pass --url or set RULEVAULT_URL');
  let apiKey = settings.apiKey;
  if (typeof options['api-key-file'] === 'string') {
    const file = options['api-key-file'];
    apiKey = (await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read the API key file ${file}: ${error.code ?? error.message}`);
    })).trim();
  }
  if (apiKey === undefined || apiKey === '') throw new CliError('no API key: set RULEVAULT_API_KEY or pass --api-key-file');
  return { url, apiKey };
}

/** A body sent as given (an import's file), rather than as the JSON of a value. */
export interface RawBody {
  readonly raw: Buffer;
  readonly contentType: string;
}

/**
 * One HTTP call; a non-2xx answer becomes a CliError carrying the server's
 * message, status and code. `timeoutMs`: an import of 100k items takes tens of seconds.
 */
export async function call(svc: Service, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<unknown> {
  const raw = body instanceof Object && 'raw' in body ? (body as RawBody) : undefined;
  let response: Response;
  try {
    response = await fetch(new URL(path.replace(/^\//, ''), svc.url.endsWith('/') ? svc.url : svc.url + '/'), {
      method,
      headers: {
        Authorization: `Bearer ${svc.apiKey}`,
        ...(body === undefined ? {} : { 'Content-Type': raw?.contentType ?? 'application/json' }),
      },
      ...(body === undefined ? {} : { body: raw?.raw ?? JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`RuleVault at ${svc.url} is unreachable: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new CliError(`RuleVault answered ${response.status} without a JSON body`, { status: response.status });
  }
  if (!response.ok) {
    const { err, code } = (json ?? {}) as { err?: unknown; code?: unknown };
    throw new CliError(typeof err === 'string' ? err : `RuleVault answered ${response.status}`, {
      status: response.status, ...(typeof code === 'string' ? { code } : {}),
    });
  }
  return json;
}

/** The secrets the key may read (get-secrets), or a CliError with the service's message. */
async function readSecrets(svc: Service, query: { key?: string; tags?: string[] }): Promise<Record<string, string>> {
  const answer = (await call(svc, 'POST', '/api/vault/get-secrets', query)) as { err: string | null; res: Record<string, string> | null };
  if (answer.err !== null || answer.res === null) throw new CliError(answer.err ?? 'unexpected answer from RuleVault');
  return answer.res;
}

interface SecretView {
  readonly id: string;
  readonly key: string;
  readonly tags: string[];
  readonly version: number;
  readonly updated_at?: string;
}

async function listSecrets(svc: Service): Promise<{ secrets: SecretView[] }> {
  return (await call(svc, 'GET', '/api/vault/secrets')) as { secrets: SecretView[] };
}

async function findSecret(svc: Service, key: string): Promise<SecretView | undefined> {
  return (await listSecrets(svc)).secrets.find((s) => s.key === key);
}

const tagsOption: Option = { name: 'tags', value: '<tag,...>', help: 'only secrets carrying at least one of these tags' };

const list: Command = {
  name: 'list',
  summary: 'List the secrets: key, tags, version, never a value (an admin key).',
  options: [...SERVICE_OPTIONS],
  examples: ['RULEVAULT_URL=http://127.0.0.1:3000 RULEVAULT_API_KEY=$ADMIN_KEY rulevault secrets list'],
  async run({ options, out }) {
    const listed = await listSecrets(await service(options));
    out.document(listed);
    out.lines(...columns(['KEY', 'TAGS', 'VERSION', 'UPDATED', 'ID'],
      listed.secrets.map((s) => [s.key, s.tags.join(','), String(s.version), s.updated_at ?? '', s.id])));
  },
};

const get: Command = {
  name: 'get',
  args: '<key>',
  minArgs: 1,
  summary: 'Print a secret\'s value (a key with secrets:read that may read it).',
  details: ['The value is printed as stored, followed by a newline only when stdout is a terminal.'],
  options: [...SERVICE_OPTIONS],
  examples: ['rulevault secrets get OPENAI_API_KEY > openai.key'],
  async run({ args: [key], options, out }) {
    const secrets = await readSecrets(await service(options), { key: key! });
    const value = secrets[key!];
    if (value === undefined) throw new CliError(`no secret ${JSON.stringify(key)} that this API key may read`);
    out.document({ key, value });
    if (!out.json) out.write(process.stdout.isTTY ? value + '\n' : value);
  },
};

const put: Command = {
  name: 'put',
  args: '<key>',
  minArgs: 1,
  tooManyArgs: 'secrets put takes only <key>: the value comes from stdin or a prompt, never from the command line (it would land in shell history and ps)',
  summary: 'Create a secret, or give it a new value (an admin key). The value comes from stdin, or a prompt on a terminal.',
  details: [
    'Never from the command line, where it would land in shell history and in ps. One trailing newline of piped input is dropped (echo adds one).',
  ],
  options: [{ name: 'tags', value: '<tag,...>', help: 'the tags the secret carries (replace its tags when it exists)' }, ...SERVICE_OPTIONS],
  examples: ['printf %s "$OPENAI_KEY" | rulevault secrets put OPENAI_API_KEY --tags llm,prod'],
  async run({ args, options, out }) {
    const key = args[0]!;
    const svc = await service(options);
    const tags = commaList(options.tags);
    const existing = await findSecret(svc, key);
    const value = await readValue(key);
    const answer = existing === undefined
      ? await call(svc, 'POST', '/api/vault/secrets', { key, value, ...(tags ? { tags } : {}) })
      : await call(svc, 'PATCH', `/api/vault/secrets/${encodeURIComponent(existing.id)}`, { value, ...(tags ? { tags } : {}) });
    const secret = answer as SecretView;
    const action = existing === undefined ? 'created' : 'updated';
    out.document({ action, secret });
    out.lines(`${action} ${secret.key} (version ${secret.version})`);
  },
};

/** The value: all of piped stdin minus one trailing newline, or a line typed at a prompt that does not echo it. */
async function readValue(key: string): Promise<string> {
  if (process.stdin.isTTY) return prompt(`value for ${key} (not shown): `);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (value === '') throw new CliError('no value on stdin: pipe the value in (printf %s "$VALUE" | rulevault secrets put KEY)');
  return value;
}

function prompt(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (finish: () => void) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      finish();
    };
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n') return done(() => (value === '' ? reject(new CliError('no value typed')) : resolve(value)));
        if (char === '\u0003' || char === '\u0004') return done(() => reject(new CliError('cancelled')));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

const rm: Command = {
  name: 'rm',
  args: '<key>',
  minArgs: 1,
  summary: 'Delete a secret (an admin key); see docs/vault.md#erasure for what happens to its values.',
  options: [...SERVICE_OPTIONS],
  examples: ['rulevault secrets rm OLD_TOKEN'],
  async run({ args: [key], options, out }) {
    const svc = await service(options);
    const existing = await findSecret(svc, key!);
    if (existing === undefined) throw new CliError(`no secret ${JSON.stringify(key)}`, { status: 404 });
    await call(svc, 'DELETE', `/api/vault/secrets/${encodeURIComponent(existing.id)}`);
    out.document({ removed: key, id: existing.id });
    out.lines(`removed ${key} (id ${existing.id})`);
  },
};

const run: Command = {
  name: 'run',
  rest: '<command> [args...]',
  summary: 'Run a command with the secrets the key may read in its environment (a key with secrets:read).',
  details: [
    'Each secret becomes a variable named by its key, over any of the same name. The values are never printed;',
    'the exit code is the command\'s (128 + the signal number if a signal ended it).',
  ],
  options: [tagsOption, ...SERVICE_OPTIONS],
  examples: ['rulevault secrets run --tags llm -- node app.js'],
  async run({ options, rest }) {
    const secrets = await readSecrets(await service(options), queryOf(options));
    const bad = Object.keys(secrets).filter((key) => !ENV_NAME.test(key));
    if (bad.length > 0) {
      throw new CliError(`not valid environment variable names: ${bad.map((k) => JSON.stringify(k)).join(', ')}; narrow with --tags, or rename the secrets`);
    }
    return runChild(rest[0]!, rest.slice(1), { ...process.env, ...secrets });
  },
};

/**
 * Runs the child with our stdio and resolves with its exit code. TERM and HUP
 * (sent to this process by a supervisor) are passed on. Ctrl-C is not: the
 * terminal sends it to the child too (same process group), and a second
 * SIGINT means "force quit" to many programs; we only wait for the child.
 */
function runChild(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    const signals = ['SIGTERM', 'SIGHUP'] as const;
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    const wait = () => undefined;
    for (const signal of signals) process.on(signal, forward);
    process.on('SIGINT', wait);
    const stop = () => {
      signals.forEach((signal) => process.off(signal, forward));
      process.off('SIGINT', wait);
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      stop();
      reject(new CliError(`cannot run ${JSON.stringify(command)}: ${error.code ?? error.message}`, {}, error.code === 'ENOENT' ? 127 : 126));
    });
    child.once('exit', (code, signal) => {
      stop();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

const exportCommand: Command = {
  name: 'export',
  summary: 'Print the secrets the key may read as a dotenv file or JSON (a key with secrets:read).',
  details: [
    'dotenv: KEY=\'value\' lines in the format node --env-file and the dotenv package read; each value keeps',
    'newlines, quotes, $ and backslashes exactly (docs/cli.md#secrets-over-http). json: {"KEY": "value", ...}.',
  ],
  options: [{ name: 'format', value: '<dotenv|json>', help: 'the output format (default dotenv; --json means json)' }, tagsOption, ...SERVICE_OPTIONS],
  examples: ['rulevault secrets export --tags prod --format dotenv > .env && chmod 600 .env'],
  async run({ options, out }) {
    const format = options.format ?? (out.json ? 'json' : 'dotenv');
    if (format !== 'dotenv' && format !== 'json') {
      throw new UsageError('--format must be dotenv or json', commandUsage(exportCommand, ['rulevault', 'secrets', 'export']));
    }
    if (out.json && format !== 'json') throw new UsageError('--json prints JSON: drop --format dotenv', commandUsage(exportCommand, ['rulevault', 'secrets', 'export']));
    const secrets = await readSecrets(await service(options), queryOf(options));
    if (format === 'json') return void out.write(JSON.stringify(sorted(secrets)) + '\n');
    const problems = Object.entries(secrets).map(([key, value]) => dotenvProblem(key, value)).filter((p) => p !== undefined);
    if (problems.length > 0) throw new CliError(problems.join('; '));
    out.write(toDotenv(secrets));
  },
};

const queryOf = (options: Invocation['options']) => {
  const tags = commaList(options.tags);
  return tags === undefined ? {} : { tags };
};

const sorted = (secrets: Record<string, string>) => Object.fromEntries(Object.keys(secrets).sort().map((k) => [k, secrets[k]!]));

export const secretsGroup: Group = {
  name: 'secrets',
  summary: 'Secrets in a running service, over its HTTP API (RULEVAULT_URL, RULEVAULT_API_KEY).',
  commands: [list, get, put, rm, run, exportCommand],
};
