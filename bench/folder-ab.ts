/**
 * A/B runs over copies of one data folder (start-from-snapshot.ts,
 * snapshot-stall.ts): each run copies the folder and removes the copy after;
 * this build and `--base` (another build's dist/src/main.js) alternate run
 * by run, so both see the same load and neither always starts on a cache the
 * other warmed. `--base-folder` gives the base build a folder of its own
 * (one whose engine image is of the format that build reads). Prints one
 * JSON line per run.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { takeOption } from './args';

/** `run` on a fresh copy of `folder`, removed afterwards. */
export async function onCopy<T>(folder: string, run: (copy: string) => Promise<T>): Promise<T> {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'rulevault-start-'));
  try {
    cpSync(folder, copy, { recursive: true });
    return await run(copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Parses `<data folder> [--base <main.js> [--base-folder <folder>]] [--runs N]` and runs `once` per build per run. */
export async function alternate(
  script: string,
  defaultRuns: number,
  once: (folder: string, main: string | undefined) => Promise<Record<string, unknown>>,
): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => takeOption(args, name);
  const base = option('--base');
  const baseFolder = option('--base-folder');
  const runs = Number(option('--runs') ?? String(defaultRuns));
  const [folder] = args;
  if (folder === undefined || !Number.isInteger(runs) || runs < 1) {
    process.stderr.write(`usage: node dist/bench/${script} <data folder> [--base <dist/src/main.js> [--base-folder <folder>]] [--runs N]\n`);
    process.exit(2);
  }
  for (let run = 0; run < runs; run++) {
    const builds = base === undefined ? [undefined] : run % 2 === 0 ? [undefined, base] : [base, undefined];
    for (const build of builds) process.stdout.write(`${JSON.stringify(await once(build === undefined ? folder : baseFolder ?? folder, build))}\n`);
  }
}
