/**
 * The operator's commands on the configured store (RULEVAULT_EVENTSTORE,
 * default ./data/events.db), with the same commands the service runs.
 * Reading commands (api-keys list, log) run beside a running service. Writing
 * ones (api-keys create and revoke, rotate-master-key) take the data folder's
 * lock (src/base/data-lock.ts) and are refused while a service holds it, with the
 * admin API call that does the same (docs/cli.md#on-the-store).
 */
import { randomUUID } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { loadConfig, type Config } from '../base/config';
import { followLog } from '../read-model/follow';
import { createApiKeyCommands } from '../service/api-key-commands';
import { createCommandBus } from '../service/command-bus';
import { createQueries } from '../service/queries';
import { rotateMasterKey } from '../service/rotation';
import { loadMasterKey, loadNextMasterKey } from '../vault/master-key';
import { createSealer } from '../vault/seal';
import { openStore } from '../store/open-store';
import { LOG_PAGE_BYTES, parseJsonPosition, toJsonPosition, type EventStore } from '../store/port';
import type { ReadModel } from '../read-model/read-model';
import { lockForWrite, warnAboutUnknownVariables, type Advice } from './writer-lock';
import { columns, commaList, CliError, type Command, type Group, type Output } from './command';

/** The configuration, with unknown RULEVAULT_* variables reported as the service reports them. */
export function storeConfig(out: Output): Config {
  const config = loadConfig();
  warnAboutUnknownVariables(config, (line) => out.warn(line.replace(/^warning: /, '')));
  return config;
}

/** Opens the store, runs `work`, closes it. */
export async function onStore<T>(config: Config, work: (store: EventStore) => Promise<T>): Promise<T> {
  const store = await openStore(config.eventStore, undefined, { groupCommit: config.groupCommit });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Follows the log to its head, runs `work` with the read model and a command bus, and stops following. */
async function withCommands<T>(store: EventStore, work: (readModel: ReadModel, bus: ReturnType<typeof createCommandBus>) => Promise<T>): Promise<T> {
  const followed = await followLog(store);
  try {
    return await work(followed.readModel, createCommandBus(store, followed.readModel, { now: () => new Date(), newId: randomUUID }));
  } finally {
    await followed.close();
  }
}

const actor = () => ({ id: 'cli', requestId: randomUUID() });

/** The admin API call that does what a refused writing command would have done. */
const adminApi = (call: string): Advice => (url) =>
  `stop the service first, or make the same change through its admin API (an admin key in $ADMIN_KEY):\n  curl ${call.replace('<url>', url)} -H "Authorization: Bearer $ADMIN_KEY"`;

/** Runs a writing command under the data folder's lock. */
export async function writing<T>(config: Config, command: string, advice: Advice, work: () => Promise<T>): Promise<T> {
  const lock = lockForWrite(config, command, advice);
  try {
    return await work();
  } finally {
    lock.release();
  }
}

const apiKeysCreate: Command = {
  name: 'create',
  summary: 'Create an API key on the store (the service must be stopped); the key is shown only here.',
  options: [
    { name: 'name', value: '<name>', help: 'a name for the key (required)' },
    { name: 'scopes', value: '<scope,...>', help: 'evaluate, secrets:read, explain, admin (required)' },
    { name: 'secret-tags', value: '<tag,...>', help: 'the key reads only secrets carrying one of these tags' },
  ],
  examples: ['rulevault api-keys create --name ci --scopes evaluate,secrets:read --secret-tags prod'],
  async run({ options, out }) {
    const input = { name: options.name, scopes: commaList(options.scopes), secret_tags: commaList(options['secret-tags']) };
    const config = storeConfig(out);
    const body = JSON.stringify(input).replace(/'/g, `'\\''`);
    const created = await writing(config, 'api-keys create', adminApi(`-X POST <url>/api/api-keys -d '${body}'`), () =>
      onStore(config, (store) => withCommands(store, (readModel, bus) =>
        createApiKeyCommands({ bus, readModel, runtime: { now: () => new Date(), newId: randomUUID } })
          .createApiKey({ ...input, secret_tags: input.secret_tags ?? [] }, actor()))));
    out.document(created);
    out.lines(
      `created API key "${created.name}" (id ${created.id}), scopes ${created.scopes.join(', ')}`,
      '',
      `  ${created.key}`,
      '',
      'It is shown only this once: store it now.',
    );
  },
};

const apiKeysList: Command = {
  name: 'list',
  summary: 'List the API keys (never the keys themselves); runs beside a running service.',
  options: [],
  examples: ['rulevault api-keys list --json'],
  async run({ out }) {
    const config = storeConfig(out);
    const listed = await onStore(config, (store) => withCommands(store, async (readModel) => createQueries(store, readModel, config.limits).listApiKeys()));
    out.document(listed);
    out.lines(...columns(['ID', 'NAME', 'SCOPES', 'SECRET TAGS', 'CREATED'],
      listed.api_keys.map((k) => [k.id, k.name, k.scopes.join(','), k.secret_tags.join(','), k.created_at])));
  },
};

const apiKeysRevoke: Command = {
  name: 'revoke',
  args: '<id>',
  minArgs: 1,
  summary: 'Revoke an API key on the store (the service must be stopped).',
  options: [],
  examples: ['rulevault api-keys revoke 0b6f1c9e-2f4d-4b53-9a55-3c1f3c0f6d21'],
  async run({ args: [id], out }) {
    const config = storeConfig(out);
    await writing(config, 'api-keys revoke', adminApi(`-X DELETE <url>/api/api-keys/${id}`), () =>
      onStore(config, (store) => withCommands(store, (readModel, bus) =>
        createApiKeyCommands({ bus, readModel, runtime: { now: () => new Date(), newId: randomUUID } }).revokeApiKey(id!, actor()))));
    out.document({ revoked: id });
    out.lines(`revoked ${id}`);
  },
};

const log: Command = {
  name: 'log',
  summary: 'Print the event log in position order; secret values appear only sealed. Runs beside a running service.',
  details: ['For people: one line per event (position, time, actor, type, stream). With --json: {"events": [...]}, each event whole.'],
  options: [
    { name: 'after', value: '<position>', help: 'start after this log position' },
    { name: 'limit', value: '<n>', help: 'print at most n events' },
  ],
  examples: ['rulevault log --after 1200 --limit 50'],
  async run({ options, out }) {
    const afterText = options.after as string | undefined;
    const after = afterText === undefined ? undefined : parseJsonPosition(afterText);
    if (afterText !== undefined && after === undefined) throw new CliError('--after must be a log position (a whole number)');
    const limit = options.limit === undefined ? Infinity : Number(options.limit);
    if (!(limit > 0) || (limit !== Infinity && !Number.isInteger(limit))) throw new CliError('--limit must be a positive whole number');
    const config = storeConfig(out);
    if (out.json) out.write('{"events":[');
    let first = true;
    await onStore(config, async (store) => {
      for await (const event of readLog(store, after, limit)) {
        const view = { ...event, position: toJsonPosition(event.position), revision: toJsonPosition(event.revision) };
        if (out.json) out.write((first ? '\n' : ',\n') + JSON.stringify(view));
        first = false;
        out.lines(`${view.position}  ${event.metadata.at ?? ''}  ${event.metadata.actor ?? ''}  ${event.type}  ${event.stream}`);
      }
    });
    if (out.json) out.write('\n]}\n');
  },
};

/** The log page by page, at most `limit` events. */
async function* readLog(store: EventStore, after: bigint | undefined, limit: number) {
  let remaining = limit;
  while (remaining > 0) {
    const page = await store.readAll({ after, limit: Math.min(1000, remaining), maxDataBytes: LOG_PAGE_BYTES });
    if (page.length === 0) return;
    yield* page;
    remaining -= page.length;
    after = page[page.length - 1]!.position;
  }
}

const rotate: Command = {
  name: 'rotate-master-key',
  summary: 'Re-wrap every secret\'s data key under a new master key; only with the service stopped (see docs/vault.md#master-key-rotation).',
  details: [
    'With RULEVAULT_MASTER_KEY, the new key comes from RULEVAULT_NEW_MASTER_KEY and you swap the variables afterwards.',
    'With the key file, a new key is written to master.key.next first (an interrupted run resumes with it) and replaces master.key at the end.',
  ],
  options: [],
  examples: ['RULEVAULT_NEW_MASTER_KEY=$(openssl rand -base64 32) rulevault rotate-master-key'],
  async run({ out }) {
    const config = storeConfig(out);
    const advice: Advice = () => 'stop the service first (every node that uses this store), then run the rotation; see docs/vault.md#master-key-rotation.';
    const result = await writing(config, 'rotate-master-key', advice, () => onStore(config, (store) => rotateOn(config, store)));
    out.document(result.outcome);
    out.lines(
      `re-wrapped under master key ${result.outcome.to_master_key_id} (was ${result.outcome.from_master_key_id})`,
      result.fromEnv
        ? 'Now set RULEVAULT_MASTER_KEY to the new key, restart the service, and destroy the old key.'
        : `The new key replaced ${result.keyFile}; the old key is retired. Back up the new file, then start the service.`,
    );
  },
};

async function rotateOn(config: Config, store: EventStore) {
  const current = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir });
  if (current.source === 'env' && config.newMasterKey === undefined) throw new CliError('set RULEVAULT_NEW_MASTER_KEY to the new key (base64 of 32 bytes)');
  // With the key file, the next key is master.key.next (created, or kept from an interrupted run); RULEVAULT_NEW_MASTER_KEY is for the variable only.
  const next = await loadNextMasterKey({ newEnvValue: current.source === 'env' ? config.newMasterKey : undefined, dataDir: config.dataDir });
  const from = await createSealer(current.key);
  const to = await createSealer(next.key);
  try {
    const result = await withCommands(store, (readModel, bus) => rotateMasterKey(bus, readModel, from, to, actor()));
    if (current.source !== 'env') await rename(next.path!, current.path!);
    return {
      outcome: { from_master_key_id: from.masterKeyId, to_master_key_id: to.masterKeyId, ...result },
      fromEnv: current.source === 'env',
      keyFile: current.path,
    };
  } finally {
    from.dispose();
    to.dispose();
  }
}

export const apiKeysGroup: Group = {
  name: 'api-keys',
  summary: 'Create, list and revoke API keys on the store.',
  commands: [apiKeysCreate, apiKeysList, apiKeysRevoke],
};

export const storeCommands = [apiKeysGroup, log, rotate] as const;
