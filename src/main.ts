/**
 * The composition root: reads the config, opens the store and the vault,
 * replays the log into the read models, and serves HTTP. `startNode` is what
 * tests and tools start in-process; running this file starts the service.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuditService } from './audit/service';
import { ConfigError, loadConfig, type Config } from './config';
import { createApp } from './http/app';
import type { HttpDeps } from './http/deps';
import { createFastPath } from './http/fast-path';
import { createLogger, type Logger } from './log';
import { createMetrics } from './metrics';
import { createReadModel, type ReadModel } from './read-model';
import { createApiKeyCommands } from './service/api-key-commands';
import { createCatalogCommands } from './service/catalog-commands';
import { createCommandBus, type Runtime } from './service/command-bus';
import { createQueries } from './service/queries';
import { createVaultCommands } from './service/vault-commands';
import { createSnapshotter, loadStartState } from './snapshotter';
import { openStore } from './store/open-store';
import type { EventStore, Subscription } from './store/port';
import { loadMasterKey } from './vault/master-key';
import { createSealer, type Sealer } from './vault/seal';

export interface RunningNode {
  readonly url: string;
  readonly store: EventStore;
  readonly readModel: ReadModel;
  /** Resolves once the log is replayed and start-up checks passed; rejects if they failed. */
  readonly ready: Promise<void>;
  /** Stops accepting, finishes in-flight requests, closes the store. */
  stop(): Promise<void>;
}

export interface NodeOptions {
  readonly logger?: Logger;
  /** Where the first-start admin key is printed, once. */
  readonly announce?: (text: string) => void;
  readonly runtime?: Runtime;
}

const SYSTEM_ACTOR = { id: 'system', requestId: 'startup' };

export interface ServiceParts {
  readonly config: Config;
  readonly store: EventStore;
  readonly sealer: Sealer;
  readonly readModel: ReadModel;
  readonly logger: Logger;
  readonly runtime: Runtime;
  readonly onErased?: () => Promise<void>;
}

/** The commands, queries and observers the HTTP layer is given, wired over one store and read model. */
export function createServices({ config, store, sealer, readModel, logger, runtime, onErased }: ServiceParts): HttpDeps {
  const bus = createCommandBus(store, readModel, runtime);
  return {
    config,
    readModel,
    sealer,
    logger,
    catalog: createCatalogCommands({ bus, readModel, runtime, maxRegexLength: config.limits.maxRegexLength, templateLimits: config.limits }),
    vault: createVaultCommands({ bus, store, readModel, runtime, sealer, onErased }),
    apiKeys: createApiKeyCommands({ bus, readModel, runtime }),
    queries: createQueries(store, readModel, config.limits),
    metrics: createMetrics(readModel, store),
    audit: createAuditService({ store, readModel, limits: config.limits, timeTravel: { maxCheckpoints: config.auditCheckpoints } }),
  };
}

export async function startNode(config: Config, options: NodeOptions = {}): Promise<RunningNode> {
  const logger = options.logger ?? createLogger();
  const announce = options.announce ?? ((text: string) => process.stdout.write(text + '\n'));
  const runtime = options.runtime ?? { now: () => new Date(), newId: randomUUID };
  const startedAt = Date.now();

  const master = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir });
  if (master.source === 'created') {
    logger.warn('created a new master key: back it up, secrets cannot be opened without it', { path: master.path });
  }
  const sealer = await createSealer(master.key);
  const store = await openStore(config.eventStore, logger);

  const initial = await loadStartState(store, config.dataDir, logger);
  const readModel = createReadModel(initial);
  const fromPosition = initial?.position;
  let replayed = 0;
  const snapshots = createSnapshotter(store, readModel, config.dataDir, config.snapshotIntervalMs, logger);
  const httpDeps = createServices({ config, store, sealer, readModel, logger, runtime, onErased: () => snapshots.save('secret erased') });
  const { vault, apiKeys, metrics } = httpDeps;
  const app = createApp(httpDeps);
  const server = await listen(app, config.fastPath ? createFastPath(httpDeps) : undefined, config);
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  let subscription: Subscription | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    subscription = store.subscribe(fromPosition, {
      onEvent: (event) => {
        readModel.apply(event);
        replayed++;
      },
      onCaughtUp: () => {
        bootstrap().then(resolve, reject);
      },
      onError: (error) => {
        logger.error('log subscription stopped', { error: error.message });
        reject(error);
      },
    });
  });

  /** Checks that need the whole log: the master key, unfinished erasures, an admin key. */
  async function bootstrap(): Promise<void> {
    const keyStatus = await vault.verifyOrEnrollMasterKey(SYSTEM_ACTOR);
    const erased = await vault.eraseDeletedSecrets();
    if (config.adminKeyHash === undefined && !apiKeys.hasAdminKey()) {
      const created = await apiKeys.createApiKey({ name: 'bootstrap admin', scopes: ['admin'] }, SYSTEM_ACTOR);
      announce(`RuleVault created an admin API key (id ${created.id}). It is shown only this once:\n\n  ${created.key}\n`);
    }
    readModel.markCaughtUp();
    metrics.setReplaySeconds((Date.now() - startedAt) / 1000);
    logger.info('ready', {
      url,
      store: store.description,
      position: readModel.position?.toString() ?? null,
      vault: { master_key_id: sealer.masterKeyId, master_key_source: master.source, check: keyStatus },
      erased_secrets: erased,
      from_snapshot: fromPosition?.toString() ?? null,
      replayed_events: replayed,
      startup_ms: Date.now() - startedAt,
    });
  }

  let stopping: Promise<void> | undefined;
  function stop(): Promise<void> {
    stopping ??= (async () => {
      await closeServer(server, config.shutdownGraceMs);
      snapshots.stop();
      await snapshots.save('shutdown');
      await subscription?.close();
      await store.close();
      sealer.dispose();
    })();
    return stopping;
  }
  ready.catch(() => undefined);
  return { url, store, readModel, ready, stop };
}

function listen(app: ReturnType<typeof createApp>, fastPath: ReturnType<typeof createFastPath> | undefined, config: Config): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({
      // Node enforces headersTimeout and requestTimeout on this timer (default 30 s): without it a 1 s limit bites up to 30 s late.
      connectionsCheckingInterval: Math.max(50, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
    }, fastPath === undefined ? app : (req, res) => {
      if (!fastPath(req, res)) app(req, res);
    });
    server.listen(config.port, config.host);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
    // Slow clients (slow-loris) are cut off.
    server.headersTimeout = config.headersTimeoutMs;
    server.requestTimeout = config.requestTimeoutMs;
    server.keepAliveTimeout = 5_000;
  });
}

/** Stops accepting, lets in-flight requests finish for up to `graceMs`, then drops the rest. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`RuleVault cannot start: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(undefined, config.logLevel);
  let node: RunningNode;
  try {
    node = await startNode(config, { logger });
    await node.ready;
  } catch (error) {
    process.stderr.write(`RuleVault cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info('shutting down', { signal });
      node.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

if (require.main === module) void main();
