/** The node the evidence tests export from: decision logging on, no checkpoint signed by itself. */
import type { Test } from 'tap';
import { silentLogger } from '../../../src/base/log';
import { client, type Answer, type Client } from '../../support/http';
import type { Store } from '../../support/matrix';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../../support/node';

export interface EvidenceNode {
  readonly dir: string;
  /** The node's environment: the CLI run with it reads the same data folder. */
  readonly env: Record<string, string>;
  readonly node: TestNode;
  readonly admin: Client;
  /** Stops the node (the CLI's store commands need it stopped); the test's end stops it otherwise. */
  stop(): Promise<void>;
}

/** Starts the node on `store` in a fresh folder, removed at the test's end. */
export async function startEvidenceNode(t: Test, store: Store): Promise<EvidenceNode> {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' });
  const node = await startTestNode(env, silentLogger, store);
  let running = true;
  const stop = async () => {
    if (running) await node.stop();
    running = false;
  };
  t.teardown(stop);
  return { dir, env, node, admin: client(node.url, node.adminKey), stop };
}

/** The answer, or a throw naming what came instead of `status`. */
export async function ok(answer: Promise<Answer>, status = 200): Promise<Answer> {
  const done = await answer;
  if (done.status !== status) throw new Error(`expected ${status}, got ${done.status}: ${done.text}`);
  return done;
}
