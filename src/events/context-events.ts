/** Events of the `context-<id>` streams. */
import type { Json } from '../store/port';
import type { Status } from './rule-events';

export interface ContextBody {
  readonly name: string;
  readonly description: string;
  readonly content: string;
  readonly tags: readonly string[];
  readonly meta_properties: { readonly [key: string]: Json };
  readonly status: Status;
}

export type ContextEvent =
  | { readonly type: 'ContextCreated'; readonly data: { readonly id: string } & ContextBody }
  | { readonly type: 'ContextUpdated'; readonly data: { readonly id: string; readonly changes: Partial<ContextBody> } }
  | { readonly type: 'ContextDeleted'; readonly data: { readonly id: string } };
