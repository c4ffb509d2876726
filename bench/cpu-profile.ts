/**
 * A V8 CPU profile as `node --cpu-prof` writes it (Chrome DevTools'
 * Profile), the parts the bench's readers use: long-tasks.ts (what held the
 * event loop) and profile-windows.ts (where a measured window's time went).
 */

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** V8's monotonic clock in µs, the clock process.hrtime reads on Linux. */
  readonly startTime: number;
  /** The node sampled at each tick, and the µs since the tick before (the first: since startTime). */
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The profile's call tree walked upwards: each node by id, and each node's caller. */
export function profileTree(profile: CpuProfile): { byId: Map<number, ProfileNode>; parent: Map<number, number> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return { byId, parent };
}
