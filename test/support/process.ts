/** Runs the compiled service or CLI as a separate process, for crash and operator tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** dist/ root (this file runs from dist/test/support). */
export const DIST = path.resolve(__dirname, '..', '..');

/**
 * The environment for a process a test starts: this one's with `env` over it,
 * less the import tap adds to NODE_OPTIONS to follow child processes (its
 * @tapjs/processinfo loader). That bookkeeping serves coverage, which is
 * off, and costs every child most of a second of CPU at start.
 */
export function childEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  const options = (merged.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option !== '' && !/^"?--import=\S*@tapjs\/processinfo\//.test(option));
  if (options.length === 0) delete merged.NODE_OPTIONS;
  else merged.NODE_OPTIONS = options.join(' ');
  return merged;
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
}

/**
 * Starts `node dist/src/main.js` and resolves once /readyz answers 200.
 * `launcher`: a command line that runs it (e.g. `prlimit --fsize=...`), ending with the arguments before node's path.
 */
export async function spawnService(env: Record<string, string>, port: number, launcher: readonly string[] = []): Promise<ServiceProcess> {
  const [command, ...args] = [...launcher, process.execPath, path.join(DIST, 'src', 'main.js')];
  const child = spawn(command!, args, {
    env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}: ${output}`);
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.status === 200) return { child, url, output: () => output };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not become ready: ${output}`);
}

/** spawnService on a free port, killed (SIGKILL) when `t` ends, its exit awaited: a black-box test's node of its own. */
export async function spawnServiceFor(t: { teardown(fn: () => unknown): void }, env: Record<string, string>, launcher: readonly string[] = []): Promise<ServiceProcess> {
  const service = await spawnService(env, await freePort(), launcher);
  t.teardown(async () => {
    service.child.kill('SIGKILL');
    await exited(service.child);
  });
  return service;
}

/** Resolves with the exit code (null when killed by a signal) once the child has exited, even if it already has. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a compiled script under dist/ (e.g. `src/cli/rulevault.js`) to completion; resolves with its exit code and output. `input`: its stdin (else none). */
export function runScript(script: string, args: string[], env: Record<string, string>, input?: string): Promise<ScriptRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(DIST, script), ...args], {
      env: childEnv(env),
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The compiled `rulevault` CLI (src/cli/rulevault.ts), for a test that spawns it in a way of its own. */
export const CLI_SCRIPT = path.join(DIST, 'src', 'cli', 'rulevault.js');

/** The `rulevault` CLI (src/cli/rulevault.ts), compiled. */
export const runCli = (args: string[], env: Record<string, string>, input?: string): Promise<ScriptRun> => runScript(path.relative(DIST, CLI_SCRIPT), args, env, input);

/** Pids of the live processes whose parent is `pid` (Linux /proc): a writer's workers. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the command name (which may hold spaces): state, then the parent's pid.
      const [state, ppid] = readFileSync(`/proc/${name}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      if (Number(ppid) === pid && state !== 'Z') children.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return children.sort((a, b) => a - b);
}

/** A free loopback port (bound then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * Runs `node dist/src/main.js` with stdout and stderr kept apart; resolves once
 * it exits, or kills it (SIGKILL) once `until` matches its stdout.
 */
export function runService(env: Record<string, string>, until?: RegExp): Promise<ScriptRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(DIST, 'src', 'main.js')], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (until?.test(stdout)) child.kill('SIGKILL');
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
