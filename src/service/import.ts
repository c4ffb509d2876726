/**
 * POST /api/import and `rulevault import`: a batch of rules, contexts and
 * prompts, decided whole against the read model (src/domain/import.ts), then
 * appended in one write and answered once this node's read model applied it,
 * so every imported rule is evaluable when the import answers.
 *
 * Atomicity: on the embedded store, one transaction (one fsync): all or
 * nothing. EventStoreDB cannot append to several streams atomically: the
 * batch is appended one stream at a time, in order, every event under the
 * request's id; a failure part way answers 503 with how many were written
 * (docs/api.md#import).
 */
import type { ImportSettings } from '../base/config';
import { countKinds, decideImportSteps, deletedIdError, readImportSteps, type ImportLine, type PlannedItem } from '../domain/import';
import { toJsonPosition } from '../store/port';
import type { ReadModel } from '../read-model/read-model';
import type { TemplateLimits } from '../prompts/template';
import { refusedStream, type Actor, type CommandBus, type Runtime } from './command-bus';
import { flagKeysOf } from './flag-keys';
import { sliceClock, stepsInSlices } from './read-ahead';

export interface ImportDeps {
  readonly bus: CommandBus;
  readonly readModel: ReadModel;
  readonly runtime: Runtime;
  readonly maxRegexLength: number;
  readonly templateLimits: TemplateLimits;
  readonly settings: ImportSettings;
}

export interface ImportAnswer {
  readonly imported: number;
  readonly rules: number;
  readonly contexts: number;
  readonly prompts: number;
  /** Log position of the batch's last event; the read model had applied it when this was answered. */
  readonly position: string;
  /** One per item, in the order given: the id it was created with. */
  readonly items: readonly { readonly kind: string; readonly id: string; readonly name: string }[];
}

export function createImportCommands({ bus, readModel, runtime, maxRegexLength, templateLimits, settings }: ImportDeps) {
  // Asked only by a rule item that names a key: the index is built then (flag-keys.ts), not at start.
  const keyHolder = (key: string) => flagKeysOf(readModel).holderOf(key);
  return {
    /** Imports an NDJSON or JSON-array text; throws the first bad item's error (400, 409, 413) with nothing written. */
    async importText(text: string, actor: Actor): Promise<ImportAnswer> {
      // In slices too: the lines of a 100k-item NDJSON body read at once held evaluate ~0.3 s (bench/import-stall.ts).
      const lines = await stepsInSlices(readImportSteps(text, settings.maxItems), sliceClock());
      // Streams the store refused once: withRetry catches up with the log and decides again (a race with another writer).
      const refused = new Set<string>();
      // Decided inside the bus's one-at-a-time section: the batch sees every write before it, and none interleaves.
      return bus.withRetry(undefined, async () => {
        // In slices: at 100k items the decision held evaluate ~1.5 s (docs/api.md#import, "While it runs").
        const planned = await stepsInSlices(decideImportSteps(lines, { state: readModel.state, maxRegexLength, templateLimits, newId: runtime.newId, keyHolder }), sliceClock());
        let last;
        try {
          last = await bus.appendBatch(planned.map(({ stream, events }) => ({ stream, expected: 'no_stream', events })), actor);
        } catch (error) {
          throw refusedAgain(error, planned, lines, refused);
        }
        return {
          imported: planned.length,
          ...countKinds(planned),
          position: toJsonPosition(last.position),
          items: planned.map(({ kind, id, name }) => ({ kind, id, name })),
        };
      });
    },
  };
}

export type ImportCommands = ReturnType<typeof createImportCommands>;

/**
 * What to throw for an append that failed. A stream refused a second time,
 * decided on a read model caught up with the log and holding no resource of
 * that id, belongs to a deleted resource: the item's line says so (409).
 * Anything else is thrown as it is (a first refusal: withRetry tries again).
 */
function refusedAgain(error: unknown, planned: readonly PlannedItem[], lines: readonly ImportLine[], refused: Set<string>): unknown {
  const stream = refusedStream(error);
  if (stream === undefined) return error;
  const at = planned.findIndex((item) => item.stream === stream);
  if (at >= 0 && refused.has(stream)) return deletedIdError(planned[at]!, lines[at]!.where);
  refused.add(stream);
  return error;
}
