/**
 * The process's memory at start against its limits, for the ready line.
 * Node sizes the V8 heap's limit from the memory it may use: in a memory
 * cgroup (a container) about half the cgroup's limit, up to ~2 GB; on a
 * host without one, up to ~4 GB (docs/operations.md#memory). A catalog
 * that outgrows it ends the process with "JavaScript heap out of memory",
 * and a process past the cgroup's limit is killed by the kernel: so a full
 * read of the records that cannot fit is refused first (fullReadRefusal).
 */
import { totalmem } from 'node:os';
import { getHeapStatistics, type HeapInfo } from 'node:v8';

/** Where the messages below send the operator: the page that explains the limits and the fixes. */
const MEMORY_DOCS = 'docs/operations.md#memory';

export interface MemoryRoom {
  readonly rss_mb: number;
  readonly heap_used_mb: number;
  readonly heap_limit_mb: number;
  /** What the process may use when a cgroup limits it below the machine's memory; null when nothing does. */
  readonly limit_mb: number | null;
}

/**
 * Past this share of its limit at start, the heap may not hold what comes
 * next: a snapshot written, an audit query, a full read of the records
 * (at 1M rules, a snapshot written after a cold start raised the RSS from
 * 2.4 to 2.8 GB).
 */
export const HEAP_WARN_SHARE = 0.5;

const mb = (bytes: number): number => Math.round(bytes / 2 ** 20);

export interface MemoryReadings {
  readonly heap: Pick<HeapInfo, 'used_heap_size' | 'heap_size_limit'>;
  readonly rss: number;
  /** process.constrainedMemory(): the cgroup's limit, or a huge number (or 0, or undefined) when there is none. */
  readonly constrained: number | undefined;
  readonly total: number;
  /** V8's young generation at most (youngGenerationMax): counted in heap_size_limit, yet never what a fold keeps; 0 when not given. */
  readonly young?: number;
}

export function memoryRoom(readings: MemoryReadings = currentReadings()): MemoryRoom {
  const { heap, rss, constrained, total } = readings;
  const limited = constrained !== undefined && constrained > 0 && constrained < total;
  return {
    rss_mb: mb(rss),
    heap_used_mb: mb(heap.used_heap_size),
    heap_limit_mb: mb(heap.heap_size_limit),
    limit_mb: limited ? mb(constrained) : null,
  };
}

function currentReadings(): MemoryReadings {
  return { heap: getHeapStatistics(), rss: process.memoryUsage.rss(), constrained: process.constrainedMemory?.(), total: totalmem(), young: processYoung() };
}

let young: number | undefined;
/** This process's youngGenerationMax: its flags do not change, and a fold reads its memory every few ms. */
const processYoung = (): number => (young ??= youngGenerationMax());

const SEMI_SPACE_FLAG = /--max[-_]semi[-_]space[-_]size[= ](\d+)/g;

/**
 * V8's young generation at most: three semi-spaces of 16 MB, or of what the
 * last --max-semi-space-size (node's flags, then NODE_OPTIONS) says. Node 20
 * reports heap_size_limit as the old space's limit plus this (measured:
 * --max-old-space-size=128 gives 176 MB, with --max-semi-space-size=64 320).
 */
export function youngGenerationMax(flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ')): number {
  const sizes = [...flags.matchAll(SEMI_SPACE_FLAG)].map((match) => Number(match[1]));
  return 3 * (sizes.at(-1) ?? 16) * 2 ** 20;
}

/** The warning a start logs when its heap is past HEAP_WARN_SHARE of the limit, naming the fix; undefined otherwise. */
export function memoryWarning(room: MemoryRoom): string | undefined {
  if (room.heap_used_mb <= room.heap_limit_mb * HEAP_WARN_SHARE) return undefined;
  return `the heap is at ${room.heap_used_mb} of its ${room.heap_limit_mb} MB limit at start; a snapshot, an audit query ` +
    `or a full read of the records may need more: raise it with NODE_OPTIONS=--max-old-space-size=<MB> (${MEMORY_DOCS})`;
}

/**
 * What decoding the rule records a snapshot start left as lines costs, per
 * character of their JSON. Measured with `GET /api/audit/digest` right
 * after a start from the snapshot (folders from `make-folder.js`, the
 * standard workload's scoped shape, ~0.7 KB a record): at 1M
 * rules (~676 MB of lines) in a 2.5 GiB cgroup the heap in use went from
 * 138 to 1,300 MB of its 1,472 MB limit (1.7 a character, kept: the
 * collector was short of room), and the RSS grew by 1,243 MB in 3 GiB;
 * at 100k (~68 MB of lines) by 196 to 210 MB. So 1.8 of heap a character,
 * and 1.7 of RSS and 100 MB besides (the heap's slack, the garbage).
 */
export const FULL_READ_COST = { heapPerChar: 1.8, rssPerChar: 1.7, rssBase: 100 * 2 ** 20 } as const;

export interface FullRead {
  /** Records still held as lines. */
  readonly records: number;
  /** Characters of their JSON (an estimate: projections' unreadRuleChars). */
  readonly chars: number;
}

/**
 * Why reading `read` in full would not fit, naming what it needs, what is
 * free and the fix; undefined when it fits. Two limits: a memory cgroup's
 * (the kernel kills the process: at 1M rules a node started from its
 * snapshot in 2 GiB was killed reading its records for the digest, taking
 * evaluate down with it), asked first since more heap would not help there;
 * then the heap's (Node's "JavaScript heap out of memory"). Refusing keeps
 * the node answering evaluate.
 */
export function fullReadRefusal(read: FullRead, readings: MemoryReadings = currentReadings()): string | undefined {
  if (read.records === 0) return undefined;
  const what = `reading the ${read.records} rule records a snapshot start left unread`;
  const { limit_mb } = memoryRoom(readings);
  const rssNeed = read.chars * FULL_READ_COST.rssPerChar + FULL_READ_COST.rssBase;
  const rssFree = limit_mb === null ? Infinity : readings.constrained! - readings.rss;
  if (rssNeed > rssFree) {
    return `${what} needs about ${mb(rssNeed)} MB more memory, and the process has ${mb(Math.max(0, rssFree))} MB left of its ${limit_mb} MB limit ` +
      `(its memory cgroup's): give it more memory (${MEMORY_DOCS})`;
  }
  const heapNeed = read.chars * FULL_READ_COST.heapPerChar;
  // The reported limit, young generation included: FULL_READ_COST's heap figure was measured against it.
  const heapFree = readings.heap.heap_size_limit - readings.heap.used_heap_size;
  if (heapNeed <= heapFree) return undefined;
  return `${what} needs about ${mb(heapNeed)} MB of heap, and ${mb(heapFree)} MB of its ${mb(readings.heap.heap_size_limit)} MB limit is free: ` +
    `raise it with NODE_OPTIONS=--max-old-space-size=<MB> (${MEMORY_DOCS})`;
}

/**
 * What an audit query's fold of the log leaves free: 10% of a memory
 * cgroup's limit, and of the old space's limit (the heap's without the
 * young generation) 10% or 32 MB, whichever is more (V8 gave up on a 128 MB
 * old space with the heap at 115 MB: "ineffective mark-compacts"). Past it
 * the fold stops. At 1M rules the first query to the head needs ~2.7 GB
 * beyond the node's own (answered in 6 GiB with a 3,500 MB old space, peak
 * RSS 4,064 MB); before this check it got the node killed in 2 and 3 GiB
 * and out of heap in 4 GiB with a 2,300 MB old space (bench/HISTORY.md, "an
 * audit fold stopped, not killed").
 */
export const FOLD_RESERVE = { share: 0.1, heapMin: 32 * 2 ** 20 } as const;

/** Why an audit fold must stop now (the cgroup or the old space into what FOLD_RESERVE keeps), naming the figures and the fix; undefined while there is room. */
export function foldRoomRefusal(readings: MemoryReadings = currentReadings()): string | undefined {
  const { heap_used_mb, rss_mb, limit_mb } = memoryRoom(readings);
  const fix = `give the node more memory and a larger NODE_OPTIONS=--max-old-space-size=<MB>, or audit beside it with npm run audit (${MEMORY_DOCS})`;
  if (limit_mb !== null && readings.rss > readings.constrained! * (1 - FOLD_RESERVE.share)) {
    return `the audit query was stopped: folding the log to its point took the process to ${rss_mb} of its ${limit_mb} MB memory limit (its memory cgroup's), ` +
      `into the last ${FOLD_RESERVE.share * 100}% kept for serving; ${fix}`;
  }
  const oldLimit = readings.heap.heap_size_limit - (readings.young ?? 0);
  const reserve = Math.max(oldLimit * FOLD_RESERVE.share, FOLD_RESERVE.heapMin);
  if (readings.heap.used_heap_size <= oldLimit - reserve) return undefined;
  return `the audit query was stopped: folding the log to its point took the heap to ${heap_used_mb} MB, into the last ${mb(reserve)} MB of its old space's ` +
    `${mb(oldLimit)} MB limit kept for serving; ${fix}`;
}
