/** Percentiles and medians over samples; pure. */

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** p50/p99 (microseconds) and throughput from per-operation nanosecond samples. */
export function summarize(samplesNs: readonly number[]): { samples: number; p50_us: number; p99_us: number; ops_per_s: number } {
  const total = samplesNs.reduce((a, b) => a + b, 0);
  return {
    samples: samplesNs.length,
    p50_us: percentile(samplesNs, 50) / 1000,
    p99_us: percentile(samplesNs, 99) / 1000,
    ops_per_s: total > 0 ? (samplesNs.length * 1e9) / total : NaN,
  };
}

/** Times `fn` once per call, in nanoseconds, with process.hrtime.bigint(). */
export function timeEach(count: number, fn: (i: number) => void): number[] {
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    fn(i);
    samples[i] = Number(process.hrtime.bigint() - start);
  }
  return samples;
}

export async function timeEachAsync(count: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples[i] = Number(process.hrtime.bigint() - start);
  }
  return samples;
}
