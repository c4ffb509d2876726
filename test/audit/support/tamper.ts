/** Copies of a SQLite log, changed on purpose, for the chain's tamper tests. */
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/** Copies `source` to `<dir>/<name>/events.db`, runs `tamper` on the copy, and returns the copy's path. */
export function tamperedLog(source: string, dir: string, name: string, tamper: (db: Database.Database) => void): string {
  const folder = path.join(dir, name);
  const file = path.join(folder, 'events.db');
  mkdirSync(folder);
  copyFileSync(source, file);
  const db = new Database(file);
  try {
    tamper(db);
  } finally {
    db.close();
  }
  return file;
}
