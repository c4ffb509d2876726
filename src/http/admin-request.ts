/**
 * What every admin route does first: authenticate and check the admin scope,
 * refuse query parameters the route does not take, read If-Match; and how a
 * single resource is answered: with its revision as a strong ETag.
 */
import type { Request, Response } from 'express';
import { parseIfMatch, readQuery, type IfMatch } from '../domain/input';
import type { Actor } from '../service/command-bus';
import { actorOf, authorizeRequest, type HttpDeps } from './deps';

export interface AdminRequest {
  readonly actor: Actor;
  /** The query parameters the route takes, each given once. */
  readonly query: { readonly [name: string]: string };
  /** The If-Match precondition of a write; undefined on reads and when absent. */
  readonly ifMatch: IfMatch | undefined;
}

/** 401/403 for the caller, then 400 for a query parameter not in `queryParameters` or a malformed If-Match. */
export function adminRequest(deps: HttpDeps, req: Request, res: Response, queryParameters: readonly string[] = []): AdminRequest {
  const principal = authorizeRequest(deps, req, res, 'admin');
  const query = readQuery(req.query, queryParameters);
  const ifMatch = req.method === 'GET' ? undefined : parseIfMatch(req.get('if-match'));
  return { actor: actorOf(principal, res), query, ifMatch };
}

/** Answers one resource with `ETag: "<revision>"`, the value If-Match takes back. */
export function sendVersioned(res: Response, status: number, resource: { readonly revision: string }): void {
  res.status(status).set('ETag', `"${resource.revision}"`).json(resource);
}
