/** Runs the compiled auditor CLI (dist/scripts/audit.js) to completion. */
import { runScript, type ScriptRun } from '../../support/process';

export const runAudit = (args: string[], env: Record<string, string>): Promise<ScriptRun> => runScript('scripts/audit.js', args, env);
