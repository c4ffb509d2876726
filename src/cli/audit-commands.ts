/**
 * The auditor's commands, on the configured store (RULEVAULT_EVENTSTORE,
 * default ./data/events.db). Read-only except `import`, which needs an empty
 * store and takes the data folder's lock while it runs (refused beside a
 * running service).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { digestState } from '../audit/digest';
import { exportLine, importLog, readWholeLog, replayLog } from '../audit/log-transfer';
import { createAuditService } from '../audit/service';
import { CLI_TIME_TRAVEL } from './audit-process';
import type { Config } from '../base/config';
import { isPlainObject } from '../domain/input';
import { createReadModel } from '../read-model/read-model';
import { createQueries } from '../service/queries';
import type { EventStore } from '../store/port';
import { lockForWrite } from './writer-lock';
import { chainCommands } from './chain-commands';
import { CliError, type Command, type Group } from './command';
import { decisionCommands } from './decision-commands';
import { evidenceCommands } from './evidence-commands';
import { onStore, storeConfig } from './store-commands';

const history: Command = {
  name: 'history',
  args: '<rule-id>',
  minArgs: 1,
  summary: 'Every revision of a rule, with actor, time, position and what changed.',
  options: [],
  examples: ['rulevault audit history 5d0c2f9a-8a57-4d7e-9a8e-2b1c7f3e9d10 --json'],
  async run({ args: [id], out }) {
    const config = storeConfig(out);
    const answer = await onStore(config, (store) => createQueries(store, createReadModel(), config.limits).ruleHistory(id!));
    out.document(answer);
    for (const event of answer.events) {
      out.lines(`revision ${event.revision}  position ${event.position}  ${event.at}  ${event.actor}  ${event.type}`);
      for (const [member, change] of Object.entries(event.changes)) {
        out.lines(`  ${member}: ${JSON.stringify(change)}`);
      }
    }
  },
};

const evaluate: Command = {
  name: 'evaluate',
  summary: 'What evaluate answered at a past point of the log.',
  options: [
    { name: 'as-of', value: '<ISO time | position>', help: 'the point in time or log position (required)' },
    { name: 'body', value: '<json | @file>', help: 'the evaluate request, inline or from a file (required)' },
  ],
  examples: [`rulevault audit evaluate --as-of 2026-01-31T12:00:00Z --body '{"entity_type":"context","fields":{"user.tier":"gold"}}'`],
  async run({ options, out }) {
    const asOf = options['as-of'];
    const bodyArg = options.body;
    if (typeof asOf !== 'string' || typeof bodyArg !== 'string') throw new CliError('--as-of and --body are required');
    const text = bodyArg.startsWith('@') ? await readFile(bodyArg.slice(1), 'utf8') : bodyArg;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CliError('--body is not valid JSON');
    }
    if (!isPlainObject(body)) throw new CliError('--body must be a JSON object (an evaluate request)');
    const config = storeConfig(out);
    const answer = await onStore(config, (store) =>
      createAuditService({ store, readModel: createReadModel(), limits: config.limits, clock: Date.now, timeTravel: CLI_TIME_TRAVEL }).evaluateAsOf({ ...body, as_of: asOf }));
    out.document(answer);
    out.lines(JSON.stringify(answer, null, 2));
  },
};

const replay: Command = {
  name: 'replay',
  summary: 'Replay the whole log and print the digest of the read models (the same as GET /api/audit/digest).',
  options: [],
  examples: ['rulevault audit replay'],
  async run({ out }) {
    const config = storeConfig(out);
    const { state, events } = await onStore(config, replayLog);
    const digest = { ...digestState(state), events };
    out.document(digest);
    const rows: [string, unknown][] = [['sha256', digest.sha256], ['position', digest.position], ['events', events], ...Object.entries(digest.counts)];
    const width = Math.max(...rows.map(([name]) => name.length));
    out.lines(...rows.map(([name, value]) => `${name.padEnd(width)}  ${String(value)}`));
  },
};

const exportCommand: Command = {
  name: 'export',
  summary: 'Write the whole log to a file or to stdout, one event per line; secrets stay sealed.',
  options: [{ name: 'out', value: '<file.ndjson | ->', help: 'the file to write, or - for stdout (required)' }],
  examples: ['rulevault audit export --out log.ndjson', 'rulevault audit export --out - | gzip > log.ndjson.gz'],
  async run({ options, out }) {
    if (typeof options.out !== 'string') throw new CliError('--out is required: a file, or - for stdout');
    const file = options.out;
    const toStdout = file === '-';
    // stdout carries the log and nothing else then: no summary line, no --json document.
    if (toStdout && out.json) throw new CliError('--json cannot go with --out -: stdout carries the log itself', {}, 2);
    const config = storeConfig(out);
    const events = await onStore(config, (store) => (toStdout ? exportTo(store, process.stdout) : exportToFile(store, file)));
    if (toStdout) return;
    out.document({ events, file });
    out.lines(`exported ${events} events to ${file}`);
  },
};

const importCommand: Command = {
  name: 'import',
  summary: 'Append an exported log to an empty store (positions are renumbered); refused beside a running service.',
  options: [{ name: 'in', value: '<file.ndjson>', help: 'the exported log (required)' }],
  examples: ['RULEVAULT_EVENTSTORE=sqlite:./copy/events.db rulevault audit import --in log.ndjson'],
  async run({ options, out }) {
    if (typeof options.in !== 'string') throw new CliError('--in is required');
    const file = options.in;
    const config = storeConfig(out);
    const result = await onStore(config, (store) => importFrom(config, store, file));
    out.document(result);
    out.lines(`imported ${result.events} events`);
  },
};

async function importFrom(config: Config, store: EventStore, file: string) {
  // A store that is not empty is refused first (importLog's own check): stopping a service would not help it.
  if ((await store.headPosition()) !== undefined) return importLog(store, noLines());
  const lock = lockForWrite(config, 'audit import', () =>
    'import into a data folder and store that no service uses (RULEVAULT_DATA_DIR, RULEVAULT_EVENTSTORE), or stop the service first.');
  try {
    return await importLog(store, linesOf(file));
  } finally {
    lock.release();
  }
}

async function* noLines(): AsyncIterable<string> {}

/**
 * The file's lines, read from the first pull on. A readline interface reads as soon as it is made, and the lines
 * it emits before a `for await` pulls are lost. importLog awaits the store first (a round trip on EventStoreDB):
 * an interface made before that could emit every line and close, and the import then waited on nothing, so the
 * process exited 0 having imported nothing.
 */
async function* linesOf(file: string): AsyncIterable<string> {
  yield* createInterface({ input: createReadStream(file), crlfDelay: Infinity });
}

/** Writes the log to `file` as NDJSON; resolves with the number of events once the file is closed. */
async function exportToFile(store: EventStore, file: string): Promise<number> {
  const stream = createWriteStream(file, { encoding: 'utf8' });
  // Opened before the log is read: a file that cannot be written is refused first.
  await once(stream, 'ready').catch(cannotWrite);
  try {
    return await exportTo(store, stream);
  } finally {
    stream.end();
    // A stream that failed is closed already.
    if (!stream.closed) await once(stream, 'close').catch(cannotWrite);
  }
}

/** Writes the log to `sink` as NDJSON, honouring back-pressure; a write error (a closed pipe, a full disk) stops it. */
async function exportTo(store: EventStore, sink: Writable): Promise<number> {
  let failure: Error | undefined;
  const failed = (error: Error) => {
    failure ??= error;
  };
  sink.on('error', failed);
  let events = 0;
  try {
    for await (const event of readWholeLog(store)) {
      if (failure !== undefined) break;
      events += 1;
      // events.once rejects on 'error' too.
      if (!sink.write(exportLine(event) + '\n')) await once(sink, 'drain').catch(failed);
    }
  } finally {
    sink.off('error', failed);
  }
  return failure === undefined ? events : cannotWrite(failure);
}

function cannotWrite(error: Error): never {
  throw new CliError(`cannot write the export: ${error.message}`);
}

export const auditGroup: Group = {
  name: 'audit',
  summary: 'The auditor\'s commands on the store: rule history, evaluate as of a past point, replay, export and import; the hash chain (verify, checkpoints, signing key); decision records and secret reads; evidence for one decision, verified offline.',
  commands: [history, evaluate, replay, exportCommand, importCommand, ...chainCommands, ...decisionCommands, ...evidenceCommands],
};
