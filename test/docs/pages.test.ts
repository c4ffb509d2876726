/**
 * The shape issue 63 asked of the documentation, kept: a README of at most 300
 * lines that links every page; every page opens with who it is for; every
 * decision record is linked from a page it applies to; and no line outside
 * docs/performance.md's table of current figures carries a date (dated runs
 * live in bench/HISTORY.md only).
 */
import path from 'node:path';
import t from 'tap';
import { documentationFiles, links, readDoc, withoutCode } from './markdown';

const DECISION = /^docs\/decisions\/\d{4}-[a-z0-9-]+\.md$/;
const pages = documentationFiles();

t.test('the README is a front page of at most 300 lines that links every page under docs/', async (t) => {
  const readme = readDoc('README.md');
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  t.ok(lines <= 300, `README.md has ${lines} lines`);
  const linked = new Set(links(readme).map(({ target }) => target.split('#')[0]));
  for (const page of pages.filter((file) => /^docs\/[^/]+\.md$/.test(file))) {
    t.ok(linked.has(page), `the README links ${page}`);
  }
  t.ok(linked.has('CONTRIBUTING.md'), 'and CONTRIBUTING.md');
});

t.test('every page opens with who it is for and what it covers', async (t) => {
  for (const page of pages.filter((file) => file !== 'README.md' && !DECISION.test(file))) {
    const [title, blank, opening] = readDoc(page).split('\n');
    t.match(title, /^# \S/, `${page} starts with its title`);
    t.equal(blank, '', page);
    t.match(opening, /^\*For \S/, `${page} opens with "*For ..."`);
  }
});

t.test('every decision record has its three sections and is linked from a page it applies to', async (t) => {
  const records = pages.filter((file) => DECISION.test(file));
  t.ok(records.length >= 20, `decision records (${records.length})`);
  const linkedFrom = new Map<string, Set<string>>();
  for (const page of pages.filter((file) => !file.startsWith('docs/decisions/'))) {
    for (const { target } of links(readDoc(page))) {
      const file = path.normalize(path.join(path.dirname(page), target.split('#')[0]!));
      linkedFrom.set(file, (linkedFrom.get(file) ?? new Set()).add(page));
    }
  }
  records.forEach((record, i) => {
    const text = readDoc(record);
    t.match(text, new RegExp(`^# ${path.basename(record).slice(0, 4)}\\. \\S[\\s\\S]*\\n## Context\\n[\\s\\S]+\\n## Decision\\n[\\s\\S]+\\n## Consequences\\n\\n\\S`), `${record}: title, Context, Decision, Consequences`);
    t.equal(Number(path.basename(record).slice(0, 4)), i + 1, `${record} is numbered in sequence`);
    t.ok((linkedFrom.get(record)?.size ?? 0) > 0, `${record} is linked from a page (${[...(linkedFrom.get(record) ?? [])].join(', ')})`);
  });
});

t.test('no date outside docs/performance.md\'s table of current figures', async (t) => {
  const date = /\b20\d\d-[01]\d-[0-3]\d\b/;
  let figures = 0;
  for (const page of pages) {
    withoutCode(readDoc(page)).split('\n').forEach((line, i) => {
      if (!date.test(line)) return;
      if (page === 'docs/performance.md' && line.startsWith('| ')) figures++;
      else t.fail(`${page}:${i + 1} carries a date outside the table of current figures (dated runs go in bench/HISTORY.md): ${line.trim().slice(0, 100)}`);
    });
  }
  t.ok(figures >= 10, `the table of current figures dates each of its rows (${figures})`);
});
