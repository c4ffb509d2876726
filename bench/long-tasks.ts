/**
 * The event loop's longest blocks in a V8 CPU profile (`node --cpu-prof`,
 * as bench/audit-stall.ts and cpu-per-request.ts write them): a run of
 * samples under one entry from the loop (the stack's outermost frame: a
 * timer, an immediate, an I/O callback) without an idle sample or another
 * entry between is one task, as far as a profile can tell (two slices of one
 * job in a row look like one task when nothing else was waiting for the
 * loop, so nothing was held), and evaluate callers waited at most that long
 * beside it. Prints the longest tasks, the share of each spent collecting
 * garbage, and the functions of RuleVault's own code (dist/) that ran most
 * of each, inclusive, so a stall names its cause.
 *
 *   node dist/bench/long-tasks.js <file.cpuprofile> [--top 8] [--min-ms 50] [--frames 6]
 */
import { readFileSync } from 'node:fs';
import { takeOption } from './args';
import { profileTree, type CpuProfile, type ProfileNode } from './cpu-profile';

/** What the profiler samples while the loop waits for events: not part of a task. */
const WAITING = new Set(['(idle)']);
/** Samples outside any JavaScript entry (a collection, native work): they belong to the task around them. */
const INSIDE = new Set(['(garbage collector)', '(program)']);

interface Task {
  readonly startMs: number;
  readonly ms: number;
  readonly samples: readonly number[];
}

/** entryOf's answer for a sample of INSIDE. */
const INSIDE_ENTRY = -1;

function tasks(profile: CpuProfile, idle: ReadonlySet<number>, entryOf: (sample: number) => number): Task[] {
  const found: Task[] = [];
  let clock = 0;
  let start = -1;
  let entry = -1;
  let run: number[] = [];
  for (let i = 0; i < profile.samples.length; i++) {
    clock += profile.timeDeltas[i] / 1000;
    const sample = profile.samples[i];
    const waiting = idle.has(sample);
    const inside = entryOf(sample) === INSIDE_ENTRY;
    if (run.length > 0 && (waiting || (!inside && entryOf(sample) !== entry))) {
      found.push({ startMs: start, ms: clock - start, samples: run });
      run = [];
    }
    if (waiting) continue;
    if (run.length === 0) {
      start = clock;
      entry = entryOf(sample);
    } else if (entry === INSIDE_ENTRY) entry = entryOf(sample);
    run.push(sample);
  }
  return found;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number): number => Number(takeOption(args, name) ?? fallback);
  const top = option('--top', 8);
  const minMs = option('--min-ms', 50);
  const frames = option('--frames', 6);
  const [file] = args;
  if (file === undefined) {
    process.stderr.write('usage: node dist/bench/long-tasks.js <file.cpuprofile> [--top 8] [--min-ms 50] [--frames 6]\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const { byId, parent } = profileTree(profile);
  const idle = new Set(profile.nodes.filter((node) => WAITING.has(node.callFrame.functionName)).map((node) => node.id));

  const root = profile.nodes[0].id;
  const entryOf = (sample: number): number => {
    if (INSIDE.has(byId.get(sample)!.callFrame.functionName)) return INSIDE_ENTRY;
    let id = sample;
    for (let up = parent.get(id); up !== undefined && up !== root; up = parent.get(id)) id = up;
    return id;
  };
  const long = tasks(profile, idle, entryOf).filter((task) => task.ms >= minMs).sort((a, b) => b.ms - a.ms).slice(0, top);
  for (const task of long) {
    // Per own function, the samples whose stack holds it (once per stack).
    const inclusive = new Map<string, number>();
    for (const sample of task.samples) {
      const seen = new Set<string>();
      for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
        const node = byId.get(id)!;
        if (!node.callFrame.url.includes('/dist/')) continue;
        const name = frameName(node);
        if (seen.has(name)) continue;
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
      }
    }
    const share = [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, frames)
      .map(([name, count]) => `    ${((100 * count) / task.samples.length).toFixed(0).padStart(3)}% ${name}`);
    const collecting = task.samples.filter((sample) => byId.get(sample)!.callFrame.functionName === '(garbage collector)').length;
    const gc = ((100 * collecting) / task.samples.length).toFixed(0);
    process.stdout.write(`${task.ms.toFixed(0)} ms at ${(task.startMs / 1000).toFixed(2)} s (${task.samples.length} samples, ${gc}% garbage collection)\n${share.join('\n')}\n`);
  }
  if (long.length === 0) process.stdout.write(`no task of ${minMs} ms or more\n`);
}

main();
