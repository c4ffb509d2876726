/** A change-stream subscriber for black-box tests: every event and heartbeat it got, in order, and a way to wait for the next one. */
import { createSseParser, readSse, type SseEvent } from '../../src/client/local';

export interface StreamReader {
  readonly status: number;
  readonly headers: Headers;
  /** The body when the answer is not a stream (an error's JSON). */
  readonly text: string;
  readonly events: SseEvent[];
  readonly heartbeats: number;
  /** Resolves with the first event from index `from` on that `match` accepts. */
  next(match: (event: SseEvent) => boolean, from?: number): Promise<SseEvent>;
  /** Resolves when a heartbeat comes after the ones counted so far. */
  nextHeartbeat(): Promise<void>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

/** `query`: the stream's query string, `?changes=patch` for the patch format. */
export async function openStream(base: string, key: string | undefined, headers: Record<string, string> = {}, query = ''): Promise<StreamReader> {
  const controller = new AbortController();
  const response = await fetch(`${base}/api/rule-engine/stream${query}`, {
    headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  let heartbeats = 0;
  let wake: () => void = () => undefined;
  const parser = createSseParser((event) => {
    events.push(event);
    wake();
  }, () => {
    heartbeats++;
    wake();
  });
  const isStream = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
  const text = isStream ? '' : await response.text();
  let finished = false;
  const ended = (async () => {
    if (!isStream || response.body === null) {
      finished = true;
      return;
    }
    try {
      await readSse(response.body, parser);
    } catch {
      // aborted by close()
    } finally {
      finished = true;
      wake();
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    text,
    events,
    get heartbeats() {
      return heartbeats;
    },
    async next(match, from = 0) {
      for (;;) {
        const found = events.slice(from).find(match);
        if (found !== undefined) return found;
        if (finished) throw new Error(`the stream ended without the event; got ${events.map((e) => `${e.event}#${e.id}`).join(' ')}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    async nextHeartbeat() {
      const seen = heartbeats;
      while (heartbeats === seen) {
        if (finished) throw new Error('the stream ended without a heartbeat');
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    ended,
    close: () => controller.abort(),
  };
}
