/**
 * The read models as folds over the log: `evolve(state, event) => state`.
 *
 * Folds are deterministic and free of I/O, time and randomness: the same log
 * always yields the same state, live or in an audit replay. For speed at
 * millions of events they update the state they are handed and return it:
 * the caller owns the state and hands it over (see src/read-model/read-model/read-model.ts, which
 * applies each event synchronously so no request sees half a change).
 */
import { decodeEvent } from '../src/events';
import type { RecordedEvent } from '../src/store/port';
import { evolveApiKeys, initialApiKeys, type ApiKeysState } from './api-keys';
import { evolveChangeControl, initialChangeControl, type ChangeControlState } from './change-control';
import { evolveContexts, type ContextsState } from './contexts';
import { evolvePrompts, initialPrompts, type PromptsState } from './prompts';
import { evolveRules, type RulesState } from './rules';
import { evolveVault, initialVault, type VaultState } from './secrets';

export type * from './records';
export type { ApiKeysState } from './api-keys';
export { resourceKey, REQUEST_STATES, type Approval, type ChangeControlState, type ChangeRequestRecord, type ProtectionRecord, type RequestComment, type RequestState, type TestCaseSetRecord } from './change-control';
export type { VaultState } from './secrets';
export { copySize, copyState, copyStateSteps, DigestList, digestMembers, LINES_MEMBERS, restoreState, snapshotMembers, type DigestCounts, type SnapshotMembers } from './read-models';
export { RawJson, type JsonLines, type LineKeeper } from './json-lines';
export { copyRules, foldedMention, LazyRuleRecords, linksEntity, mayHold, readRulesAhead, rulesLinking, rulesWhere, runRepacksWith, unreadRuleChars, unreadRules, unreadRuleTexts, type RepackStep } from './lazy-rules';
export type { RulesState } from './rules';

/** The read models, each with its entry in the registry (read-models.ts). */
export interface ReadModels {
  readonly rules: RulesState;
  readonly contexts: ContextsState;
  readonly prompts: PromptsState;
  readonly vault: VaultState;
  readonly apiKeys: ApiKeysState;
  /** Protections and change requests. */
  readonly changeControl: ChangeControlState;
}

export interface CatalogState extends ReadModels {
  /** Position of the last event applied; undefined before the first. */
  position: bigint | undefined;
}

export function initialState(): CatalogState {
  return {
    position: undefined,
    rules: new Map(),
    contexts: new Map(),
    prompts: initialPrompts(),
    vault: initialVault(),
    apiKeys: initialApiKeys(),
    changeControl: initialChangeControl(),
  };
}

/** Applies one event from the log. Unknown event types only advance the position. */
export function evolve(state: CatalogState, recorded: RecordedEvent): CatalogState {
  state.position = recorded.position;
  const event = decodeEvent(recorded);
  switch (event?.type) {
    case undefined:
      return state;
    case 'RuleCreated':
    case 'RuleUpdated':
    case 'RuleDeleted':
      evolveRules(state.rules, event);
      return state;
    case 'ContextCreated':
    case 'ContextUpdated':
    case 'ContextDeleted':
      evolveContexts(state.contexts, event);
      return state;
    case 'PromptCreated':
    case 'PromptVersionAdded':
    case 'PromptUpdated':
    case 'PromptLabelMoved':
    case 'PromptLabelRemoved':
    case 'PromptDeleted':
      evolvePrompts(state.prompts, event);
      return state;
    case 'SecretCreated':
    case 'SecretUpdated':
    case 'SecretRewrapped':
    case 'SecretDeleted':
    case 'MasterKeyEnrolled':
    case 'MasterKeyRotated':
      evolveVault(state.vault, event);
      return state;
    case 'ApiKeyCreated':
    case 'ApiKeyRevoked':
      evolveApiKeys(state.apiKeys, event);
      return state;
    case 'ChangeRequestOpened':
    case 'ChangeRequestRevised':
    case 'ChangeRequestSubmitted':
    case 'ChangeRequestApproved':
    case 'ChangeRequestRejected':
    case 'ChangeRequestWithdrawn':
    case 'ChangeRequestCommented':
    case 'ChangeRequestApplying':
    case 'ChangeRequestApplied':
    case 'ChangeRequestStale':
    case 'ResourceProtected':
    case 'TestCasesSet':
    case 'ResourceUnprotected':
    case 'BreakGlassUsed':
      evolveChangeControl(state.changeControl, event);
      return state;
  }
}
