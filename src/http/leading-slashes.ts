/**
 * `//api/...` is `/api/...`: clients join a base URL that ends in `/` with a
 * path that starts with one (`http://host:3000/` + `/api/prompt/get-compiled`).
 * Applied to every request before either HTTP path sees it (main.ts), so
 * every route, its log line and its metrics label see the collapsed path.
 * Only leading slashes: a `//` inside a path is still another path.
 */
import type { IncomingMessage } from 'node:http';

export function collapseLeadingSlashes(req: IncomingMessage): void {
  const url = req.url;
  if (url !== undefined && url.startsWith('//')) req.url = url.replace(/^\/+/, '/');
}
