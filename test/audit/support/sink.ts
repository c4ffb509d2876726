/** What the audit-sink suites share: a node of their own per test, and the sink's files as bytes to grep. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../../support/node';

/** A node on a fresh data folder with `env`, stopped and removed when `t` ends. */
export async function nodeWith(t: Test, env: Record<string, string> = {}): Promise<TestNode> {
  const dir = tempDir();
  const node = await startTestNode(testEnv(dir, env));
  t.teardown(async () => {
    await node.stop();
    removeDir(dir);
  });
  return node;
}

/** Every byte of every file in the node's audit sink folder (WAL and shared memory included), as latin1 text for grepping. */
export function sinkBytes(node: TestNode): string {
  const dir = path.join(node.dataDir, 'audit');
  return readdirSync(dir).map((file) => readFileSync(path.join(dir, file)).toString('latin1')).join('\n');
}
