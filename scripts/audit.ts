/**
 * The auditor's CLI, on the configured store (RULEVAULT_EVENTSTORE, default
 * ./data/events.db). Read-only except `import`, which needs an empty store and
 * takes the data folder's lock while it runs (refused beside a running service).
 *
 *   npm run audit -- history <rule-id>                 NDJSON, one line per revision
 *   npm run audit -- evaluate --as-of <time|position> --body <json | @file>
 *   npm run audit -- replay                            digest of a full replay
 *   npm run audit -- export --out <file.ndjson>        the whole log, secrets sealed
 *   npm run audit -- import --in <file.ndjson>         into an empty store; positions renumbered
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { digestState } from '../src/audit/digest';
import { exportLine, importLog, readWholeLog, replayLog } from '../src/audit/log-transfer';
import { createAuditService } from '../src/audit/service';
import { loadConfig, type Config } from '../src/config';
import { isPlainObject } from '../src/domain/input';
import { createReadModel } from '../src/read-model';
import { createQueries } from '../src/service/queries';
import { openStore } from '../src/store/open-store';
import type { EventStore } from '../src/store/port';
import { lockForWrite, warnAboutUnknownVariables } from './writer-lock';

const USAGE = `usage:
  audit history <rule-id>
  audit evaluate --as-of <ISO time | position> --body <json | @file>
  audit replay
  audit export --out <file.ndjson>
  audit import --in <file.ndjson>        (the store must be empty)`;

class UsageError extends Error {}

async function run(argv: string[], out: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'as-of': { type: 'string' },
      body: { type: 'string' },
      out: { type: 'string' },
      in: { type: 'string' },
    },
  });
  const [command, arg] = positionals;
  const config = loadConfig();
  warnAboutUnknownVariables(config, (line) => process.stderr.write(line + '\n'));
  await runOnStore(config, command, arg, values, out);
}

interface Options {
  readonly 'as-of'?: string;
  readonly body?: string;
  readonly out?: string;
  readonly in?: string;
}

async function runOnStore(config: Config, command: string | undefined, arg: string | undefined, values: Options, out: (line: string) => void): Promise<void> {
  const store = await openStore(config.eventStore);
  try {
    switch (command) {
      case 'history': {
        if (arg === undefined) throw new UsageError();
        const history = await createQueries(store, createReadModel(), config.limits).ruleHistory(arg);
        for (const event of history.events) out(JSON.stringify(event));
        return;
      }
      case 'evaluate':
        if (values['as-of'] === undefined || values.body === undefined) throw new UsageError();
        return out(JSON.stringify(await evaluateAsOf(config, store, values['as-of'], values.body)));
      case 'replay': {
        const { state, events } = await replayLog(store);
        return out(JSON.stringify({ ...digestState(state), events }));
      }
      case 'export':
        if (values.out === undefined) throw new UsageError();
        return out(JSON.stringify(await exportTo(store, values.out)));
      case 'import': {
        if (values.in === undefined) throw new UsageError();
        // A store that is not empty is refused first (importLog's own check): stopping a service would not help it.
        if ((await store.headPosition()) !== undefined) return out(JSON.stringify(await importLog(store, noLines())));
        const lock = lockForWrite(config, 'audit import', () =>
          'import into a data folder and store that no service uses (RULEVAULT_DATA_DIR, RULEVAULT_EVENTSTORE), or stop the service first.');
        try {
          const lines = createInterface({ input: createReadStream(values.in), crlfDelay: Infinity });
          return out(JSON.stringify(await importLog(store, lines)));
        } finally {
          lock.release();
        }
      }
      default:
        throw new UsageError();
    }
  } finally {
    await store.close();
  }
}

async function evaluateAsOf(config: Config, store: EventStore, asOf: string, bodyArg: string) {
  const text = bodyArg.startsWith('@') ? await readFile(bodyArg.slice(1), 'utf8') : bodyArg;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error('--body is not valid JSON');
  }
  if (!isPlainObject(body)) throw new Error('--body must be a JSON object (an evaluate request)');
  const audit = createAuditService({ store, readModel: createReadModel(), limits: config.limits });
  return audit.evaluateAsOf({ ...body, as_of: asOf });
}

async function* noLines(): AsyncIterable<string> {}

/** Writes the log as NDJSON, honouring back-pressure. */
async function exportTo(store: EventStore, file: string): Promise<{ events: number; file: string }> {
  const stream = createWriteStream(file, { encoding: 'utf8' });
  let events = 0;
  try {
    for await (const event of readWholeLog(store)) {
      events += 1;
      if (!stream.write(exportLine(event) + '\n')) await once(stream, 'drain');
    }
  } finally {
    stream.end();
    await once(stream, 'close');
  }
  return { events, file };
}

if (require.main === module) {
  run(process.argv.slice(2), (line) => process.stdout.write(line + '\n')).catch((error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(USAGE + '\n');
    else process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof UsageError ? 64 : 1);
  });
}

export { run };
