/** The read-model records the projections build, one per resource. */
import type {
  ContextBody, EntityType, PromptAttributes, RuleBody, Scope, SealedCanary, SealedValue,
} from '../src/events';
import type { PromptTemplate } from '../src/prompts/template';
import type { Json } from '../src/store/port';

/** Who and when of a resource, and where its stream stands. */
export interface Provenance {
  readonly created_by: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** Revision of the resource's stream after its last event. */
  readonly revision: bigint;
  /** Global position of its last event. */
  readonly position: bigint;
}

export type RuleRecord = { readonly id: string } & RuleBody & Provenance;
export type ContextRecord = { readonly id: string } & ContextBody & Provenance;

export interface PromptVersion {
  readonly version: string;
  /** A text version's template; '' for a chat version. */
  readonly template: string;
  /** The template, parsed on first use and compiled on first render (src/prompts/template.ts). */
  readonly compiled: PromptTemplate | undefined;
  /** A chat version's messages, each content wrapped like `compiled`. */
  readonly messages?: readonly PromptMessageRecord[];
  readonly config?: { readonly [key: string]: Json };
  readonly created_by: string;
  readonly created_at: string;
}

export interface PromptMessageRecord {
  readonly role: string;
  readonly content: string;
  readonly compiled: PromptTemplate | undefined;
}

export type PromptRecord = { readonly id: string } & PromptAttributes & Provenance & {
  /** Ascending by semantic version; the last is the latest. */
  readonly versions: readonly PromptVersion[];
  /** The labels moved by admin calls (`production`, custom ones), each naming a version; `latest` is implicit. */
  readonly labels: { readonly [label: string]: string };
};

export interface SecretRecord extends Provenance {
  readonly id: string;
  readonly key: string;
  readonly tags: readonly string[];
  /** Bumped by every update. */
  readonly version: number;
  /** The version the current value was sealed for (its AEAD binding). */
  readonly value_version: number;
  readonly sealed: SealedValue;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly secret_tags: readonly string[];
  readonly key_hash: string;
  readonly created_by: string;
  readonly created_at: string;
  readonly revision: bigint;
}

export interface KeyringState {
  /** The canary of the current master key; undefined before enrolment. */
  readonly canary: SealedCanary | undefined;
}

export type EntityKey = `${EntityType}:${string}`;
