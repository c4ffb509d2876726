/**
 * Change requests and protections (docs/change-requests.md). Opening,
 * revising, submitting, withdrawing and applying take the admin scope;
 * approving and rejecting the approve scope; reading and commenting either.
 * A request's ETag is its revision: an approval names it in If-Match. Its
 * impact report and test results, and the test-case set, are read by either.
 */
import { Router, type Request, type Response } from 'express';
import { AppError } from '../../base/errors';
import { parseIfMatch, readQuery } from '../../domain/input';
import { changeRequestOf } from '../../domain/change-requests';
import { CHANGE_REQUESTS_ROUTE } from '../../domain/protection';
import type { Scope } from '../../events';
import { CHANGE_REQUEST_FILTERS } from '../../service/change-request-queries';
import { PAGE_PARAMS } from '../../service/listing';
import { sendVersioned } from '../admin-request';
import { actorOf, authorizeRequest, param, type HttpDeps } from '../deps';

const READERS: readonly Scope[] = ['admin', 'approve'];

export function changeRequestsRouter(deps: HttpDeps): Router {
  const router = Router();
  const { changeRequests: commands, changeRequestQueries: queries } = deps;
  const base = CHANGE_REQUESTS_ROUTE;
  /** The caller (401/403 for `scope`), the query parameters the route takes, If-Match on a write. */
  const caller = (req: Request, res: Response, scope: Scope | readonly Scope[], parameters: readonly string[] = []) => {
    const principal = authorizeRequest(deps, req, res, scope);
    const query = readQuery(req.query, parameters);
    return { actor: actorOf(principal, res), query, ifMatch: req.method === 'GET' ? undefined : parseIfMatch(req.get('if-match')) };
  };
  const id = (req: Request) => param(req, 'id');

  router.post(base, async (req, res) => {
    const { actor } = caller(req, res, 'admin');
    sendVersioned(res, 201, await commands.openChangeRequest(req.body, actor));
  });
  router.get(base, (req, res) => {
    const { query } = caller(req, res, READERS, [...PAGE_PARAMS, ...CHANGE_REQUEST_FILTERS]);
    res.json(queries.listChangeRequests(query));
  });
  router.get(`${base}/:id`, async (req, res) => {
    // As of a past point it folds the log as audit evaluate does: the auditor's scope, and no ETag (nothing approves a past revision).
    const { query } = caller(req, res, req.query.as_of === undefined ? READERS : 'admin', ['as_of']);
    if (query.as_of === undefined) return sendVersioned(res, 200, await queries.getChangeRequest(id(req)));
    res.json(queries.changeRequestAsOf(id(req), await deps.audit.stateAsOf(query.as_of)));
  });
  router.get(`${base}/:id/history`, async (req, res) => {
    const { query } = caller(req, res, READERS, PAGE_PARAMS);
    res.json(await queries.changeRequestHistory(id(req), query));
  });
  // What the request would do (docs/change-requests.md#impact-and-test-cases): read by its approvers before they approve.
  router.get(`${base}/:id/impact`, async (req, res) => {
    const { query } = caller(req, res, READERS, ['since', 'until']);
    res.json(await deps.changeRequestChecks.impact(changeRequestOf(deps.readModel.state.changeControl, id(req)), query));
  });
  router.get(`${base}/:id/test-results`, async (req, res) => {
    caller(req, res, READERS);
    res.json(await deps.changeRequestChecks.testResults(changeRequestOf(deps.readModel.state.changeControl, id(req))));
  });
  router.patch(`${base}/:id`, async (req, res) => {
    const { actor, ifMatch } = caller(req, res, 'admin');
    sendVersioned(res, 200, await commands.reviseChangeRequest(id(req), req.body, ifMatch, actor));
  });
  router.post(`${base}/:id/submit`, async (req, res) => {
    const { actor } = caller(req, res, 'admin');
    sendVersioned(res, 200, await commands.submitChangeRequest(id(req), actor));
  });
  router.post(`${base}/:id/approve`, async (req, res) => {
    const { actor, ifMatch } = caller(req, res, 'approve');
    sendVersioned(res, 200, await commands.approveChangeRequest(id(req), req.body, ifMatch, actor));
  });
  router.post(`${base}/:id/reject`, async (req, res) => {
    const { actor } = caller(req, res, 'approve');
    sendVersioned(res, 200, await commands.rejectChangeRequest(id(req), req.body, actor));
  });
  router.post(`${base}/:id/withdraw`, async (req, res) => {
    const { actor } = caller(req, res, 'admin');
    sendVersioned(res, 200, await commands.withdrawChangeRequest(id(req), req.body, actor));
  });
  router.post(`${base}/:id/comments`, async (req, res) => {
    const { actor } = caller(req, res, READERS);
    sendVersioned(res, 201, await commands.commentChangeRequest(id(req), req.body, actor));
  });
  router.post(`${base}/:id/apply`, async (req, res) => {
    const { actor } = caller(req, res, 'admin');
    sendVersioned(res, 200, await commands.applyChangeRequest(id(req), actor));
  });
  router.post(`${base}/:id/revert`, async (req, res) => {
    const { actor } = caller(req, res, 'admin');
    sendVersioned(res, 201, await commands.revertChangeRequest(id(req), actor));
  });

  // Set only by an applied request's set-test-cases: there is no direct write (ADR 0067).
  router.get('/api/test-cases', (req, res) => {
    caller(req, res, READERS);
    res.json(queries.getTestCases());
  });
  router.get('/api/protections', (req, res) => {
    caller(req, res, READERS);
    res.json(queries.listProtections());
  });
  router.put('/api/protections', async (req, res) => {
    const { actor } = caller(req, res, 'admin');
    res.json(await commands.protect(req.body, actor));
  });
  // Unprotecting is a change like any other: only an approved request's `unprotect` does it.
  router.delete('/api/protections', (req, res) => {
    caller(req, res, 'admin');
    throw new AppError('protected', `a protection is removed only by an approved change request: open one with the change ` +
      `{"op": "unprotect", "resource": {...}} (POST ${base})`);
  });
  return router;
}
