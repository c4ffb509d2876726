/** Runs the compiled auditor commands (`rulevault audit ...`, dist/src/cli/rulevault.js) to completion. */
import { spawn } from 'node:child_process';
import { childEnv, CLI_SCRIPT, runCli, type ScriptRun } from '../../support/process';

export const runAudit = (args: string[], env: Record<string, string>): Promise<ScriptRun> => runCli(['audit', ...args], env);

/** The auditor commands in `cwd` with no RULEVAULT_* variable at all: nothing points them to a data folder. */
export function runOffline(args: string[], cwd: string): Promise<ScriptRun> {
  const env = Object.fromEntries(Object.entries(childEnv()).filter(([name]) => !name.startsWith('RULEVAULT_')));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_SCRIPT, 'audit', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
