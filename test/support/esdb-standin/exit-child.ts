/**
 * A child process for the "close leaves no handles" test: subscribes, appends,
 * sees the event, closes the store, prints `closed` and then must exit on its
 * own (nothing may keep the event loop alive).
 *
 *   exit-child <connection string>
 */
import { randomUUID } from 'node:crypto';
import { createEsdbStore } from '../../../src/store/esdb';

async function main(connectionString: string): Promise<void> {
  const store = createEsdbStore(connectionString);
  const stream = `rule-${randomUUID()}`;
  const delivered = new Promise<void>((resolve) => {
    store.subscribe(undefined, {
      onEvent: (event) => {
        if (event.stream === stream) resolve();
      },
    });
  });
  await store.append(stream, [{ type: 'RuleCreated', data: {}, metadata: { actor: 'cli', at: new Date(0).toISOString(), request_id: 'exit-child', schema: 1 } }], 'no_stream');
  await delivered;
  await store.close();
  process.stdout.write('closed\n');
}

main(process.argv[2] ?? '').catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
