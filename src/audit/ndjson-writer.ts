/**
 * NDJSON sink files, rotated by size: the decision records' writer
 * (sink.ts). An append of a batch's lines is the cheapest write there is
 * (bench: decision-log; a SQLite insert of the same record cost about three
 * times its JSON.stringify on the build machine), and decision records are
 * only ever looked up by id.
 *
 * Files are `<prefix>-<first record's id>.ndjson`. Ids are UUID version 7,
 * so names sort by time, and a lookup reads first the file whose name is the
 * last at or before the id (then the others, newest first: ids drawn within
 * one millisecond are not ordered among themselves). Past `maxFileBytes` a
 * new file is started; past `maxFiles` the oldest is deleted.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { sameFile, type SinkWriter } from './sink';

export interface NdjsonFiles {
  readonly dir: string;
  /** File names are `<prefix>-<id>.ndjson`. */
  readonly prefix: string;
  readonly maxFileBytes: number;
  readonly maxFiles: number;
}

export function ndjsonWriter<R>(files: NdjsonFiles, idOf: (record: R) => string, line: (record: R) => string): SinkWriter<R> {
  const { dir, prefix, maxFileBytes, maxFiles } = files;
  let fd: number | undefined;
  let file = '';
  let identity = { dev: 0, ino: 0 };
  let size = 0;
  let opened = false;

  function open(name: string): void {
    file = path.join(dir, name);
    fd = openSync(file, 'a', 0o600);
    const stat = fstatSync(fd);
    identity = { dev: stat.dev, ino: stat.ino };
    size = stat.size;
  }

  function close(): void {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  }

  /** The file to append to: the current one while its path still names it and it has room, else a new one. */
  function target(firstId: string, bytes: number): void {
    if (fd !== undefined && !sameFile(file, identity)) close();
    if (fd === undefined && !opened) {
      // The folder is created once, on the first open; a folder removed later is a failure to report, not to paper over.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const last = sinkFiles(dir, prefix).pop();
      open(last ?? fileName(prefix, firstId));
      opened = true;
    } else if (fd === undefined) {
      open(path.basename(file));
    }
    // Read, not counted: with several worker processes (docs/operations.md#workers) each appends to the same file (O_APPEND,
    // a batch is one write, so lines never interleave), and only the file knows how big the others made it.
    size = fstatSync(fd!).size;
    if (size > 0 && size + bytes > maxFileBytes) {
      close();
      open(fileName(prefix, firstId));
      for (const old of sinkFiles(dir, prefix).slice(0, -maxFiles)) rmSync(path.join(dir, old), { force: true });
    }
  }

  return {
    write(records) {
      if (records.length === 0) return;
      let text = '';
      for (const record of records) text += line(record) + '\n';
      const bytes = Buffer.from(text, 'utf8');
      target(idOf(records[0]!), bytes.length);
      let written = 0;
      while (written < bytes.length) written += writeSync(fd!, bytes, written, bytes.length - written);
      size += bytes.length;
    },
    close,
  };
}

function fileName(prefix: string, id: string): string {
  return `${prefix}-${id}.ndjson`;
}

/** The sink's files in `dir`, oldest first; none when the folder does not exist. */
export function sinkFiles(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => name.startsWith(`${prefix}-`) && name.endsWith('.ndjson')).sort();
}

/**
 * The line whose member `key` is `id` (the first member of each line), read
 * from the files in the order that finds it soonest; undefined when none has it.
 */
export function findLine(files: Pick<NdjsonFiles, 'dir' | 'prefix'>, key: string, id: string): string | undefined {
  const names = sinkFiles(files.dir, files.prefix);
  const own = fileName(files.prefix, id);
  const home = names.filter((name) => name <= own).pop();
  const order = [...(home === undefined ? [] : [home]), ...names.filter((name) => name !== home).reverse()];
  const start = Buffer.from(`{${JSON.stringify(key)}:${JSON.stringify(id)},`, 'utf8');
  for (const name of order) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(files.dir, name));
    } catch {
      continue; // deleted by retention since it was listed
    }
    const at = lineStartingWith(bytes, start);
    if (at === -1) continue;
    const end = bytes.indexOf(0x0a, at);
    return bytes.toString('utf8', at, end === -1 ? bytes.length : end);
  }
  return undefined;
}

/**
 * Where the first line that starts with `start` begins, or -1. Only a line's start: the same text inside a record
 * (an object in a caller's variables) is not a record. JSON text holds no raw newline, so one before it is a line's end.
 */
function lineStartingWith(bytes: Buffer, start: Buffer): number {
  if (bytes.subarray(0, start.length).equals(start)) return 0;
  const at = bytes.indexOf(Buffer.concat([NEWLINE, start]));
  return at === -1 ? -1 : at + 1;
}

const NEWLINE = Buffer.from('\n');
