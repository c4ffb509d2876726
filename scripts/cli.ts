/**
 * The operator's CLI, working on the configured store (RULEVAULT_EVENTSTORE,
 * default ./data/events.db) with the same commands the service runs:
 *
 *   npm run cli -- api-keys create --name ci --scopes evaluate,secrets:read [--secret-tags prod]
 *   npm run cli -- api-keys list
 *   npm run cli -- api-keys revoke <id>
 *   npm run cli -- log [--after <position>] [--limit <n>]
 *   npm run cli -- rotate-master-key
 *
 * Reading commands (api-keys list, log) run beside a running service. Writing
 * ones (api-keys create and revoke, rotate-master-key) take the data folder's
 * lock (src/data-lock.ts) and are refused while a service holds it, with the
 * admin API call that does the same (README "Operator CLI").
 */
import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../src/config';
import { followLog } from '../src/follow';
import { createApiKeyCommands } from '../src/service/api-key-commands';
import { createCommandBus } from '../src/service/command-bus';
import { createQueries } from '../src/service/queries';
import { rotateMasterKey } from '../src/service/rotation';
import { generateMasterKey, loadMasterKey, MASTER_KEY_FILE } from '../src/vault/master-key';
import { createSealer } from '../src/vault/seal';
import { openStore } from '../src/store/open-store';
import { parseJsonPosition, toJsonPosition, type EventStore } from '../src/store/port';
import { AppError } from '../src/errors';
import { lockForWrite, warnAboutUnknownVariables, type Advice } from './writer-lock';

const USAGE = `usage:
  cli api-keys create --name <name> --scopes <scope,...> [--secret-tags <tag,...>]
  cli api-keys list
  cli api-keys revoke <id>
  cli log [--after <position>] [--limit <n>]
  cli rotate-master-key      (stop the service first; see README "Master key rotation")
api-keys create/revoke and rotate-master-key write: they refuse while a service uses the data folder.`;

const list = (text: string | undefined) => (text === undefined ? undefined : text.split(',').map((s) => s.trim()).filter(Boolean));

async function run(argv: string[], out: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      'secret-tags': { type: 'string' },
      after: { type: 'string' },
      limit: { type: 'string' },
    },
  });
  const [group, command, arg] = positionals;
  const config = loadConfig();
  warnAboutUnknownVariables(config, (line) => process.stderr.write(line + '\n'));
  const advice = writerAdvice(group, command, arg, values);
  const lock = advice === undefined ? undefined : lockForWrite(config, [group, command].filter(Boolean).join(' '), advice);
  try {
    await runOnStore(config, group, command, arg, values, out);
  } finally {
    lock?.release();
  }
}

interface Options {
  readonly name?: string;
  readonly scopes?: string;
  readonly 'secret-tags'?: string;
  readonly after?: string;
  readonly limit?: string;
}

/** For a command that writes, what to do instead while a service runs; undefined for a reading command. */
function writerAdvice(group: string | undefined, command: string | undefined, arg: string | undefined, values: Options): Advice | undefined {
  const api = (call: string) => (url: string) =>
    `stop the service first, or make the same change through its admin API (an admin key in $ADMIN_KEY):\n  curl ${call.replace('<url>', url)} -H "Authorization: Bearer $ADMIN_KEY"`;
  if (group === 'rotate-master-key') {
    return () => 'stop the service first (every node that uses this store), then run the rotation; see README "Master key rotation".';
  }
  if (group !== 'api-keys') return undefined;
  if (command === 'create') {
    const body = JSON.stringify({ name: values.name, scopes: list(values.scopes), secret_tags: list(values['secret-tags']) }).replace(/'/g, `'\\''`);
    return api(`-X POST <url>/api/api-keys -d '${body}'`);
  }
  if (command === 'revoke') return api(`-X DELETE <url>/api/api-keys/${arg ?? '<id>'}`);
  return undefined;
}

async function runOnStore(config: Config, group: string | undefined, command: string | undefined, arg: string | undefined, values: Options, out: (line: string) => void): Promise<void> {
  const store = await openStore(config.eventStore);
  try {
    if (group === 'log') return await printLog(store, values.after, values.limit, out);
    if (group === 'rotate-master-key') return await rotate(config, store, out);
    if (group !== 'api-keys') throw new UsageError();
    const followed = await followLog(store);
    try {
      const runtime = { now: () => new Date(), newId: randomUUID };
      const bus = createCommandBus(store, followed.readModel, runtime);
      const apiKeys = createApiKeyCommands({ bus, readModel: followed.readModel, runtime });
      const actor = { id: 'cli', requestId: randomUUID() };
      switch (command) {
        case 'create': {
          const created = await apiKeys.createApiKey(
            { name: values.name, scopes: list(values.scopes), secret_tags: list(values['secret-tags']) ?? [] },
            actor,
          );
          out(JSON.stringify(created));
          return;
        }
        case 'list':
          for (const key of createQueries(store, followed.readModel, config.limits).listApiKeys().api_keys) out(JSON.stringify(key));
          return;
        case 'revoke':
          if (arg === undefined) throw new UsageError();
          await apiKeys.revokeApiKey(arg, actor);
          out(`revoked ${arg}`);
          return;
        default:
          throw new UsageError();
      }
    } finally {
      await followed.close();
    }
  } finally {
    await store.close();
  }
}

/**
 * Rotates the master key. With RULEVAULT_MASTER_KEY, the new key comes from
 * RULEVAULT_NEW_MASTER_KEY and the operator swaps the variables afterwards.
 * With the key file, a new key is written to master.key.next first (so an
 * interrupted run resumes with the same key) and replaces master.key at the end.
 */
async function rotate(config: Config, store: EventStore, out: (line: string) => void): Promise<void> {
  const current = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir });
  const nextPath = path.join(config.dataDir, `${MASTER_KEY_FILE}.next`);
  let nextText: string;
  if (current.source === 'env') {
    if (config.newMasterKey === undefined) throw new Error('set RULEVAULT_NEW_MASTER_KEY to the new key (base64 of 32 bytes)');
    nextText = config.newMasterKey;
  } else {
    nextText = await readFile(nextPath, 'utf8').catch(async () => {
      const generated = await generateMasterKey();
      await writeFile(nextPath, generated + '\n', { mode: 0o600, flag: 'wx' });
      return generated;
    });
  }
  const from = await createSealer(current.key);
  const to = await createSealer((await loadMasterKey({ envValue: nextText, dataDir: config.dataDir })).key);
  const followed = await followLog(store);
  try {
    const runtime = { now: () => new Date(), newId: randomUUID };
    const bus = createCommandBus(store, followed.readModel, runtime);
    const result = await rotateMasterKey(bus, followed.readModel, from, to, { id: 'cli', requestId: randomUUID() });
    if (current.source !== 'env') await rename(nextPath, current.path!);
    out(JSON.stringify({ from_master_key_id: from.masterKeyId, to_master_key_id: to.masterKeyId, ...result }));
    out(current.source === 'env'
      ? 'Now set RULEVAULT_MASTER_KEY to the new key, restart the service, and destroy the old key.'
      : `The new key replaced ${current.path}; the old key is retired. Back up the new file, then start the service.`);
  } finally {
    await followed.close();
    from.dispose();
    to.dispose();
  }
}

/** Prints the log as NDJSON, page by page; secret values appear only sealed. */
async function printLog(store: EventStore, afterText: string | undefined, limitText: string | undefined, out: (line: string) => void) {
  let after = afterText === undefined ? undefined : parseJsonPosition(afterText);
  if (afterText !== undefined && after === undefined) throw new Error('--after must be a log position (a whole number)');
  let remaining = limitText === undefined ? Infinity : Number(limitText);
  if (!(remaining > 0)) throw new Error('--limit must be a positive whole number');
  while (remaining > 0) {
    const page = await store.readAll({ after, limit: Math.min(1000, remaining) });
    if (page.length === 0) return;
    for (const event of page) {
      out(JSON.stringify({ ...event, position: toJsonPosition(event.position), revision: toJsonPosition(event.revision) }));
    }
    remaining -= page.length;
    after = page[page.length - 1]!.position;
  }
}

class UsageError extends Error {}

if (require.main === module) {
  run(process.argv.slice(2), (line) => process.stdout.write(line + '\n')).catch((error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(USAGE + '\n');
    else if (error instanceof AppError || error instanceof Error) process.stderr.write(`error: ${error.message}\n`);
    process.exit(error instanceof UsageError ? 64 : 1);
  });
}

export { run };
