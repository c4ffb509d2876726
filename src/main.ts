/**
 * The composition root: reads the config, opens the store and the vault,
 * replays the log into the read models, and serves HTTP. `startNode` is what
 * tests and tools start in-process; running this file starts the service.
 */
import { randomUUID } from 'node:crypto';
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChainAudit } from './audit/chain-audit';
import { createChainCheckpointer } from './audit/chain-checkpointer';
import { createDecisionLog } from './audit/decision-log';
import { createReadAudit } from './audit/read-audit';
import { createAuditService } from './audit/service';
import { createAuditSinkMetrics, type SinkName } from './audit/sink-metrics';
import { startFleet } from './cluster/fleet';
import { linkToWriter } from './cluster/worker';
import { ConfigError, loadConfig, unknownVariableWarning, type Config } from './base/config';
import { armCrashPoint } from './base/crash-points';
import { acquireDataLock, DataFolderLockedError } from './base/data-lock';
import { prepareWrites } from './engine';
import { KEYRING_STREAM } from './events';
import { createApp } from './http/app';
import type { HttpDeps, WriteCommands } from './http/deps';
import { createFastPath, type FastPath } from './http/fast-path';
import { collapseLeadingSlashes } from './http/route-table';
import { createLogger, type Logger } from './base/log';
import { memoryRoom, memoryWarning } from './base/memory-room';
import { createMetrics, registerStreamMetrics } from './http/metrics';
import { createReadModel, type ReadModel } from './read-model/read-model';
import { createApiKeyCommands } from './service/api-key-commands';
import { createCatalogCommands } from './service/catalog-commands';
import { createCaseChecks, createRequestChecks } from './audit/change-request-checks';
import { createChangeRequestCommands } from './service/change-request-commands';
import { createChangeRequestQueries } from './service/change-request-queries';
import { createChangeFeed } from './service/change-feed';
import { clockOf, createCommandBus, type Runtime } from './service/command-bus';
import { createImportCommands } from './service/import';
import { createQueries } from './service/queries';
import { fullReadRefusalOf, repackInSlices, sliceClock, stepsInSlices } from './service/read-ahead';
import { createVaultCommands } from './service/vault-commands';
import { createVaultHealth } from './service/vault-health';
import { createSnapshotter, loadStartState, SHUTDOWN } from './snapshots';
import { openStore } from './store/open-store';
import type { EventStore, RecordedEvent, Subscription } from './store/port';
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
  /**
   * Called after a failed sync of the event store (fail-stop): the fatal line
   * is logged, the server has stopped and its in-flight requests were
   * answered. `main` exits non-zero; an in-process node just stays stopped.
   */
  readonly onFatal?: (error: Error) => void;
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
  /** Commands that run elsewhere (a worker forwards its writes to the writer process); default: this process's own. */
  readonly commands?: WriteCommands;
}

/** The commands, queries and observers the HTTP layer is given, wired over one store and read model. */
export function createServices(parts: ServiceParts): HttpDeps {
  const { config, store, sealer, readModel, logger, runtime } = parts;
  const metrics = createMetrics(readModel, store);
  repackInSlices(readModel.state.rules);
  // A restored engine's first write would build its id table at once: built in slices once caught up instead.
  readModel.whenCaughtUp(() => {
    stepsInSlices(prepareWrites(readModel.engine), sliceClock()).catch((error: unknown) => {
      // The first write builds what is left at once, as it did before.
      logger.warn('preparing the restored engine for writes failed', { error: String(error) });
    });
  });
  const changeFeed = createChangeFeed(readModel, config.stream, config.limits);
  registerStreamMetrics(metrics.registry, changeFeed);
  const sinkMetrics = createAuditSinkMetrics(metrics.registry, sinkErrorLogger(logger));
  const { auditSink } = config;
  const decisions = createDecisionLog({ dir: auditSink.dir, settings: auditSink.decisions, metrics: sinkMetrics });
  return {
    config,
    readModel,
    sealer,
    logger,
    ...(parts.commands ?? createWriteCommands(parts)),
    queries: createQueries(store, readModel, config.limits),
    changeRequestQueries: createChangeRequestQueries(store, readModel, config.approvalsRequired, config.limits),
    metrics,
    clock: clockOf(runtime),
    decisions,
    changeRequestChecks: createRequestChecks({
      readModel, limits: config.limits, clock: clockOf(runtime),
      decisionsDir: auditSink.dir, flushDecisions: () => decisions.flush(), maxDecisions: auditSink.impactMaxDecisions,
    }),
    secretReads: createReadAudit({ dir: auditSink.dir, settings: { ...auditSink.secretReads, shared: config.workers > 1 }, metrics: sinkMetrics }),
    vaultProblem: createVaultHealth(readModel, sealer, logger),
    changeFeed,
    audit: createAuditService({ store, readModel, limits: config.limits, clock: clockOf(runtime), timeTravel: { maxCheckpoints: config.auditCheckpoints, maxHeldRecords: config.auditHeldRecords } }),
  };
}

/** The commands that decide and append writes, over one command bus: the writer's own. */
function createWriteCommands({ config, store, sealer, readModel, logger, runtime, onErased }: ServiceParts): WriteCommands {
  const bus = createCommandBus(store, readModel, runtime);
  return {
    catalog: createCatalogCommands({ bus, readModel, runtime, maxRegexLength: config.limits.maxRegexLength, templateLimits: config.limits }),
    vault: createVaultCommands({ bus, store, readModel, runtime, sealer, logger, onErased }),
    apiKeys: createApiKeyCommands({ bus, readModel, runtime, envAdminKey: config.adminKeyHash !== undefined }),
    imports: createImportCommands({
      bus, readModel, runtime, maxRegexLength: config.limits.maxRegexLength, templateLimits: config.limits, settings: config.import,
    }),
    changeRequests: createChangeRequestCommands({
      bus, store, readModel, runtime, maxRegexLength: config.limits.maxRegexLength, templateLimits: config.limits, approvalsRequired: config.approvalsRequired,
      failingCases: createCaseChecks({ readModel, limits: config.limits, clock: clockOf(runtime) }).failingCases,
    }),
    // In the writer: one verification at a time for the whole service, and a checkpoint is a write.
    chain: createChainAudit({ store, signingKey: { envValue: config.signingKey, dataDir: config.dataDir }, now: runtime.now }),
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

/**
 * The half of a node that owns the data folder: the lock, the keys, the store,
 * the read models, the commands, snapshots and checkpoints; no HTTP. A
 * single-process node puts an HTTP server in front of it; with workers
 * (src/cluster/) it is the writer process that every worker forwards writes to.
 */
export interface Writer {
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly services: HttpDeps;
  /** Records where the service answers, for the ready log line and whoever the data-folder lock refuses. */
  setUrl(url: string): void;
  /** How serving stops when the store fails for good (fail-stop): the HTTP server's close, or the workers'. */
  stopServingWith(stop: () => Promise<void>): void;
  /** Replays the log, then runs the start-up checks; resolves once ready. Call once. */
  start(): Promise<void>;
  /** After HTTP stopped: writes what the audit queues hold, saves a snapshot, closes the store, lets the folder go. */
  close(): Promise<void>;
  /** Closes what a failed start opened, lets the folder go, and throws `error`. */
  abandon(error: unknown): Promise<never>;
}

/**
 * Follows the log into `readModel` from `after`; `caughtUp` resolves once the
 * log as it was at the start is applied. A keyring change recorded later by
 * someone else (a rotation) is checked, and logged, at once rather than at the
 * next /readyz. `observe` sees each event after the read model applied it.
 */
function followLogInto(
  store: EventStore, after: bigint | undefined, readModel: ReadModel, services: HttpDeps, logger: Logger,
  observe?: (event: RecordedEvent) => void,
): { readonly caughtUp: Promise<void>; readonly subscription: Subscription } {
  let subscription!: Subscription;
  const caughtUp = new Promise<void>((resolve, reject) => {
    subscription = store.subscribe(after, {
      onEvent: (event) => {
        readModel.apply(event);
        observe?.(event);
        if (event.stream === KEYRING_STREAM && readModel.caughtUp) services.vaultProblem();
      },
      onCaughtUp: resolve,
      onError: (error) => {
        logger.error('log subscription stopped', { error: error.message });
        reject(error);
      },
    });
  });
  return { caughtUp, subscription };
}

export async function openWriter(config: Config, options: NodeOptions = {}): Promise<Writer> {
  const logger = options.logger ?? createLogger();
  const announce = options.announce ?? ((text: string) => process.stderr.write(text));
  const runtime = options.runtime ?? { now: () => new Date(), newId: randomUUID, clock: Date.now };
  const startedAt = Date.now();
  for (const unknown of config.unknownVariables) {
    logger.warn(unknownVariableWarning(unknown), { variable: unknown.variable, did_you_mean: unknown.closest });
  }

  // First, before anything in the data folder is read or written: one writer per data folder.
  const lock = acquireDataLock(config.dataDir, 'service');
  // A failed start closes what it opened and lets the folder go, so a corrected start (even in this process) can take it.
  const opened: (() => unknown)[] = [];
  const abandon = async (error: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close();
    opened.length = 0;
    lock.release();
    throw error;
  };
  const master = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir }).catch(abandon);
  if (master.source === 'created') {
    logger.warn('created a new master key: back it up, secrets cannot be opened without it', { path: master.path });
  }
  const signing = await loadSigningKey({ envValue: config.signingKey, dataDir: config.dataDir }).catch(abandon);
  if (signing.source === 'created') logger.warn('created the hash chain\'s signing key: back it up', { path: signing.path, public_key: signing.key.publicKey });
  const sealer = await createSealer(master.key).catch(abandon);
  opened.push(() => sealer.dispose());
  // Fail-stop: after a failed sync, commits may be visible that are not on disk and no one can tell which;
  // the store refuses writes from then on, and the node stops serving (docs/operations.md#embedded-sqlite).
  let fatal: Error | undefined;
  let stopServing = (): Promise<void> => Promise.resolve();
  const onSyncFailure = (error: Error): void => {
    fatal = error;
    logger.pino.fatal({ error: error.message }, 'the event store could not make writes durable; stopping (restart to recover from what is on disk)');
    snapshots.stop();
    void stopServing().then(() => options.onFatal?.(error));
  };
  const store = await openStore(config.eventStore, logger, { groupCommit: config.groupCommit, onSyncFailure }).catch(abandon);
  opened.push(() => store.close());

  const start = await loadStartState(store, config.dataDir, logger).catch(abandon);
  const readModel = createReadModel(start?.state, start?.engine);
  const fromPosition = start?.state.position;
  let replayed = 0;
  let url: string | undefined;
  const snapshots = createSnapshotter(store, readModel, config.dataDir, config.snapshotIntervalMs, logger, config.snapshotEngineImage, start);
  const services = createServices({ config, store, sealer, readModel, logger, runtime, onErased: () => snapshots.afterErasure() });
  const { vault, apiKeys, changeRequests, metrics } = services;
  const checkpoints = createChainCheckpointer({ store, key: signing.key, every: config.chainCheckpointEvery, logger, now: runtime.now, requestId: () => `system-${runtime.newId()}` });
  let subscription: Subscription | undefined;

  /** Checks that need the whole log: the master key, unfinished erasures, an admin key. */
  async function bootstrap(): Promise<void> {
    const keyStatus = await vault.verifyOrEnrollMasterKey(SYSTEM_ACTOR);
    const erased = await vault.eraseDeletedSecrets();
    // EventStoreDB: an apply this node (or another) left part way is finished forward before anything is served.
    const finished = await changeRequests.finishPending(SYSTEM_ACTOR);
    if (finished > 0) logger.warn('finished change-request applies left part way', { change_requests: finished });
    if (config.adminKeyHash === undefined && !apiKeys.hasAdminKey()) {
      const created = await apiKeys.createApiKey({ name: 'bootstrap admin', scopes: ['admin'] }, SYSTEM_ACTOR);
      announce(adminKeyBanner(created.id, created.key));
      logger.warn('created the first admin API key; it was printed once on stderr, never logged', { key_id: created.id });
    }
    readModel.markCaughtUp();
    checkpoints.start();
    metrics.setReplaySeconds((Date.now() - startedAt) / 1000);
    const memory = memoryRoom();
    const tight = memoryWarning(memory);
    if (tight !== undefined) logger.warn(tight, { memory });
    // Said at start, not first at an auditor's request: memory at start is about as free as it gets.
    const fullRead = fullReadRefusalOf(readModel.state.rules);
    if (fullRead !== undefined) logger.warn(`${fullRead}; so the digest and the change stream's first view, which read them all, will be refused (503)`, { memory });
    logger.info('ready', {
      url,
      store: store.description,
      position: readModel.position?.toString() ?? null,
      vault: { master_key_id: sealer.masterKeyId, master_key_source: master.source, check: keyStatus },
      erased_secrets: erased,
      from_snapshot: fromPosition?.toString() ?? null,
      replayed_events: replayed,
      startup_ms: Date.now() - startedAt,
      memory,
    });
  }

  return {
    store,
    readModel,
    services,
    setUrl(address) {
      url = address;
      lock.setUrl(address);
    },
    stopServingWith(stop) {
      stopServing = stop;
    },
    start() {
      const followed = followLogInto(store, fromPosition, readModel, services, logger, (event) => {
        checkpoints.observe(event);
        replayed++;
      });
      subscription = followed.subscription;
      return followed.caughtUp.then(bootstrap);
    },
    async close() {
      // What the audit queues hold is written before the process goes.
      services.decisions.close();
      services.secretReads.close();
      snapshots.stop();
      // An erasure left unfinished is finished by the next start.
      await services.vault.close();
      // After a failed sync the read models may hold writes that are not on disk: no snapshot of them.
      if (fatal === undefined) await snapshots.save(SHUTDOWN);
      await subscription?.close();
      await checkpoints.stop();
      await store.close();
      sealer.dispose();
      lock.release();
    },
    abandon,
  };
}

export async function startNode(config: Config, options: NodeOptions = {}): Promise<RunningNode> {
  const writer = await openWriter(config, options);
  const httpDeps = writer.services;
  const app = createApp(httpDeps);
  const server = await listen(app, createFastPath(httpDeps), config).catch(writer.abandon);
  const url = serverUrl(server);
  writer.setUrl(url);
  writer.stopServingWith(() => closeServer(server, config.shutdownGraceMs));
  const ready = writer.start();

  let stopping: Promise<void> | undefined;
  function stop(): Promise<void> {
    stopping ??= (async () => {
      const closing = closeServer(server, config.shutdownGraceMs);
      // Streams never finish by themselves: end them (with a message saying so) once the server stops accepting.
      httpDeps.changeFeed.close();
      await closing;
      await writer.close();
    })();
    return stopping;
  }
  ready.catch(() => undefined);
  return { url, store: writer.store, readModel: writer.readModel, ready, stop };
}

/** `http://host:port` of a listening server. */
function serverUrl(server: Server): string {
  const address = server.address() as AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
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

export function listen(app: ReturnType<typeof createApp>, fastPath: FastPath, config: Config): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer({
      // Node enforces headersTimeout and requestTimeout on this timer (default 30 s): without it a 1 s limit bites up to 30 s late.
      connectionsCheckingInterval: Math.max(50, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
    }, (req, res) => {
      collapseLeadingSlashes(req);
      // Each route has one path: the lean path's table, or else express (docs/architecture.md#how-a-request-is-answered).
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
export function closeServer(server: Server, graceMs: number): Promise<void> {
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

/**
 * One HTTP worker of a multi-process service (RULEVAULT_WORKERS > 1, started
 * by the writer through node:cluster): its own read models from the snapshot
 * and the log, evaluate and get-secrets answered here, every write forwarded
 * to the writer (src/cluster/). It listens only once it has applied the log
 * head the writer gave it when it joined, so it never answers from a state
 * older than a write already answered.
 */
export async function startWorker(config: Config, logger: Logger): Promise<void> {
  let stop = async (): Promise<void> => undefined;
  const exitAfter = (code: number) => () => void stop().then(() => process.exit(code), () => process.exit(1));
  const link = linkToWriter({
    applied: async (position) => {
      store.wake?.();
      await readModel.waitFor(position);
    },
    metricsJson: () => services.metrics.registry.getMetricsAsJSON(),
    stop: exitAfter(0),
  });
  // The writer went away (it died, or stopped without telling): nothing can be written any more, so stop serving too.
  // Set before anything else, so a worker whose writer dies while it starts does not linger.
  process.once('disconnect', exitAfter(1));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, exitAfter(0));
  // The writer created the master key (if it had to) before forking: this only reads it.
  const master = await loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir });
  const sealer = await createSealer(master.key);
  const store = await openStore(config.eventStore, logger);
  const start = await loadStartState(store, config.dataDir, logger);
  const readModel = createReadModel(start?.state, start?.engine);
  const runtime = { now: () => new Date(), newId: randomUUID, clock: Date.now };
  const services: HttpDeps = {
    ...createServices({ config, store, sealer, readModel, logger, runtime, commands: link.commands }),
    serviceMetrics: link.serviceMetrics,
  };

  const { caughtUp, subscription } = followLogInto(store, start?.state.position, readModel, services, logger);
  await caughtUp;
  readModel.markCaughtUp();
  const head = await link.join();
  if (head !== undefined) {
    store.wake?.();
    await readModel.waitFor(head);
  }

  const server = await listen(createApp(services), createFastPath(services), config);
  let stopping: Promise<void> | undefined;
  stop = () => {
    stopping ??= (async () => {
      const closing = closeServer(server, config.shutdownGraceMs);
      services.changeFeed.close();
      await closing;
      services.decisions.close();
      services.secretReads.close();
      link.close();
      await subscription.close();
      await store.close();
      sealer.dispose();
    })();
    return stopping;
  };
  await link.listening(serverUrl(server));
}

/**
 * The writer of a multi-process service: replays the log and runs the
 * start-up checks, then forks the workers and serves their writes.
 */
async function startWriterWithWorkers(config: Config, options: NodeOptions & { readonly logger: Logger }): Promise<{ stop(): Promise<void> }> {
  const { logger } = options;
  const writer = await openWriter(config, options);
  await writer.start().catch(writer.abandon);
  const { catalog, vault, apiKeys, imports, chain, changeRequests, metrics } = writer.services;
  const fleet = startFleet({
    count: config.workers,
    commands: { catalog, vault, apiKeys, imports, chain, changeRequests },
    readModel: writer.readModel,
    store: writer.store,
    registry: metrics.registry,
    logger,
    shutdownGraceMs: config.shutdownGraceMs,
    onListening: (url) => {
      writer.setUrl(url);
      logger.info('listening', { url, workers: config.workers });
    },
  });
  writer.stopServingWith(() => fleet.stop());
  return {
    async stop() {
      await fleet.stop();
      await writer.close();
    },
  };
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
  if (cluster.isWorker) {
    await startWorker(config, logger).catch((error: unknown) => {
      process.stderr.write(`RuleVault worker cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
    return;
  }
  // Tests only (test/http/erasure-crash.test.ts); armed here, in a real process, never by in-process nodes.
  armCrashPoint(config.testCrashAt);
  let node: { stop(): Promise<void> };
  try {
    const options = { logger, onFatal: () => process.exit(1) };
    if (config.workers > 1) {
      node = await startWriterWithWorkers(config, options);
    } else {
      const single = await startNode(config, options);
      await single.ready;
      node = single;
    }
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
