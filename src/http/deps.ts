/** What the HTTP layer is given by main.ts, and the per-request helpers every route uses. */
import type { Request, Response } from 'express';
import { authenticate, authorize, type Principal } from '../service/auth';
import { AppError } from '../base/errors';
import type { ChainAudit } from '../audit/chain-audit';
import type { RequestChecks } from '../audit/change-request-checks';
import type { DecisionLog } from '../audit/decision-log';
import type { ReadAudit } from '../audit/read-audit';
import type { AuditService } from '../audit/service';
import type { Config } from '../base/config';
import type { ErrorCode } from '../base/errors';
import type { Scope } from '../events';
import type { Logger } from '../base/log';
import type { Metrics } from './metrics';
import type { ReadModel } from '../read-model/read-model';
import type { ApiKeyCommands } from '../service/api-key-commands';
import type { CatalogCommands } from '../service/catalog-commands';
import type { ChangeRequestCommands } from '../service/change-request-commands';
import type { ChangeRequestQueries } from '../service/change-request-queries';
import { BREAK_GLASS_HEADER, readBreakGlassReason } from '../domain/protection';
import type { ChangeFeed } from '../service/change-feed';
import type { Actor } from '../service/command-bus';
import type { ImportCommands } from '../service/import';
import type { Queries } from '../service/queries';
import type { VaultCommands } from '../service/vault-commands';
import type { VaultProblem } from '../service/vault-health';
import type { Sealer } from '../vault/seal';

/** The objects whose methods write: a worker process forwards each call to the writer (src/cluster/forwarded.ts). */
export type WriteCommands = Pick<HttpDeps, 'catalog' | 'vault' | 'apiKeys' | 'imports' | 'chain' | 'changeRequests'>;

export interface HttpDeps {
  readonly config: Config;
  readonly readModel: ReadModel;
  readonly catalog: CatalogCommands;
  readonly vault: VaultCommands;
  readonly apiKeys: ApiKeyCommands;
  /** POST /api/import. */
  readonly imports: ImportCommands;
  /** Change requests and protections (docs/change-requests.md). */
  readonly changeRequests: ChangeRequestCommands;
  readonly changeRequestQueries: ChangeRequestQueries;
  /** A request's impact report and test results (src/audit/change-request-checks.ts). */
  readonly changeRequestChecks: RequestChecks;
  readonly queries: Queries;
  readonly sealer: Sealer;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly audit: AuditService;
  /** The live store's hash chain: verification runs and checkpoints on demand (src/audit/chain-audit.ts). */
  readonly chain: ChainAudit;
  /** The change stream's publisher (GET /api/rule-engine/stream). */
  readonly changeFeed: ChangeFeed;
  /** The server's time in ms: what an evaluate answer reads a split's rollout schedule at, and its decision records. */
  readonly clock: () => number;
  /** Decision ids and records of evaluate answers (src/audit/decision-log.ts). */
  readonly decisions: DecisionLog;
  /** The secret-read audit of get-secrets (src/audit/read-audit.ts). */
  readonly secretReads: ReadAudit;
  /** Why this process can no longer open its vault (a rotation it does not hold the key of), or undefined. */
  readonly vaultProblem: VaultProblem;
  /** With workers: GET /metrics answers for the whole service (every worker and the writer), not this process alone. */
  readonly serviceMetrics?: () => Promise<string>;
}

/** Per-request values the log line reads (express keeps them in res.locals). */
export interface RequestLocals {
  /** The lean path's route pattern (fast-path.ts), the request's label; on express, the router's (request-log.ts). */
  route?: string;
  keyId?: string;
  requestId?: string;
  /** True when RuleVault minted `requestId` (the caller sent none): an evaluate answer takes it as its decision id. */
  requestIdMinted?: boolean;
  /** An evaluate answer's decision id, sent as RuleVault-Decision-Id. */
  decisionId?: string;
  /**
   * On an endpoint answered 200 whatever happened (get-secrets, get-compiled: contract §1.2), what the
   * body said: null for `err: null`, else the error's code. The log line and the request metrics carry
   * it, since their status cannot tell a refusal from an answer (request-log.ts). Undefined elsewhere.
   */
  answerCode?: ErrorCode | null;
  /** What an express route's caller was authorized with, checked again before a read's answer goes out (live-key.ts). */
  access?: { readonly authorization: string | undefined; readonly scope: Scope | readonly Scope[] };
}

/** Authenticates an Authorization header and checks a scope (or one of several); throws 401/403 as AppError. */
export function authorizeHeader(deps: HttpDeps, authorization: string | undefined, locals: RequestLocals, scope: Scope | readonly Scope[]): Principal {
  const principal = authenticate(authorization, deps.readModel.state.apiKeys, deps.config.adminKeyHash);
  locals.keyId = principal.id;
  authorize(principal, scope);
  return principal;
}

/**
 * Why `authorization` no longer authenticates a key holding `scope` (the
 * 401 or 403 AppError), or undefined while it does: an answer that lasts, or
 * that is sent after awaited work, asks again (stream-endpoint.ts, live-key.ts).
 */
export function lostAuthorization(deps: HttpDeps, authorization: string | undefined, scope: Scope | readonly Scope[]): AppError | undefined {
  try {
    authorize(authenticate(authorization, deps.readModel.state.apiKeys, deps.config.adminKeyHash), scope);
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

/** True while `authorization` still authenticates a key holding `scope`. */
export function stillAuthorized(deps: HttpDeps, authorization: string | undefined, scope: Scope | readonly Scope[]): boolean {
  return lostAuthorization(deps, authorization, scope) === undefined;
}

/** Authenticates the caller of an express request and checks its scope. */
export function authorizeRequest(deps: HttpDeps, req: Request, res: Response, scope: Scope | readonly Scope[]): Principal {
  const locals = res.locals as RequestLocals;
  const principal = authorizeHeader(deps, req.headers.authorization, locals, scope);
  // Only here, on the express routes: the lean path's answers go out in the turn that checked the key (bench: http-evaluate).
  locals.access = { authorization: req.headers.authorization, scope };
  return principal;
}

export function actorOf(principal: Principal, res: Response): Actor {
  return actorFor(principal, res.locals.requestId as string, res.req.headers[BREAK_GLASS_HEADER]);
}

/**
 * The actor of a write: a RuleVault-Break-Glass header makes it a break-glass
 * write, which needs the break-glass scope (403) and a reason (400).
 */
export function actorFor(principal: Principal, requestId: string, breakGlass: string | string[] | undefined): Actor {
  if (breakGlass === undefined) return { id: principal.id, requestId };
  authorize(principal, 'break-glass');
  return { id: principal.id, requestId, breakGlass: readBreakGlassReason(Array.isArray(breakGlass) ? breakGlass.join(', ') : breakGlass) };
}

/** Route parameter as a string (Express 5 types allow arrays for wildcards). */
export function param(req: Request, name: string): string {
  const value = req.params[name];
  return Array.isArray(value) ? value.join('/') : String(value);
}
