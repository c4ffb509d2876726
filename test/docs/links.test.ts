/**
 * Every relative link and anchor in the README, CONTRIBUTING and docs/
 * resolves: the file or folder exists, and a `#anchor` names a heading of the
 * page it points into (as GitHub anchors headings).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { anchors, documentationFiles, links, readDoc, REPO } from './markdown';

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

t.test('every relative link and anchor of the documentation resolves', async (t) => {
  const pages = documentationFiles();
  t.ok(pages.length >= 15, `the documentation's pages (${pages.length})`);
  const anchorsOf = new Map<string, Set<string>>();
  const pageAnchors = (file: string): Set<string> => {
    let found = anchorsOf.get(file);
    if (found === undefined) anchorsOf.set(file, (found = anchors(readDoc(file))));
    return found;
  };
  let checked = 0;
  for (const page of pages) {
    for (const { target, line } of links(readDoc(page))) {
      if (EXTERNAL.test(target)) continue;
      checked++;
      const [file = '', anchor] = target.split('#', 2) as [string, string | undefined];
      const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), decodeURIComponent(file)));
      const where = `${page}:${line} → ${target}`;
      if (resolved.startsWith('..') || !existsSync(path.join(REPO, resolved))) {
        t.fail(`${where}: ${resolved} does not exist`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!resolved.endsWith('.md') || statSync(path.join(REPO, resolved)).isDirectory()) {
        t.fail(`${where}: an anchor into something that is not a page`);
        continue;
      }
      t.ok(pageAnchors(resolved).has(anchor), `${where}: ${resolved} has a heading #${anchor}`);
    }
  }
  t.ok(checked > 100, `relative links checked (${checked})`);
});

t.test('the anchors are GitHub\'s', async (t) => {
  // The cases the pages rely on: code, punctuation, apostrophes, a repeated heading.
  t.same([...anchors('# A `code` (CORS)\n## OpenLIT\'s route\n### `POST /api/vault/get-secrets` (scope `secrets:read`)\n## Same\n## Same\n```sh\n# not a heading\n```\n')],
    ['a-code-cors', 'openlits-route', 'post-apivaultget-secrets-scope-secretsread', 'same', 'same-1']);
});
