/** Starts a real RuleVault node on 127.0.0.1 (port 0) over a temp data folder, for black-box tests. */
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/base/config';
import { silentLogger, type Logger } from '../../src/base/log';
import { startNode, type RunningNode } from '../../src/main';
import { backendFor } from './backend';
import { exited, freePort, spawnService } from './process';
import type { Store } from './matrix';
import { tempDir } from './temp';

export { removeDir, tempDir } from './temp';

export interface TestNode {
  readonly url: string;
  readonly adminKey: string;
  readonly dataDir: string;
  readonly env: Record<string, string>;
  readonly node: RunningNode;
  /** Lines the node announced (the first-start admin key). */
  readonly announced: string[];
  stop(): Promise<void>;
}

export function newAdminKey(): string {
  return 'test-admin-' + randomBytes(32).toString('base64url');
}

/** Env for a node on a fresh (or given) data folder; the caller may override anything. */
export function testEnv(dataDir: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    RULEVAULT_DATA_DIR: dataDir,
    RULEVAULT_ADMIN_KEY: newAdminKey(),
    RULEVAULT_SHUTDOWN_GRACE_MS: '2000',
    ...overrides,
  };
}

/** `store`: the matrix cell's event store (matrix.ts); the embedded SQLite file unless said. */
export async function startTestNode(env?: Record<string, string>, logger: Logger = silentLogger, store: Store = 'sqlite'): Promise<TestNode> {
  const dataDir = env?.RULEVAULT_DATA_DIR ?? tempDir();
  const fullEnv = env ?? testEnv(dataDir);
  // On an esdb cell the node runs on an EventStoreDB (stand-in) log per data folder.
  const eventStore = fullEnv.RULEVAULT_EVENTSTORE ?? (await backendFor(dataDir, store));
  if (eventStore !== undefined) fullEnv.RULEVAULT_EVENTSTORE = eventStore;
  if (Number(fullEnv.RULEVAULT_WORKERS ?? '1') > 1) return startServiceProcess(fullEnv, dataDir);
  const announced: string[] = [];
  const node = await startNode(loadConfig(fullEnv), { logger, announce: (text) => announced.push(text) });
  await node.ready;
  return {
    url: node.url,
    adminKey: fullEnv.RULEVAULT_ADMIN_KEY ?? '',
    dataDir,
    env: fullEnv,
    node,
    announced,
    stop: () => node.stop(),
  };
}

/**
 * A multi-process service (RULEVAULT_WORKERS > 1): node:cluster forks from a
 * process of its own, so the service runs as `node dist/src/main.js`, and
 * the handle has no in-process parts to read.
 */
async function startServiceProcess(env: Record<string, string>, dataDir: string): Promise<TestNode> {
  const service = await spawnService(env, await freePort());
  return {
    url: service.url,
    adminKey: env.RULEVAULT_ADMIN_KEY ?? '',
    dataDir,
    env,
    get node(): RunningNode {
      throw new Error('a node with workers runs in its own process: it has no in-process read model or store to read');
    },
    announced: [],
    async stop() {
      service.child.kill('SIGTERM');
      await exited(service.child);
    },
  };
}
