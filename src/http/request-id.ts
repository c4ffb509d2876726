import { timeOrderedId } from '../base/uuid';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane, otherwise undefined (one is minted: `mintRequestId`). */
export function callerRequestId(given: string | string[] | undefined): string | undefined {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : undefined;
}

/**
 * A request id RuleVault mints: a UUID version 7, like decision ids, so an
 * evaluate answer's minted request id can be its decision id too
 * (public-endpoints.ts) and ids in the log sort by time.
 */
export function mintRequestId(): string {
  return timeOrderedId(Date.now());
}
