/**
 * A snapshot member's items as JSON text, not yet decoded: how a read model
 * restores many records without parsing them all (bench: million; at 1M rules
 * parsing their snapshot lines was 2.4 s of an 8.2 s start, and their objects
 * ~930 MB of heap). The snapshot reader makes them (src/snapshot-lines.ts);
 * a read model decodes a line when a request first needs its record.
 */
export interface JsonLines {
  readonly count: number;
  /** Line `i`'s JSON text. */
  text(i: number): string;
  /**
   * The id of line `i` when the line starts `{"id":"<id>"` with no escape in
   * the id (as every record line the snapshot writes does), else undefined:
   * the caller then decodes the line to learn it.
   */
  leadingId(i: number): string | undefined;
  /** A copy holding only `lines`, in that order (their texts; `this` is unchanged). */
  keep(lines: readonly number[]): JsonLines;
}

/** A snapshot item written as this text, as it is: an unread line goes back out unparsed. */
export class RawJson {
  constructor(readonly text: string) {}

  /** Anything else that stringifies it (a test comparing members) gets the value the text stands for. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
