/**
 * Events of the `prompt-<id>` streams. A prompt is a series of versions, each
 * a text template or a chat (an ordered list of messages, each content a
 * template), with labels naming versions.
 *
 * Shape history: `config` and `messages` on PromptCreated and
 * PromptVersionAdded are optional members added later; an event without them
 * is a text version without a config. A chat version's `template` is '' (its
 * templates are the messages' contents).
 */
import type { Json } from '../store/port';
import type { Status } from './rule-events';

export interface PromptAttributes {
  readonly name: string;
  readonly tags: readonly string[];
  readonly meta_properties: { readonly [key: string]: Json };
  readonly status: Status;
}

/** One message of a chat prompt; `content` is a template. */
export interface PromptMessage {
  readonly role: string;
  readonly content: string;
}

/** What a version holds besides its number. */
export interface PromptVersionBody {
  readonly template: string;
  /** Present on a chat version only. */
  readonly messages?: readonly PromptMessage[];
  /** Model settings (model, temperature, tools, ...), stored and returned as given. */
  readonly config?: { readonly [key: string]: Json };
}

export type PromptEvent =
  | {
      readonly type: 'PromptCreated';
      readonly data: { readonly id: string; readonly version: string } & PromptVersionBody & PromptAttributes;
    }
  | { readonly type: 'PromptVersionAdded'; readonly data: { readonly id: string; readonly version: string } & PromptVersionBody }
  | { readonly type: 'PromptUpdated'; readonly data: { readonly id: string; readonly changes: Partial<PromptAttributes> } }
  /** A label (`production` or a custom one; never `latest`) now names `version`; `previous` is the version it named, or null. */
  | { readonly type: 'PromptLabelMoved'; readonly data: { readonly id: string; readonly label: string; readonly version: string; readonly previous: string | null } }
  /** A custom label was taken off the version it named. */
  | { readonly type: 'PromptLabelRemoved'; readonly data: { readonly id: string; readonly label: string; readonly previous: string } }
  | { readonly type: 'PromptDeleted'; readonly data: { readonly id: string } };
