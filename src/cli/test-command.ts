/**
 * `rulevault test <file>`: runs a test-case file (audit/test-cases.ts,
 * ADR 0066) against a running service's evaluate (an evaluate key, from
 * RULEVAULT_API_KEY or --api-key-file), or with --data-dir offline against
 * a data folder: its log folded into a catalog here and evaluated in this
 * process, beside a running service or not (the log is only read).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { replayLog } from '../audit/log-transfer';
import { createScanEngine } from '../audit/rule-check';
import { CaseFileError, CaseRefused, describeCases, evaluatorOver, parseCases, runCases, type CaseAnswer, type EvaluateFn } from '../audit/test-cases';
import { loadConfig } from '../base/config';
import { CliError, type Command } from './command';
import { call, service, SERVICE_OPTIONS } from './secret-commands';
import { onStore } from './store-commands';

/** Exit code when a case fails (as `audit decision` exits 3 on a difference: ADR 0016); 1 stays "could not run". */
export const CASE_FAILED_EXIT = 3;

export const testCommand: Command = {
  name: 'test',
  args: '<file>',
  minArgs: 1,
  maxArgs: 1,
  summary: 'Run a test-case file against a service (evaluate key) or, with --data-dir, offline: exit 0 all pass, 3 a case failed.',
  details: [
    'One case per line (NDJSON): {"name", "entity_type", "fields", "expect": {"rules"?: [rule ids], "entities"?: [entity ids], "variants"?: {rule id: variant | null}}}.',
    'rules and entities are compared as sets, exactly; variants only for the rules named. A malformed file is named by line (exit 1). See docs/cli.md#rulevault-test.',
  ],
  options: [
    ...SERVICE_OPTIONS,
    { name: 'data-dir', value: '<dir>', help: 'run offline against this data folder\'s log (its events.db) instead of a service' },
  ],
  examples: [
    'RULEVAULT_URL=http://127.0.0.1:3000 RULEVAULT_API_KEY=$EVALUATE_KEY rulevault test rules.cases.ndjson',
    'rulevault test rules.cases.ndjson --data-dir ./data --json',
  ],
  async run({ args: [file], options, out }) {
    const text = await readFile(file!, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${file}: ${error.code ?? error.message}`);
    });
    let cases;
    try {
      cases = parseCases(text);
    } catch (error) {
      if (error instanceof CaseFileError) throw new CliError(`${file} ${error.message}`, { line: error.line });
      throw error;
    }
    const dataDir = options['data-dir'];
    const report = typeof dataDir === 'string'
      ? await offline(dataDir, (evaluateFn) => runCases(cases, evaluateFn))
      : await runCases(cases, overHttp(await service(options)));
    out.document(report);
    out.lines(...describeCases(report));
    return report.failed === 0 ? 0 : CASE_FAILED_EXIT;
  },
};

/** Evaluate over HTTP; a refused request fails its case with the service's message. */
function overHttp(svc: Awaited<ReturnType<typeof service>>): EvaluateFn {
  return async (request) => {
    try {
      return (await call(svc, 'POST', '/api/rule-engine/evaluate', request)) as CaseAnswer;
    } catch (error) {
      // A 400 is this case's; an unreachable service or a refused key stops the run (exit 1).
      if (error instanceof CliError && error.details.status === 400) throw new CaseRefused(`evaluate refused the case: ${error.message}`);
      throw error;
    }
  };
}

/** The data folder's log folded, evaluated with a scan engine (the compiled engine's verdicts, without its index). */
async function offline<T>(dataDir: string, work: (evaluateFn: EvaluateFn) => Promise<T>): Promise<T> {
  // The folder's own store, whatever RULEVAULT_EVENTSTORE says: --data-dir names where to look.
  const { RULEVAULT_EVENTSTORE: _ignored, ...env } = process.env;
  const config = loadConfig({ ...env, RULEVAULT_DATA_DIR: dataDir });
  const file = config.eventStore.slice('sqlite:'.length);
  // Opening a store that is not there would create it: an empty folder is a mistake to name, not a log to test.
  if (!existsSync(file)) throw new CliError(`${dataDir} holds no log: ${file} does not exist`);
  return onStore(config, async (store) => {
    if ((await store.headPosition()) === undefined) throw new CliError(`${dataDir} holds no log: ${file} has no events`);
    const { state } = await replayLog(store);
    return work(evaluatorOver(state, createScanEngine(state.rules), config.limits));
  });
}
