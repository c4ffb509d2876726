/** Follows the log into a read model until caught up: for tools that work beside (or without) the service. */
import { createReadModel, type ReadModel } from './read-model';
import type { EventStore, Subscription } from '../store/port';

export interface FollowedLog {
  readonly readModel: ReadModel;
  close(): Promise<void>;
}

/** Subscribes from the start of the log; resolves once the read model has caught up. */
export async function followLog(store: EventStore): Promise<FollowedLog> {
  const readModel = createReadModel();
  let subscription: Subscription | undefined;
  await new Promise<void>((resolve, reject) => {
    subscription = store.subscribe(undefined, {
      onEvent: (event) => readModel.apply(event),
      onCaughtUp: () => {
        readModel.markCaughtUp();
        resolve();
      },
      onError: reject,
    });
  });
  return { readModel, close: async () => subscription?.close() };
}
