/**
 * Every event RuleVault writes, one discriminated union per stream family.
 * Where an event is defined: here. Where it is applied: projections/.
 * Where it is decided: src/domain/.
 */
import { STREAM_PREFIXES } from '../store/owned-streams';
import type { EventMetadata, Json, RecordedEvent } from '../store/port';
import type { ApiKeyEvent } from './api-key-events';
import type { ChangeRequestEvent, ProtectionEvent, TestCaseEvent } from './change-request-events';
import type { ContextEvent } from './context-events';
import type { PromptEvent } from './prompt-events';
import type { RuleEvent } from './rule-events';
import type { KeyringEvent, SecretEvent } from './secret-events';

export * from './api-key-events';
export * from './change-request-events';
export * from './context-events';
export * from './prompt-events';
export * from './rule-events';
export * from './secret-events';

export type DomainEvent = RuleEvent | ContextEvent | PromptEvent | SecretEvent | KeyringEvent | ApiKeyEvent | ChangeRequestEvent | ProtectionEvent | TestCaseEvent;
export type DomainEventType = DomainEvent['type'];

/** A domain event as read back from the log. */
export type StoredEvent<E extends DomainEvent = DomainEvent> = E & {
  readonly stream: string;
  readonly revision: bigint;
  readonly position: bigint;
  readonly metadata: EventMetadata;
};

/** Current schema version of each event type's data (metadata.schema). */
export const SCHEMA_VERSION = 1;

export { STREAM_PREFIXES };
export const KEYRING_STREAM = 'vault-keyring';
/** Every ResourceProtected, ResourceUnprotected and BreakGlassUsed: one stream, so protecting is ordered against itself. */
export const PROTECTIONS_STREAM = 'protections';

export const streams = {
  rule: (id: string) => `rule-${id}`,
  context: (id: string) => `context-${id}`,
  prompt: (id: string) => `prompt-${id}`,
  secret: (id: string) => `secret-${id}`,
  apiKey: (id: string) => `apikey-${id}`,
  changeRequest: (id: string) => `change-request-${id}`,
} as const;

const KNOWN_TYPES: ReadonlySet<string> = new Set<DomainEventType>([
  'RuleCreated', 'RuleUpdated', 'RuleDeleted',
  'ContextCreated', 'ContextUpdated', 'ContextDeleted',
  'PromptCreated', 'PromptVersionAdded', 'PromptUpdated', 'PromptLabelMoved', 'PromptLabelRemoved', 'PromptDeleted',
  'SecretCreated', 'SecretUpdated', 'SecretRewrapped', 'SecretDeleted',
  'MasterKeyEnrolled', 'MasterKeyRotated',
  'ApiKeyCreated', 'ApiKeyRevoked',
  'ChangeRequestOpened', 'ChangeRequestRevised', 'ChangeRequestSubmitted', 'ChangeRequestApproved', 'ChangeRequestRejected',
  'ChangeRequestWithdrawn', 'ChangeRequestCommented', 'ChangeRequestApplying', 'ChangeRequestApplied', 'ChangeRequestStale',
  'ResourceProtected', 'ResourceUnprotected', 'BreakGlassUsed',
  'TestCasesSet',
]);

/** True for streams RuleVault owns (a shared EventStoreDB may hold others). */
export function isOwnStream(stream: string): boolean {
  return STREAM_PREFIXES.some((prefix) => stream.startsWith(prefix));
}

/** Narrows a recorded event to a domain event; unknown types are skipped by projections. */
export function isDomainEventType(type: string): type is DomainEventType {
  return KNOWN_TYPES.has(type);
}

/**
 * The one place a recorded event becomes the typed union: undefined for a type
 * RuleVault does not write (the folds skip those). The type name is checked;
 * the data's shape is trusted, since only the deciders in src/domain write it
 * (stamped with SCHEMA_VERSION) and an imported log replays through the same
 * folds. Switch on the result's `type` to narrow it to one family.
 */
export function decodeEvent(recorded: RecordedEvent): StoredEvent | undefined {
  return isDomainEventType(recorded.type) ? (recorded as unknown as StoredEvent) : undefined;
}

/** The inverse of decodeEvent for the data: event data is plain JSON by construction (readonly interfaces lack the index signature). */
export function encodeEventData(event: DomainEvent): { readonly [key: string]: Json } {
  return event.data as unknown as { readonly [key: string]: Json };
}
