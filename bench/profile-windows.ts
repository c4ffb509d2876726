/**
 * Where a server's busy time went in given windows of its `node --cpu-prof`
 * profile (issue 18). cpu-per-request.ts --prof reads each round's measured
 * window out of the one profile the service (and the floor) write at exit,
 * so a slow round can be told apart from a fast one: did the kernel's
 * writes grow, the engine, garbage collection, or all JavaScript alike?
 *
 * A profile's sample times are V8's monotonic clock in µs, the clock
 * process.hrtime reads on Linux, so a window timed in the bench's process
 * selects the server's samples in it. Pure: no file is read here.
 */
import { profileTree, type CpuProfile } from './cpu-profile';

/** A window in µs of the monotonic clock (process.hrtime.bigint() / 1000). */
export interface Window {
  readonly startUs: number;
  readonly endUs: number;
}

export const CATEGORIES = ['writes', 'engine', 'gc', 'other'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Busy samples in a window (the thread was not waiting for events) and each category's share of them. */
export interface WindowShares {
  readonly busy: number;
  readonly shares: Record<Category, number>;
}

// The native calls that write a socket: their samples are the thread inside a write, mostly the kernel's work.
// Samples come on a wall-clock interval, so a share is of the thread's busy time, not of its CPU time.
const WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);
const ENGINE_URL = '/src/engine/';

/** Each sampled node's category: by its own frame, else `engine` when any caller is in src/engine/. */
function categorizer(profile: CpuProfile): (id: number) => Category | 'idle' {
  const { byId, parent } = profileTree(profile);
  const memo = new Map<number, Category | 'idle'>();
  return (id) => {
    let category = memo.get(id);
    if (category !== undefined) return category;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) category = 'other';
    else if (frame.functionName === '(idle)') category = 'idle';
    else if (frame.functionName === '(garbage collector)') category = 'gc';
    else if (WRITES.has(frame.functionName) && frame.url === '') category = 'writes';
    else {
      category = 'other';
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        if (byId.get(at)!.callFrame.url.includes(ENGINE_URL)) {
          category = 'engine';
          break;
        }
      }
    }
    memo.set(id, category);
    return category;
  };
}

/** Each window's busy samples and their shares by category (NaN shares for a window with none). */
export function windowShares(profile: CpuProfile, windows: readonly Window[]): WindowShares[] {
  const categoryOf = categorizer(profile);
  const counts = windows.map(() => ({ writes: 0, engine: 0, gc: 0, other: 0 }) as Record<Category, number>);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const category = categoryOf(profile.samples[i]);
    if (category === 'idle') continue;
    windows.forEach((w, k) => {
      if (t >= w.startUs && t < w.endUs) counts[k][category] += 1;
    });
  }
  return counts.map((count) => {
    const busy = CATEGORIES.reduce((sum, c) => sum + count[c], 0);
    const shares = Object.fromEntries(CATEGORIES.map((c) => [c, count[c] / busy])) as Record<Category, number>;
    return { busy, shares };
  });
}

/** `writes 31% engine 23% gc 1% other 45%`: a window's shares as a line. */
export function formatShares(w: WindowShares): string {
  return CATEGORIES.map((c) => `${c} ${(100 * w.shares[c]).toFixed(0)}%`).join(' ');
}
