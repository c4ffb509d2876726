/**
 * Reading the documentation as the docs tests need it: which files are the
 * documentation, their headings as GitHub anchors them, their links, and the
 * rows of a table under a heading. Code (fenced blocks and `inline code`) is
 * masked first, so an example that looks like a link or a heading is neither.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository (these tests run from dist/test/docs). */
export const REPO = path.resolve(__dirname, '..', '..', '..');

/** README.md, CONTRIBUTING.md and every page under docs/, as paths relative to the repository. */
export function documentationFiles(): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.md')) pages.push(file);
    }
  };
  walk('docs');
  return ['README.md', 'CONTRIBUTING.md', ...pages.sort()];
}

export function readDoc(file: string): string {
  return readFileSync(path.join(REPO, file), 'utf8');
}

/** The text with fenced code blocks blanked line by line and inline code spans blanked, so line numbers stay. */
export function withoutCode(text: string): string {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
  }).join('\n');
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link reads as its text
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every heading's anchor in a page, repeats numbered as GitHub numbers them (`-1`, `-2`). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} +(.*?) *#*$/.exec(line);
    if (heading === null) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

export interface Link {
  readonly target: string;
  readonly line: number;
}

/** The inline links and images of a page, outside code. */
export function links(text: string): Link[] {
  const found: Link[] = [];
  withoutCode(text).split('\n').forEach((line, i) => {
    for (const match of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)) found.push({ target: match[1]!, line: i + 1 });
  });
  return found;
}

/**
 * The rows of the first table after the heading `heading` (its exact text),
 * each as its cells with surrounding spaces trimmed; the header and the rule
 * line are left out.
 */
export function tableRows(text: string, heading: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ +/, '') === heading);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const rows: string[][] = [];
  let i = start + 1;
  while (i < lines.length && !lines[i]!.startsWith('|')) {
    if (/^#{1,6} /.test(lines[i]!)) throw new Error(`no table under "${heading}"`);
    i++;
  }
  for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    rows.push(lines[i]!.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
  }
  return rows;
}

/** The text of the single `inline code` span a table cell holds, or undefined when it holds something else. */
export function codeCell(cell: string): string | undefined {
  return /^`([^`]+)`$/.exec(cell)?.[1];
}
