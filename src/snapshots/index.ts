/**
 * Snapshots of the read models, and the fast start they give: the face of
 * this folder, the only module outside it imports (test/layers.test.ts).
 *
 * - snapshot.ts: the file's format (one JSON document, its members' items as
 *   lines), and the mark of the log event it was taken after.
 * - snapshotter.ts: when one is written (periodically, at shutdown, after an
 *   erasure), and which one a start may use: only a snapshot of this very
 *   log, holding the very event at its position.
 * - The fast start at 1M rules, one feature in four pieces: the rule records
 *   kept as their snapshot lines until read (packed-lines.ts here, and
 *   projections/lazy-rules.ts, which finds them through src/base/id-table.ts),
 *   and the compiled engine saved beside the snapshot and restored instead
 *   of compiled (engine-image-file.ts here; the image itself is
 *   src/engine/image.ts), hashed on a worker (file-sha256.ts). Bench: million.
 */
export { SNAPSHOT_FILE, SNAPSHOT_FORMAT, decodeSnapshot, encodeSnapshot, type Snapshot } from './snapshot';
export { createSnapshotter, loadStartState, logIdentity, SHUTDOWN, type Snapshotter, type StartPoint } from './snapshotter';
export { PackedLines } from './packed-lines';
