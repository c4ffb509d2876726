/**
 * `rulevault`: the operator's and the auditor's command line (bin/rulevault.js,
 * `npm run cli`, `npm run audit`). The command tree is declared in src/cli/;
 * every command has --help and --json, and a usage mistake exits 2.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dispatch, type Group } from './command';
import { auditGroup } from './audit-commands';
import { importCommand } from './import-command';
import { secretsGroup } from './secret-commands';
import { storeCommands } from './store-commands';
import { testCommand } from './test-command';

export const ROOT: Group = {
  name: 'rulevault',
  summary: 'RuleVault from the command line: API keys, the log and master-key rotation on the store; secrets and imports over HTTP; the auditor\'s commands.',
  commands: [...storeCommands, secretsGroup, importCommand, testCommand, auditGroup],
  version: packageVersion(),
};

/** The version of the package this CLI was built from (dist/src/cli/ sits three folders below package.json). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/**
 * Runs one command line and exits with its code. Exiting rather than waiting
 * for the event loop to empty: fetch keeps idle connections open for seconds.
 * Writes to pipes and files are synchronous on Linux, so nothing is lost.
 */
export function main(argv: readonly string[]): void {
  void dispatch(ROOT, argv, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) }).then((code) => process.exit(code));
}

if (require.main === module) main(process.argv.slice(2));
