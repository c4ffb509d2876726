/**
 * The process's memory at start against its limits, for the ready line.
 * Node sizes the V8 heap's limit from the memory it may use: in a memory
 * cgroup (a container) about half the cgroup's limit, up to ~2 GB; on a
 * host without one, up to ~4 GB (README, Operations > Memory). A catalog
 * that outgrows it ends the process with "JavaScript heap out of memory".
 */
import { totalmem } from 'node:os';
import { getHeapStatistics, type HeapInfo } from 'node:v8';

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
  return { heap: getHeapStatistics(), rss: process.memoryUsage.rss(), constrained: process.constrainedMemory?.(), total: totalmem() };
}

/** The warning a start logs when its heap is past HEAP_WARN_SHARE of the limit, naming the fix; undefined otherwise. */
export function memoryWarning(room: MemoryRoom): string | undefined {
  if (room.heap_used_mb <= room.heap_limit_mb * HEAP_WARN_SHARE) return undefined;
  return `the heap is at ${room.heap_used_mb} of its ${room.heap_limit_mb} MB limit at start; a snapshot, an audit query ` +
    'or a full read of the records may need more: raise it with NODE_OPTIONS=--max-old-space-size=<MB> (README, Operations > Memory)';
}
