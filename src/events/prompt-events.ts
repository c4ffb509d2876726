/** Events of the `prompt-<id>` streams. A prompt is a series of template versions. */
import type { Json } from '../store/port';
import type { Status } from './rule-events';

export interface PromptAttributes {
  readonly name: string;
  readonly tags: readonly string[];
  readonly meta_properties: { readonly [key: string]: Json };
  readonly status: Status;
}

export type PromptEvent =
  | {
      readonly type: 'PromptCreated';
      readonly data: { readonly id: string; readonly version: string; readonly template: string } & PromptAttributes;
    }
  | { readonly type: 'PromptVersionAdded'; readonly data: { readonly id: string; readonly version: string; readonly template: string } }
  | { readonly type: 'PromptUpdated'; readonly data: { readonly id: string; readonly changes: Partial<PromptAttributes> } }
  | { readonly type: 'PromptDeleted'; readonly data: { readonly id: string } };
