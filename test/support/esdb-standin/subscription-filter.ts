/** The server-side filter of a $all subscription, from the client's FilterOptions. */
import type { ReadReq } from '@eventstore/db-client/generated/streams_pb';
import type { LogRecord } from './memory-log';

export interface SubscriptionFilter {
  matches(record: LogRecord): boolean;
  /** Send a checkpoint after this many records were scanned; undefined: never. */
  readonly checkpointEvery: number | undefined;
}

/** EventStoreDB's default search window when the client asks for an unbounded one. */
const DEFAULT_SEARCH_WINDOW = 32;

export function noFilter(): SubscriptionFilter {
  return { matches: () => true, checkpointEvery: undefined };
}

export function filterFromOptions(options: ReadReq.Options.FilterOptions): SubscriptionFilter {
  const onStream = options.hasStreamIdentifier();
  const expression = onStream ? options.getStreamIdentifier() : options.getEventType();
  if (expression === undefined) return noFilter();
  const test = expressionTest(expression.getRegex(), expression.getPrefixList());
  const window = options.hasMax() ? options.getMax() : DEFAULT_SEARCH_WINDOW;
  const multiplier = Math.max(1, options.getCheckpointintervalmultiplier());
  return {
    matches: (record) => test(onStream ? record.stream : record.type),
    checkpointEvery: window * multiplier,
  };
}

function expressionTest(regex: string, prefixes: readonly string[]): (value: string) => boolean {
  if (prefixes.length > 0) return (value) => prefixes.some((prefix) => value.startsWith(prefix));
  if (regex !== '') {
    const pattern = new RegExp(regex);
    return (value) => pattern.test(value);
  }
  return () => true;
}
