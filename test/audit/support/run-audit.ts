/** Runs the compiled auditor commands (`rulevault audit ...`, dist/src/cli/rulevault.js) to completion. */
import { runCli, type ScriptRun } from '../../support/process';

export const runAudit = (args: string[], env: Record<string, string>): Promise<ScriptRun> => runCli(['audit', ...args], env);
