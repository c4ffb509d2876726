/**
 * Local evaluation (docs/client.md#local-evaluation): a client
 * that follows the change stream (GET /api/rule-engine/stream) and answers
 * evaluate in-process, with the server's own compiled engine and the server's
 * own evaluate function over the stream's view (src/service/evaluation-view.ts),
 * so an answer is the HTTP answer once the client holds the same position.
 *
 * No server-only imports: fetch, a small SSE reader, the engine (re2js) and
 * the prompt templates (handlebars). When the service is unreachable it keeps
 * answering from the last rule set and reconnects with Last-Event-ID;
 * `staleness` says how long it has heard nothing.
 */
import { AppError } from '../base/errors';
import type { Limits } from '../base/limits';
import { createEngine, type Engine } from '../engine';
import { evaluate, parseEvaluateRequest, type EvaluateResponse, type EvaluationState } from '../service/evaluate';
import type { RuleRecord } from '../../projections';
import { applyStreamChange, changedRuleIds, restoreEvaluationState, StreamFoldError, type StreamChange, type StreamSnapshot } from '../service/evaluation-view';
import { timerSettingError, type ErrorCode } from './transport';

export interface LocalEvaluatorOptions {
  /** Base URL of the service (a path prefix is kept); default RULEVAULT_URL. */
  readonly url?: string;
  /** An API key with the `evaluate` scope; default RULEVAULT_API_KEY. */
  readonly apiKey?: string;
  /** First reconnect delay in ms, doubled per failure up to `maxReconnectMs` (default 250). */
  readonly reconnectMs?: number;
  /** Longest reconnect delay in ms (default 5,000). */
  readonly maxReconnectMs?: number;
  /**
   * With nothing received for this many ms (no byte: not an event, a
   * heartbeat, or any part of one) the connection is taken as dead and opened
   * again (default 45,000: three of the server's default heartbeats). An
   * event that takes longer than this to arrive, bytes still flowing, is
   * read to its end.
   */
  readonly idleTimeoutMs?: number;
  /**
   * The time in ms a split's rollout schedule is read at (default Date.now): the client's clock, so inside a
   * rollout window an answer agrees with the service's to within the two clocks' difference.
   */
  readonly clock?: () => number;
}

/** The body of POST /api/rule-engine/evaluate. */
export interface LocalEvaluateRequest {
  readonly entity_type: 'context' | 'prompt' | 'evaluation';
  /** null: an absent field, as on the service (contract §2). */
  readonly fields: Readonly<Record<string, string | number | boolean | null>>;
  readonly include_entity_data?: boolean;
  readonly entity_inputs?: Readonly<Record<string, unknown>>;
}

/** The HTTP answer: 200's body with `err: null`, or the 400's `{err, code}` (status 400), or 503 (`unavailable`) before the first rule set. */
export type LocalEvaluateResult = ({ readonly err: null } & EvaluateResponse) | { readonly err: string; readonly status: number; readonly code: ErrorCode };

export interface LocalEvaluator {
  /** Answers from the rule set held now; never waits and never throws. */
  evaluate(request: LocalEvaluateRequest): LocalEvaluateResult;
  /** The log position of the rule set held (the last event applied), or undefined before the first. */
  readonly position: bigint | undefined;
  /** Milliseconds since the stream last said anything whole (an event or a heartbeat): an event still arriving confirms nothing yet. */
  readonly staleness: number;
  /** True while the stream is open. */
  readonly connected: boolean;
  /** Why the last connection failed or ended, with its cause; undefined while all is well. */
  readonly lastError: Error | undefined;
  /** Resolves once the first rule set is held. */
  ready(timeoutMs?: number): Promise<void>;
  /**
   * Resolves once the rule set holds `position` (e.g. an admin write's
   * RuleVault-Position header): read-your-writes. Rejects after `timeoutMs`
   * (default 10 s), saying how stale the client is.
   */
  waitFor(position: bigint | string, timeoutMs?: number): Promise<void>;
  /** Stops following the stream; evaluate keeps answering from the last rule set. */
  close(): void;
}

export const STREAM_PATH = 'api/rule-engine/stream';

interface Held {
  readonly state: EvaluationState;
  readonly engine: Engine;
  readonly limits: Limits;
}

interface Waiter {
  readonly position: bigint;
  readonly resolve: () => void;
}

/** A rule a change touched, as it was and as it is (undefined: not held). */
export interface RuleTouch {
  readonly before: RuleRecord | undefined;
  readonly after: RuleRecord | undefined;
}

/**
 * What a follower of the rule set hears (the OpenFeature provider,
 * src/client/openfeature.ts): not in the package's index. Each is called
 * after the rule set and position changed; a throw is ignored.
 */
export interface RuleSetListener {
  /** A rule set taken whole: the first, or one replacing `previous` after a resync or a reconnect the stream could not resume. */
  snapshot?(rules: ReadonlyMap<string, RuleRecord>, previous: ReadonlyMap<string, RuleRecord> | undefined, limits: Limits): void;
  /** A change applied: the rules it touched, and the change itself. */
  change?(rules: ReadonlyMap<string, RuleRecord>, touched: readonly RuleTouch[], change: StreamChange): void;
  /** A connection failed or ended, with why. */
  failed?(error: Error): void;
}

export function createLocalEvaluator(options: LocalEvaluatorOptions = {}): LocalEvaluator {
  return followRuleSet(options, {});
}

/** createLocalEvaluator, telling `listener` of each rule set, change and failure. */
export function followRuleSet(options: LocalEvaluatorOptions, listener: RuleSetListener): LocalEvaluator {
  const env = typeof process === 'undefined' ? {} : process.env;
  const base = options.url ?? env.RULEVAULT_URL;
  const apiKey = options.apiKey ?? env.RULEVAULT_API_KEY;
  const reconnectMs = options.reconnectMs ?? 250;
  const maxReconnectMs = options.maxReconnectMs ?? 5_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  const clock = options.clock ?? Date.now;
  // A delay of 0 or NaN would reconnect in a tight loop against the service, and NaN would never idle: refused at once.
  const badSetting = timerSettingError('reconnectMs', reconnectMs) ?? timerSettingError('maxReconnectMs', maxReconnectMs, reconnectMs) ??
    timerSettingError('idleTimeoutMs', idleTimeoutMs);
  if (badSetting !== undefined) throw new RangeError(badSetting);

  let held: Held | undefined;
  let position: bigint | undefined;
  let heardAt = Date.now();
  /** When the last bytes came: the connection's liveness (a large snapshot may take longer than idleTimeoutMs to arrive). */
  let receivedAt = heardAt;
  let connected = false;
  let lastError: Error | undefined;
  let closed = false;
  let current: AbortController | undefined;
  let waiters: Waiter[] = [];
  /** Set when a change could not be folded into the rule set held: the next connection starts over with a snapshot. */
  let resync = false;

  function heard(): void {
    heardAt = Date.now();
    receivedAt = heardAt;
  }
  function received(): void {
    receivedAt = Date.now();
  }

  function advance(to: bigint): void {
    position = to;
    if (waiters.length === 0) return;
    const ready = waiters.filter((w) => w.position <= to);
    waiters = waiters.filter((w) => w.position > to);
    for (const waiter of ready) waiter.resolve();
  }

  function tell(call: () => void): void {
    try {
      call();
    } catch {
      // A listener's bug must not end the stream.
    }
  }

  function onSnapshot(snapshot: StreamSnapshot): void {
    const state = restoreEvaluationState(snapshot);
    const engine = createEngine();
    // The engine drops a rule that is not ACTIVE: an inactive flag's stub (evaluation-view.ts) is never compiled.
    for (const rule of state.rules.values()) engine.upsert(rule);
    const previous = held?.state.rules;
    // One assignment: an evaluate never sees half a rule set.
    held = { state, engine, limits: snapshot.limits };
    resync = false;
    if (snapshot.position !== null) advance(BigInt(snapshot.position));
    if (listener.snapshot !== undefined) tell(() => listener.snapshot!(state.rules, previous, snapshot.limits));
  }

  function onChange(change: StreamChange): void {
    if (held === undefined) return;
    const rules = held.state.rules;
    const before = listener.change === undefined ? [] : changedRuleIds(change).map((id) => rules.get(id));
    let touched: string[];
    try {
      touched = applyStreamChange(held.state, change);
    } catch (error) {
      // The stream and the rule set held disagree: answered from what is held until a snapshot replaces it.
      if (error instanceof StreamFoldError) resync = true;
      throw error;
    }
    for (const id of touched) {
      const rule = held.state.rules.get(id);
      if (rule === undefined) held.engine.remove(id);
      else held.engine.upsert(rule);
    }
    advance(BigInt(change.position));
    if (listener.change !== undefined) tell(() => listener.change!(rules, touched.map((id, i) => ({ before: before[i], after: rules.get(id) })), change));
  }

  function onEvent(event: SseEvent): void {
    heard();
    switch (event.event) {
      case 'snapshot':
        onSnapshot(JSON.parse(event.data) as StreamSnapshot);
        return;
      case 'change':
        onChange(JSON.parse(event.data) as StreamChange);
        return;
      case 'cutoff':
      case 'shutdown':
      case 'revoked':
        lastError = new Error(`RuleVault ended the stream: ${(JSON.parse(event.data) as { err: string }).err}`);
        return;
    }
  }

  /** One connection, until it ends or fails. */
  async function follow(signal: AbortSignal): Promise<void> {
    if (base === undefined || base === '') throw new Error('no RuleVault URL: pass url or set RULEVAULT_URL');
    if (apiKey === undefined || apiKey === '') throw new Error('no API key: pass apiKey or set RULEVAULT_API_KEY');
    const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, Accept: 'text/event-stream' };
    if (position !== undefined && held !== undefined && !resync) headers['Last-Event-ID'] = position.toString();
    let response: Response;
    try {
      response = await fetch(streamUrl(base), { headers, signal });
    } catch (error) {
      throw new Error(`RuleVault is unreachable at ${base}: ${describe(error)}`, { cause: error });
    }
    if (response.status !== 200 || response.body === null) {
      const text = await response.text().catch(() => '');
      throw new Error(`RuleVault refused the stream (${response.status}): ${errorOf(text)}`);
    }
    connected = true;
    lastError = undefined;
    heard();
    try {
      await readSse(response.body, createSseParser(onEvent, heard), received);
    } finally {
      connected = false;
    }
  }

  async function run(): Promise<void> {
    let delay = reconnectMs;
    while (!closed) {
      const controller = new AbortController();
      current = controller;
      const watchdog = setInterval(() => {
        if (Date.now() - receivedAt > idleTimeoutMs) controller.abort(new Error(`nothing received (no event, heartbeat or byte) for ${idleTimeoutMs} ms`));
      }, Math.min(idleTimeoutMs, 1_000));
      watchdog.unref?.();
      const openedAt = position;
      try {
        await follow(controller.signal);
        lastError ??= new Error('RuleVault closed the stream');
      } catch (error) {
        if (closed) break;
        const reason = controller.signal.aborted ? controller.signal.reason : error;
        lastError = reason instanceof Error ? reason : new Error(String(reason));
      } finally {
        clearInterval(watchdog);
      }
      const failure = lastError;
      if (!closed && failure !== undefined && listener.failed !== undefined) tell(() => listener.failed!(failure));
      // A connection that got somewhere resets the backoff.
      delay = position !== openedAt ? reconnectMs : Math.min(delay * 2, maxReconnectMs);
      if (!closed) await sleep(delay);
    }
  }

  void run();

  return {
    evaluate(request) {
      if (held === undefined) return { err: `no rule set yet from ${base ?? 'RuleVault'}${lastError ? `: ${lastError.message}` : ''}`, status: 503, code: 'unavailable' };
      try {
        const parsed = parseEvaluateRequest(request, held.limits, clock());
        return { err: null, ...evaluate(held.state, held.engine, parsed, held.limits) };
      } catch (error) {
        // The evaluate function's refusals are AppErrors (code and status); anything else is a bug, answered as the service would.
        const message = error instanceof Error ? error.message : String(error);
        return error instanceof AppError ? { err: message, status: error.status, code: error.code } : { err: message, status: 500, code: 'internal' };
      }
    },
    get position() {
      return position;
    },
    get staleness() {
      return Date.now() - heardAt;
    },
    get connected() {
      return connected;
    },
    get lastError() {
      return lastError;
    },
    ready(timeoutMs = 10_000) {
      // waitFor checks the timeout itself.
      return held === undefined ? this.waitFor(0n, timeoutMs) : refusedWait(timeoutMs) ?? Promise.resolve();
    },
    waitFor(target, timeoutMs = 10_000) {
      const refused = refusedWait(timeoutMs);
      if (refused !== undefined) return refused;
      const wanted = logPosition(target);
      if (wanted === undefined) return Promise.reject(new TypeError(`position must be a log position (a whole number, 0 or more), not ${JSON.stringify(String(target))}`));
      if (held !== undefined && position !== undefined && position >= wanted) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          const at = position === undefined ? 'no rule set yet' : `at position ${position}`;
          reject(new Error(`position ${wanted} not reached within ${timeoutMs} ms (${at}, stale for ${Date.now() - heardAt} ms${lastError ? `; ${lastError.message}` : ''})`));
        }, timeoutMs);
        const waiter: Waiter = {
          position: wanted,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        waiters.push(waiter);
      });
    },
    close() {
      closed = true;
      current?.abort(new Error('closed'));
    },
  };
}

/** A wait's timeout that cannot work, as a rejection: past Node's longest timer (or NaN) the wait would end after 1 ms, saying it waited timeoutMs. */
function refusedWait(timeoutMs: number): Promise<never> | undefined {
  const bad = timerSettingError('timeoutMs', timeoutMs, 0);
  return bad === undefined ? undefined : Promise.reject(new RangeError(bad));
}

/** A position as RuleVault-Position gives it (digits) or a bigint; undefined for anything else (BigInt alone would throw, or take '' or ' 1 ' or '0x1f'). */
function logPosition(target: unknown): bigint | undefined {
  if (typeof target === 'bigint') return target >= 0n ? target : undefined;
  // A JavaScript caller's plain number is taken while it is exact.
  if (typeof target === 'number') return Number.isSafeInteger(target) && target >= 0 ? BigInt(target) : undefined;
  return typeof target === 'string' && /^[0-9]+$/.test(target) ? BigInt(target) : undefined;
}

/** The stream's URL under `base`, keeping a path prefix (`https://host/rulevault/`); changes as patches (evaluation-view.ts folds both formats). */
function streamUrl(base: string): URL {
  const url = new URL(STREAM_PATH, base.endsWith('/') ? base : `${base}/`);
  url.searchParams.set('changes', 'patch');
  return url;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function errorOf(text: string): string {
  try {
    const body = JSON.parse(text) as { err?: unknown };
    if (typeof body.err === 'string') return body.err;
  } catch {
    // not JSON: the text itself says more than nothing
  }
  return text.slice(0, 200) || 'no body';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** Feeds a response body to an SSE parser until the body ends; `onBytes` hears of every chunk as it comes. */
export async function readSse(body: ReadableStream<Uint8Array>, parser: { push(chunk: string): void }, onBytes: () => void = () => undefined): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onBytes();
    parser.push(decoder.decode(value, { stream: true }));
  }
}

export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

/**
 * Server-Sent Events, as the HTML standard parses them: lines end in LF, CR
 * or CRLF; `:` starts a comment (our heartbeat); `field: value`; a blank line
 * dispatches the event. Only what this stream uses: event, data, id.
 *
 * Linear in the bytes received, however they are cut: each chunk is scanned
 * once for line ends (the next CR and LF found are kept until passed, so a
 * chunk with no CR is not searched to its end once per line), and a line cut
 * across chunks is kept as its pieces and joined once, at its end. Appending
 * to one buffer string made a 31 MiB snapshot in 64 KiB chunks take 120 s:
 * each chunk copied all before it.
 */
export function createSseParser(onEvent: (event: SseEvent) => void, onComment: () => void): { push(chunk: string): void } {
  /** The pieces of the line not yet ended. */
  let pieces: string[] = [];
  /** The last chunk ended with a CR: an LF starting the next one is the rest of that CRLF. */
  let afterCr = false;
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  function line(text: string): void {
    if (text === '') {
      if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n'), id });
      event = '';
      data = [];
      id = undefined;
      return;
    }
    if (text.startsWith(':')) {
      onComment();
      return;
    }
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  return {
    push(chunk) {
      if (chunk === '') return;
      let start = afterCr && chunk.charCodeAt(0) === LF ? 1 : 0;
      afterCr = false;
      let lf = -2;
      let cr = -2;
      for (;;) {
        if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start);
        if (cr !== -1 && cr < start) cr = chunk.indexOf('\r', start);
        const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        if (end === -1) {
          if (start < chunk.length) pieces.push(chunk.slice(start));
          return;
        }
        const piece = chunk.slice(start, end);
        let text = piece;
        if (pieces.length > 0) {
          pieces.push(piece);
          text = pieces.join('');
          pieces = [];
        }
        line(text);
        if (end === cr && end + 1 === chunk.length) {
          afterCr = true;
          return;
        }
        start = end + (end === cr && chunk.charCodeAt(end + 1) === LF ? 2 : 1);
      }
    },
  };
}

const LF = 10;
