/**
 * A snapshot member's items as JSON text, not yet decoded: how a read model
 * restores many records without parsing them all (bench: million; at 1M rules
 * parsing their snapshot lines was 2.4 s of an 8.2 s start, and their objects
 * ~930 MB of heap). The snapshot reader makes them (src/snapshots/packed-lines.ts);
 * a read model decodes a line when a request first needs its record.
 * Once handed to a read model, lines never change (`keeper` makes new ones).
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
  /**
   * A copy holding only `lines`, in that order (their texts; `this` is
   * unchanged), made a few lines at a time (a re-pack in slices): `step`
   * until it answers true, then take `lines`.
   */
  keeper(lines: readonly number[]): LineKeeper;
}

export interface LineKeeper {
  /** Copies up to `count` more lines; true once every line is copied. */
  step(count: number): boolean;
  /** The copy: whole once `step` has answered true. */
  readonly lines: JsonLines;
}

/**
 * A snapshot item written as line `line` of `lines`, as it is: an unread
 * record goes back out unparsed. It keeps the line's place, not its text,
 * so taking a snapshot's members (one synchronous step) decodes no text: at
 * 1M unread records that was a ~1 s stall of every periodic snapshot
 * (bench: snapshot-stall); the text is read as the file is written. Lines
 * never change once made, so it is the text of the moment it was taken.
 */
export class RawJson {
  constructor(private readonly lines: JsonLines, private readonly line: number) {}

  get text(): string {
    return this.lines.text(this.line);
  }

  /** Anything else that stringifies it (a test comparing members) gets the value the text stands for. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
