/**
 * The service's periodic checkpoints of the hash chain: every `every` events
 * after the last checkpoint it has seen, once the node has caught up, it signs
 * the newest link it applied and appends the checkpoint. It watches the events
 * the node applies anyway (no second reading of the log). A failed write is
 * logged and retried at the next event; a checkpoint never holds a write up.
 */
import type { Logger } from '../log';
import { headOf, splitMetadata, type ChainHead } from '../store/chain';
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
  let head: ChainHead | undefined;
  let started = false;
  let stopped = false;
  let writing: Promise<void> | undefined;

  const maybeWrite = (): void => {
    if (!started || stopped || writing !== undefined || head === undefined || opts.every === 0 || since < opts.every) return;
    const signed = head;
    writing = writeCheckpoint({ store: opts.store, key: opts.key, head: signed, actor: 'system', at: opts.now().toISOString(), requestId: opts.requestId() })
      .then(
        ({ position }) => opts.logger.info('chain checkpoint written', { seq: signed.seq, position: position.toString() }),
        (error: Error) => opts.logger.warn('chain checkpoint not written; retrying at the next event', { error: error.message }),
      )
      .finally(() => {
        writing = undefined;
      });
  };

  return {
    observe(event) {
      const { link } = splitMetadata(event.metadata);
      if (link === undefined) return;
      head = headOf(link);
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
