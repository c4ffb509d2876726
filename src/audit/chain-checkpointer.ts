/**
 * The service's periodic checkpoints of the hash chain: every `every` events
 * after the last checkpoint it has seen, once the node has caught up, it signs
 * the newest link it applied and appends the checkpoint. It watches the events
 * the node applies anyway (no second reading of the log). A failed write is
 * logged and retried at the next event; a checkpoint never holds a write up.
 */
import type { Logger } from '../base/log';
import { asLink, headOf } from '../store/chain';
import type { EventStore, RecordedEvent } from '../store/port';
import type { SigningKey } from '../vault/signing-key';
import { CHECKPOINT_STREAM, writeCheckpoint } from './chain-checkpoint';

export interface ChainCheckpointer {
  /** Every applied event, in log order. */
  observe(event: RecordedEvent): void;
  /** The node caught up: checkpoints may be written from now on. */
  start(): void;
  /** Waits for a checkpoint being written; writes no more. */
  stop(): Promise<void>;
}

export function createChainCheckpointer(opts: {
  readonly store: EventStore;
  readonly key: SigningKey;
  /** Events between checkpoints; 0: never. */
  readonly every: number;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly requestId: () => string;
}): ChainCheckpointer {
  let since = 0;
  // The newest applied event's `metadata.chain` (checked only when a checkpoint is due: observe
  // runs for every event of a cold start), and where that event is. The embedded store's
  // read-ahead delivers a long catch-up without links (sqlite-read-ahead.ts): then the newest
  // event is read back, once, when a checkpoint is due.
  let newest: unknown;
  let newestAt: bigint | undefined;
  let beforeNewest: bigint | undefined;
  // The newest event, read back, had no link: a log written before the chain; wait for a linked one.
  let unlinked = false;
  let started = false;
  let stopped = false;
  let writing: Promise<void> | undefined;

  const readBack = async (at: bigint, before: bigint | undefined): Promise<unknown> => {
    const [event] = await opts.store.readAll({ after: before, limit: 1 });
    return event?.position === at ? (event.metadata as { readonly chain?: unknown }).chain : undefined;
  };

  const maybeWrite = (): void => {
    if (!started || stopped || writing !== undefined || unlinked || newestAt === undefined || opts.every === 0 || since < opts.every) return;
    const [chain, at, before] = [newest, newestAt, beforeNewest];
    writing = (async () => {
      const link = asLink(chain ?? (await readBack(at, before)));
      if (link === undefined) {
        unlinked = true;
        return;
      }
      const signed = headOf(link);
      const { position } = await writeCheckpoint({ store: opts.store, key: opts.key, head: signed, actor: 'system', at: opts.now().toISOString(), requestId: opts.requestId() });
      opts.logger.info('chain checkpoint written', { seq: signed.seq, position: position.toString() });
    })()
      .catch((error: Error) => opts.logger.warn('chain checkpoint not written; retrying at the next event', { error: error.message }))
      .finally(() => {
        writing = undefined;
      });
  };

  return {
    observe(event) {
      newest = (event.metadata as { readonly chain?: unknown }).chain;
      beforeNewest = newestAt;
      newestAt = event.position;
      if (newest !== undefined) unlinked = false;
      since = event.stream === CHECKPOINT_STREAM ? 0 : since + 1;
      maybeWrite();
    },
    start() {
      started = true;
      maybeWrite();
    },
    async stop() {
      stopped = true;
      await writing;
    },
  };
}
