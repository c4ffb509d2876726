/**
 * `withNode(t)`: the setup most black-box suites share. It starts a node in a
 * before hook of `t` (so every child test sees it) and stops it, and removes its
 * data folder, when `t` ends. The handle is usable at once: `admin` and the
 * clients from `clientFor` read the node's URL when they send, after the start.
 */
import type { Test } from 'tap';
import type { Logger } from '../../src/base/log';
import { client, type Client } from './http';
import { cellEnv, SQLITE, type Cell } from './matrix';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from './node';

export interface NodeOptions {
  /** The matrix cell (store and workers) to run on; sqlite, one process, unless said. */
  readonly cell?: Cell;
  /** Settings on top of testEnv's defaults (a fresh data folder, a random admin key). */
  readonly env?: Record<string, string>;
  readonly logger?: Logger;
}

export interface LiveNode {
  /** The running node (read it inside a test or hook, after the start). */
  readonly node: TestNode;
  readonly url: string;
  /** A client with the node's admin key. */
  readonly admin: Client;
  /** A client with another key (an API key a test created). */
  clientFor(key: string): Client;
}

export function withNode(t: Test, options: NodeOptions = {}): LiveNode {
  const cell = options.cell ?? SQLITE;
  const env = testEnv(tempDir(), { ...cellEnv(cell), ...options.env });
  let started: TestNode | undefined;
  const running = (): TestNode => {
    if (started === undefined) throw new Error('withNode: the node is read before its before hook ran');
    return started;
  };
  t.before(async () => {
    started = await startTestNode(env, options.logger, cell.store);
  });
  t.teardown(async () => {
    await started?.stop();
    removeDir(env.RULEVAULT_DATA_DIR!);
  });
  const url = () => running().url;
  return {
    get node() { return running(); },
    get url() { return url(); },
    admin: client(url, env.RULEVAULT_ADMIN_KEY),
    clientFor: (key: string) => client(url, key),
  };
}
