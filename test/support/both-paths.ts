/**
 * The scaffolding of the tests that send the same requests to a node on the
 * lean path and one through express (test/http/both-paths*.test.ts) and
 * compare what each answered, logged and counted.
 */
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { client } from './http';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from './node';

/** A node on one path (`fastPath`: RULEVAULT_FAST_PATH, '1' lean, '0' express) on a folder of its own, its log lines kept. */
export async function nodeOnPath(fastPath: string, env: Record<string, string>): Promise<{ node: TestNode; lines: string[] }> {
  const lines: string[] = [];
  const node = await startTestNode(testEnv(tempDir(), { RULEVAULT_FAST_PATH: fastPath, ...env }), createLogger((line) => lines.push(line)));
  return { node, lines };
}

/** Seeds the lean node and the express node before the file's tests (`assign` takes them), and stops and removes both after. */
export function onBothPaths<S extends { readonly node: TestNode }>(seed: (fastPath: string) => Promise<S>, assign: (lean: S, express: S) => void): void {
  const started: S[] = [];
  t.before(async () => {
    started.push(await seed('1'), await seed('0'));
    assign(started[0]!, started[1]!);
  });
  t.teardown(async () => {
    for (const seeded of started) {
      await seeded.node.stop();
      removeDir(seeded.node.dataDir);
    }
  });
}

/** The node's request counters from /metrics (sorted; /metrics' own left out). */
export async function requestCounters(node: TestNode): Promise<string[]> {
  const text = (await client(node.url, node.adminKey).get('/metrics')).text;
  return text.split('\n').filter((line) => line.startsWith('rulevault_http_requests_total{') && !line.includes('route="/metrics"')).sort();
}

/** A compared answer with its body parsed (undefined when it is not JSON). */
export function withJson<A extends { readonly body: string }>(answer: A): A & { json: any } {
  let json: any;
  try {
    json = JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  return { ...answer, json };
}
