/**
 * The composition root: reads the config, opens the store and the vault,
 * replays the log into the read models, and serves HTTP. `startNode` is what
 * tests and tools start in-process; running this file starts the service.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChainAudit } from './audit/chain-audit';
import { createChainCheckpointer } from './audit/chain-checkpointer';
import { createDecisionLog } from './audit/decision-log';
import { createReadAudit } from './audit/read-audit';
import { createAuditService } from './audit/service';
import { createAuditSinkMetrics, type SinkName } from './audit/sink-metrics';
import { ConfigError, loadConfig, unknownVariableWarning, type Config } from './config';
import { armCrashPoint } from './crash-points';
import { acquireDataLock, DataFolderLockedError } from './data-lock';
import { KEYRING_STREAM } from './events';
import { createApp } from './http/app';
import type { HttpDeps } from './http/deps';
import { createFastPath } from './http/fast-path';
import { collapseLeadingSlashes } from './http/leading-slashes';
import { createLogger, type Logger } from './log';
import { createMetrics } from './metrics';
import { createReadModel, type ReadModel } from './read-model';
import { createApiKeyCommands } from './service/api-key-commands';
import { createCatalogCommands } from './service/catalog-commands';
import { createChangeFeed } from './service/change-feed';
import { createCommandBus, type Runtime } from './service/command-bus';
import { createImportCommands } from './service/import';
import { createQueries } from './service/queries';
import { createVaultCommands } from './service/vault-commands';
import { createVaultHealth } from './service/vault-health';
import { createSnapshotter, loadStartState } from './snapshotter';
import { openStore } from './store/open-store';
import type { EventStore, Subscription } from './store/port';
import { loadMasterKey } from './vault/master-key';
import { loadSigningKey } from './vault/signing-key';
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
  /** Where the first-start admin key is printed, once (default: a banner on stderr, never the JSON log). */
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
  const metrics = createMetrics(readModel, store);
  const sinkMetrics = createAuditSinkMetrics(metrics.registry, sinkErrorLogger(logger));
  const { auditSink } = config;
  return {
    config,
    readModel,
    sealer,
    logger,
    catalog: createCatalogCommands({ bus, readModel, runtime, maxRegexLength: config.limits.maxRegexLength, templateLimits: config.limits }),
    vault: createVaultCommands({ bus, store, readModel, runtime, sealer, onErased }),
    apiKeys: createApiKeyCommands({ bus, readModel, runtime, envAdminKey: config.adminKeyHash !== undefined }),
    imports: createImportCommands({
      bus, readModel, runtime, maxRegexLength: config.limits.maxRegexLength, templateLimits: config.limits, settings: config.import,
    }),
    queries: createQueries(store, readModel, config.limits),
    metrics,
    decisions: createDecisionLog({ dir: auditSink.dir, settings: auditSink.decisions, metrics: sinkMetrics }),
    secretReads: createReadAudit({ dir: auditSink.dir, settings: auditSink.secretReads, readModel, metrics: sinkMetrics }),
    vaultProblem: createVaultHealth(readModel, sealer, logger),
    changeFeed: createChangeFeed(readModel, config.stream, config.limits),
    chain: createChainAudit({ store, signingKey: { envValue: config.signingKey, dataDir: config.dataDir }, now: runtime.now }),
    audit: createAuditService({ store, readModel, limits: config.limits, timeTravel: { maxCheckpoints: config.auditCheckpoints } }),
  };
}

/** Logs a failed audit-sink write, at most once per sink every 10 s (a stuck sink fails on every retry). */
function sinkErrorLogger(logger: Logger): (sink: SinkName, error: Error) => void {
  const last = new Map<SinkName, number>();
  return (sink, error) => {
    const now = Date.now();
    if (now - (last.get(sink) ?? -Infinity) < 10_000) return;
    last.set(sink, now);
    logger.error('audit sink write failed', { sink, error: `${error.name}: ${error.message}` });
  };
}

export async function startNode(config: Config, options: NodeOptions = {}): Promise<RunningNode> {
  const logger = options.logger ?? createLogger();
  const announce = options.announce ?? ((text: string) => process.stderr.write(text));
  const runtime = options.runtime ?? { now: () => new Date(), newId: randomUUID };
  const startedAt = Date.now();
  for (const unknown of config.unknownVariables) {
    logger.warn(unknownVariableWarning(unknown), { variable: unknown.variable, did_you_mean: unknown.closest });
  }

  // First, before anything in the data folder is read or written: one writer per data folder.
  const lock = acquireDataLock(config.dataDir, 'service');
  // A failed start closes what it opened and lets the folder go, so a corrected start (even in this process) can take it.
  const opened: (() => unknown)[] = [];
  const failed = async (error: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close();
    lock.release();
    throw error;
  };
  const master = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir }).catch(failed);
  if (master.source === 'created') {
    logger.warn('created a new master key: back it up, secrets cannot be opened without it', { path: master.path });
  }
  const signing = await loadSigningKey({ envValue: config.signingKey, dataDir: config.dataDir }).catch(failed);
  if (signing.source === 'created') logger.warn('created the hash chain\'s signing key: back it up', { path: signing.path, public_key: signing.key.publicKey });
  const sealer = await createSealer(master.key).catch(failed);
  opened.push(() => sealer.dispose());
  const store = await openStore(config.eventStore, logger).catch(failed);
  opened.push(() => store.close());

  const initial = await loadStartState(store, config.dataDir, logger).catch(failed);
  const readModel = createReadModel(initial);
  const fromPosition = initial?.position;
  let replayed = 0;
  const snapshots = createSnapshotter(store, readModel, config.dataDir, config.snapshotIntervalMs, logger);
  const httpDeps = createServices({ config, store, sealer, readModel, logger, runtime, onErased: () => snapshots.afterErasure() });
  const { vault, apiKeys, metrics } = httpDeps;
  const app = createApp(httpDeps);
  const server = await listen(app, config.fastPath ? createFastPath(httpDeps) : undefined, config).catch(failed);
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  lock.setUrl(url);

  const checkpoints = createChainCheckpointer({ store, key: signing.key, every: config.chainCheckpointEvery, logger, now: runtime.now, requestId: () => `system-${runtime.newId()}` });
  let subscription: Subscription | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    subscription = store.subscribe(fromPosition, {
      onEvent: (event) => {
        readModel.apply(event);
        checkpoints.observe(event);
        replayed++;
        // A rotation recorded after start-up by someone else: checked (and logged) now, not at the next /readyz.
        if (event.stream === KEYRING_STREAM && readModel.caughtUp) httpDeps.vaultProblem();
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
      announce(adminKeyBanner(created.id, created.key));
      logger.warn('created the first admin API key; it was printed once on stderr, never logged', { key_id: created.id });
    }
    readModel.markCaughtUp();
    checkpoints.start();
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
      const closing = closeServer(server, config.shutdownGraceMs);
      // Streams never finish by themselves: end them (with a message saying so) once the server stops accepting.
      httpDeps.changeFeed.close();
      await closing;
      // What the audit queues hold is written before the process goes.
      httpDeps.decisions.close();
      httpDeps.secretReads.close();
      snapshots.stop();
      await snapshots.save('shutdown');
      await subscription?.close();
      await checkpoints.stop();
      await store.close();
      sealer.dispose();
      lock.release();
    })();
    return stopping;
  }
  ready.catch(() => undefined);
  return { url, store, readModel, ready, stop };
}

/**
 * The first-start admin key, framed so a person reading the terminal sees it:
 * on stderr, apart from the JSON log lines on stdout, and printed only once.
 */
function adminKeyBanner(id: string, key: string): string {
  const rule = '='.repeat(72);
  return [
    '',
    rule,
    '  RuleVault created an admin API key. It is shown only this once: store it now.',
    '',
    `    ${key}`,
    '',
    `  (key id ${id}; send it as "Authorization: Bearer <key>")`,
    rule,
    '',
    '',
  ].join('\n');
}

function listen(app: ReturnType<typeof createApp>, fastPath: ReturnType<typeof createFastPath> | undefined, config: Config): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({
      // Node enforces headersTimeout and requestTimeout on this timer (default 30 s): without it a 1 s limit bites up to 30 s late.
      connectionsCheckingInterval: Math.max(50, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
    }, (req, res) => {
      collapseLeadingSlashes(req);
      if (fastPath === undefined || !fastPath(req, res)) app(req, res);
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

/** The service as `npm start` runs it (scripts/start.js): configuration from the environment, signals, exit codes. */
export async function main(): Promise<void> {
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
  // Tests only (test/http/erasure-crash.test.ts); armed here, in a real process, never by in-process nodes.
  armCrashPoint(config.testCrashAt);
  let node: RunningNode;
  try {
    node = await startNode(config, { logger });
    await node.ready;
  } catch (error) {
    process.stderr.write(`RuleVault cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof DataFolderLockedError) {
      process.stderr.write('One service per data folder: stop that one first, or give this one its own RULEVAULT_DATA_DIR.\n');
    }
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
