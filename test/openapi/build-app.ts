/**
 * Builds the real Express app with main.ts's own wiring (`createServices`,
 * a real SQLite store and sealer), without listening and without the lean
 * path in front: the drift test walks its routes, and route-owners.test.ts
 * asks it alone which routes it answers, which a running node does not expose.
 */
import { randomUUID } from 'node:crypto';
import type express from 'express';
import { loadConfig } from '../../src/base/config';
import { createApp } from '../../src/http/app';
import { silentLogger } from '../../src/base/log';
import { createServices } from '../../src/main';
import { createReadModel, type ReadModel } from '../../src/read-model/read-model';
import { openStore } from '../../src/store/open-store';
import { loadMasterKey } from '../../src/vault/master-key';
import { createSealer } from '../../src/vault/seal';
import { testEnv } from '../support/node';

export async function buildApp(dataDir: string): Promise<{ app: express.Express; readModel: ReadModel; close(): Promise<void> }> {
  const config = loadConfig(testEnv(dataDir));
  const master = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir });
  const sealer = await createSealer(master.key);
  const store = await openStore(config.eventStore, silentLogger);
  const readModel = createReadModel();
  const services = createServices({
    config, store, sealer, readModel, logger: silentLogger, runtime: { now: () => new Date(), newId: randomUUID },
  });
  return {
    app: createApp(services),
    readModel,
    close: async () => {
      await store.close();
      sealer.dispose();
    },
  };
}
