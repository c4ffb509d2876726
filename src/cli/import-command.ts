/**
 * `rulevault import <file|->`: sends an NDJSON or JSON-array file of rules,
 * contexts and prompts to POST /api/import of a running service (an admin
 * key), as it is: the service reads, checks and writes it all or nothing.
 */
import { readFile } from 'node:fs/promises';
import { CliError, type Command } from './command';
import { call, service, SERVICE_OPTIONS } from './secret-commands';

interface ImportAnswer {
  readonly imported: number;
  readonly rules: number;
  readonly contexts: number;
  readonly prompts: number;
  readonly position: string;
}

/** Ten minutes: the service answers once the whole batch is written and applied (100k rules: seconds). */
const IMPORT_TIMEOUT_MS = 10 * 60_000;

export const importCommand: Command = {
  name: 'import',
  args: '<file|->',
  minArgs: 1,
  summary: 'Import rules, contexts and prompts from NDJSON or a JSON array (an admin key): all or nothing.',
  details: [
    'One item per line (NDJSON) or one JSON array; each item is {"kind": "rule" | "context" | "prompt", "id"?: <uuid>, ...its create body}.',
    'A rule links a context or prompt of the same file by its name or id. - reads the file from stdin.',
    'Nothing is written unless every item is valid; the error names the first bad item\'s line (or array index). See docs/api.md#import.',
  ],
  options: [...SERVICE_OPTIONS],
  examples: [
    'RULEVAULT_URL=http://127.0.0.1:3000 RULEVAULT_API_KEY=$ADMIN_KEY rulevault import rules.ndjson',
    'jq -c \'.[]\' export.json | rulevault import - --json',
  ],
  async run({ args: [file], options, out }) {
    const svc = await service(options);
    const raw = await readInput(file!);
    const json = /^\uFEFF?\s*\[/.test(raw.subarray(0, 64).toString('utf8'));
    const answer = (await call(svc, 'POST', '/api/import', { raw, contentType: json ? 'application/json' : 'application/x-ndjson' }, IMPORT_TIMEOUT_MS)) as ImportAnswer;
    out.document(answer);
    out.lines(`imported ${answer.imported} items (${answer.rules} rules, ${answer.contexts} contexts, ${answer.prompts} prompts); log position ${answer.position}`);
  },
};

async function readInput(file: string): Promise<Buffer> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
  return readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read ${file}: ${error.code ?? error.message}`);
  });
}
