/**
 * Builds the real Express app the way src/main.ts does (real SQLite store,
 * real sealer), without listening: the drift test needs the app object to
 * walk its routes, which a running node does not expose.
 */
import { randomUUID } from 'node:crypto';
import type express from 'express';
import { loadConfig } from '../../src/config';
import { createApp } from '../../src/http/app';
import { silentLogger } from '../../src/log';
import { createMetrics } from '../../src/metrics';
import { createReadModel } from '../../src/read-model';
import { createApiKeyCommands } from '../../src/service/api-key-commands';
import { createCatalogCommands } from '../../src/service/catalog-commands';
import { createCommandBus } from '../../src/service/command-bus';
import { createQueries } from '../../src/service/queries';
import { createVaultCommands } from '../../src/service/vault-commands';
import { openStore } from '../../src/store/open-store';
import { loadMasterKey } from '../../src/vault/master-key';
import { createSealer } from '../../src/vault/seal';
import { testEnv } from '../support/node';

export async function buildApp(dataDir: string): Promise<{ app: express.Express; close(): Promise<void> }> {
  const config = loadConfig(testEnv(dataDir));
  const master = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir });
  const sealer = await createSealer(master.key);
  const store = await openStore(config.eventStore);
  const readModel = createReadModel();
  const runtime = { now: () => new Date(), newId: randomUUID };
  const bus = createCommandBus(store, readModel, runtime);
  const app = createApp({
    config,
    readModel,
    catalog: createCatalogCommands({ bus, readModel, runtime, maxRegexLength: config.limits.maxRegexLength }),
    vault: createVaultCommands({ bus, store, readModel, runtime, sealer }),
    apiKeys: createApiKeyCommands({ bus, readModel, runtime }),
    queries: createQueries(store, readModel),
    sealer,
    logger: silentLogger,
    metrics: createMetrics(readModel, store),
  });
  return {
    app,
    close: async () => {
      await store.close();
      sealer.dispose();
    },
  };
}
