/**
 * Other memory written between two timed evaluations: in the service, the
 * HTTP and kernel work between two evaluate calls evicts the engine's data,
 * and a warm loop hides that (issue 18). Used by the engine scenario's cold
 * case and by engine-ab.ts.
 */

/** Writes one byte per 64-byte line of `memory`: what evicts the engine's lines is the touch, not the arithmetic. */
export function evictCaches(memory: Uint8Array): void {
  for (let i = 0; i < memory.length; i += 64) memory[i] += 1;
}
