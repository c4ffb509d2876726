/**
 * Given/when/then for the pure core: events in, events (or an error) or state out.
 *
 *   given([RuleCreated]).when((state) => decideDeleteRule('r1', state.rules.get('r1'), undefined)).then(t, [RuleDeleted])
 *   given([RuleCreated]).when(...).rejects(t, 'conflict', /revision/)
 *   given([RuleCreated, RuleDeleted]).then(t, (state) => state.rules.size, 0)
 *
 * `given` records the events as the log would (positions 1, 2, ... in order;
 * revisions 0, 1, ... per stream; actor `k1`, one second apart from
 * 2026-01-01) and folds them with the catalog's evolve, so a decider is
 * handed the state the service would hand it after that history.
 */
import type { Test } from 'tap';
import { evolve, initialState, type CatalogState } from '../../projections';
import { AppError } from '../../src/base/errors';
import { KEYRING_STREAM, PROTECTIONS_STREAM, TEST_CASES_STREAM, SCHEMA_VERSION, streams, type DomainEvent } from '../../src/events';
import type { RecordedEvent } from '../../src/store/port';

export const GIVEN_ACTOR = 'k1';

/** The time `given` stamps on the n-th event (1-based). */
export function givenAt(n: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
}

/** The stream the service writes an event to. */
export function streamOf(event: DomainEvent): string {
  if (event.type === 'MasterKeyEnrolled' || event.type === 'MasterKeyRotated') return KEYRING_STREAM;
  if (event.type === 'ResourceProtected' || event.type === 'ResourceUnprotected' || event.type === 'BreakGlassUsed') return PROTECTIONS_STREAM;
  if (event.type === 'TestCasesSet') return TEST_CASES_STREAM;
  const id = event.data.id;
  if (event.type.startsWith('ChangeRequest')) return streams.changeRequest(id);
  if (event.type.startsWith('Rule')) return streams.rule(id);
  if (event.type.startsWith('Context')) return streams.context(id);
  if (event.type.startsWith('Prompt')) return streams.prompt(id);
  if (event.type.startsWith('Secret')) return streams.secret(id);
  return streams.apiKey(id);
}

/** The events as the log records them. */
export function record(events: readonly DomainEvent[]): RecordedEvent[] {
  const revisions = new Map<string, bigint>();
  return events.map((event, index) => {
    const stream = streamOf(event);
    const revision = revisions.has(stream) ? revisions.get(stream)! + 1n : 0n;
    revisions.set(stream, revision);
    const n = index + 1;
    return {
      id: `e${n}`, stream, type: event.type, revision, position: BigInt(n),
      data: event.data as never,
      metadata: { actor: GIVEN_ACTOR, at: givenAt(n), request_id: `q${n}`, schema: SCHEMA_VERSION },
    } as RecordedEvent;
  });
}

type Decide = (state: CatalogState) => readonly DomainEvent[];

export function given(events: readonly DomainEvent[]) {
  const state = record(events).reduce(evolve, initialState());
  return {
    state,
    /** Then: what `look` reads from the folded state equals `expected`. */
    then<T>(t: Test, look: (state: CatalogState) => T, expected: T, message?: string): void {
      t.same(look(state), expected, message ?? 'then: the state');
    },
    when(decide: Decide) {
      return {
        /** Then: the decider decides exactly these events. */
        then(t: Test, expected: readonly DomainEvent[], message?: string): void {
          t.same(decide(state), expected, message ?? 'then: these events');
        },
        /** Then: the decider refuses with this error code and a message matching `message`. */
        rejects(t: Test, code: AppError['code'], message: RegExp): void {
          let thrown: unknown;
          try {
            decide(state);
          } catch (error) {
            thrown = error;
          }
          t.type(thrown, AppError, 'then: refused');
          t.equal((thrown as AppError | undefined)?.code, code);
          t.match((thrown as AppError | undefined)?.message, message);
        },
      };
    },
  };
}
