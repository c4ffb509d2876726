/**
 * The whole log out and in, and offline replay: what `npm run audit --
 * export | import | replay` run.
 *
 * Export writes one JSON object per line: `{id, stream, type, revision,
 * position, data, metadata}` exactly as stored (secret values sealed).
 * Import appends each event to its stream in log order, with the expected
 * revision it had, into an empty store only; stream names, event ids, types,
 * data, metadata and stream revisions survive, positions are renumbered by
 * the target store.
 */
import { evolve, initialState, type CatalogState } from '../../projections';
import { isPlainObject } from '../domain/input';
import { LOG_PAGE_BYTES, parseJsonPosition, toJsonPosition, type EventMetadata, type EventStore, type Json, type NewEvent, type RecordedEvent } from '../store/port';

const PAGE = 1000;

/** Every event of the log in position order, page by page. */
export async function* readWholeLog(store: EventStore): AsyncGenerator<RecordedEvent> {
  let after: bigint | undefined;
  for (;;) {
    const page = await store.readAll({ after, limit: PAGE, maxDataBytes: LOG_PAGE_BYTES });
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1]!.position;
  }
}

/** Folds the whole log into fresh read models (no engine: the digest needs only the folds). */
export async function replayLog(store: EventStore): Promise<{ state: CatalogState; events: number }> {
  const state = initialState();
  let events = 0;
  for await (const event of readWholeLog(store)) {
    evolve(state, event);
    events += 1;
  }
  return { state, events };
}

/** An event as an export line holds it (evidence files hold events so too). */
export function exportedEvent(event: RecordedEvent) {
  return {
    id: event.id,
    stream: event.stream,
    type: event.type,
    revision: toJsonPosition(event.revision),
    position: toJsonPosition(event.position),
    data: event.data,
    metadata: event.metadata,
  };
}

/** One export line for an event. */
export function exportLine(event: RecordedEvent): string {
  return JSON.stringify(exportedEvent(event));
}

export class ImportError extends Error {
  override readonly name = 'ImportError';
}

interface ImportedEvent {
  readonly stream: string;
  readonly revision: bigint;
  readonly event: NewEvent;
}

/** Reads one export line; throws ImportError naming the line and member. */
export function parseExportLine(text: string, line: number): ImportedEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ImportError(`line ${line}: not valid JSON`);
  }
  const bad = (what: string) => new ImportError(`line ${line}: ${what}`);
  if (!isPlainObject(value)) throw bad('not a JSON object');
  const { id, stream, type, revision, data, metadata } = value;
  if (typeof stream !== 'string' || stream === '') throw bad('stream must be a non-empty string');
  if (typeof type !== 'string' || type === '') throw bad('type must be a non-empty string');
  const rev = typeof revision === 'string' ? parseJsonPosition(revision) : undefined;
  if (rev === undefined) throw bad('revision must be a whole number as a decimal string');
  if (!isPlainObject(data)) throw bad('data must be an object');
  if (!isPlainObject(metadata) || typeof metadata.actor !== 'string' || typeof metadata.at !== 'string'
    || typeof metadata.request_id !== 'string' || typeof metadata.schema !== 'number') {
    throw bad('metadata must be {actor, at, request_id, schema}');
  }
  if (id !== undefined && typeof id !== 'string') throw bad('id must be a string');
  return {
    stream,
    revision: rev,
    event: {
      ...(id === undefined ? {} : { id }),
      type,
      data: data as { [key: string]: Json },
      metadata: metadata as unknown as EventMetadata,
    },
  };
}

/**
 * Appends exported lines to `store`, which must be empty. Consecutive events
 * of one stream go in one append; each append expects the stream at the
 * revision before its first event, so a gap or a reorder fails loudly.
 */
export async function importLog(store: EventStore, lines: AsyncIterable<string>): Promise<{ events: number; position: string | null }> {
  if ((await store.headPosition()) !== undefined) {
    throw new ImportError('the target store is not empty: import only into an empty store');
  }
  let batch: ImportedEvent[] = [];
  let events = 0;
  let position: bigint | undefined;
  const flush = async () => {
    if (batch.length === 0) return;
    const first = batch[0]!;
    const expected = first.revision === 0n ? 'no_stream' : first.revision - 1n;
    const result = await store.append(first.stream, batch.map((b) => b.event), expected);
    position = result.position;
    events += batch.length;
    batch = [];
  };
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    const imported = parseExportLine(text, line);
    const last = batch[batch.length - 1];
    if (last !== undefined && (last.stream !== imported.stream || last.revision + 1n !== imported.revision)) await flush();
    batch.push(imported);
    if (batch.length >= PAGE) await flush();
  }
  await flush();
  return { events, position: position === undefined ? null : toJsonPosition(position) };
}
