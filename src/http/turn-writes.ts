/**
 * The lean path's answers, written together at the end of the event-loop
 * turn that computed them, as Redis writes its replies just before it
 * sleeps. One turn reads every request that arrived since the last (dozens
 * under load); answering each as it is computed interleaves the writes with
 * the work, so a client that keeps connections busy is woken for every
 * answer. Written in one run at the turn's end, the answers reach it as a
 * burst it reads in one wake: on this 2-core machine, where the load
 * generator shares the cores, the kernel's wake-up per answer fell from ~4.8
 * to ~0.6 µs (perf) and system CPU per evaluate from 7.6 to 5.7 µs; req/s
 * rose with pipelined callers, and at p=1 by less than the bench resolves
 * (bench: http-evaluate with RULEVAULT_ANSWER_BATCH=1 and 64; cpu-per-request
 * --workload evaluate --variant now:RULEVAULT_ANSWER_BATCH=1; docs/performance.md).
 *
 * A request's answer may be held as the work that computes it: the turn's
 * computations then run back to back at its end, before its writes. Run as
 * each body arrived, every evaluation followed another request's parsing
 * and a socket write and found the engine's code and data evicted; run
 * together they share what is cached: server CPU per evaluate fell from
 * 37.9 to 32.2 µs (bench: cpu-per-request --workload evaluate against a
 * build without it, in alternating rounds).
 *
 * The cost is latency: an answer waits for the others of its turn, at most
 * `limit - 1` of them (the batch is written as soon as it holds `limit`). A
 * turn with one request, an idle service's, adds one `setImmediate` hop.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../base/log';
import { INTERNAL_MESSAGE } from '../base/errors';
import type { Answer } from './answer';
import { errorAnswer, errorText } from './errors';

/** What writing an answer uses of a response. */
export type AnswerTarget = Pick<ServerResponse, 'writeHead' | 'end' | 'destroy'>;

/** An answer, or the work that computes it (run once, by the end of the turn at the latest). */
export type HeldAnswer = Answer | (() => Answer);

/** Writes an answer on its response, now or with the rest of its turn. */
export type AnswerWriter = (res: AnswerTarget, answer: HeldAnswer) => void;

/** Computes the answer if need be and writes it at once. */
export function writeAnswer(res: AnswerTarget, answer: HeldAnswer): void {
  const finished = typeof answer === 'function' ? answer() : answer;
  res.writeHead(finished.status, finished.headers);
  res.end(finished.body);
}

// What a held computation that throws is answered with, as guarded() answers a throw that escapes a handler (fast-path.ts).
const INTERNAL_ANSWER: Answer = errorAnswer(500, 'internal', INTERNAL_MESSAGE);

/**
 * An AnswerWriter that holds answers (and computations) until the end of the
 * current turn, or until `limit` are held; `limit` 1 (or less) computes and
 * writes each at once.
 */
export function createTurnWriter(limit: number, logger: Logger): AnswerWriter {
  if (limit <= 1) return writeAnswer;
  // Pairs (response, answer): one array per turn, no object per answer.
  let held: (AnswerTarget | HeldAnswer)[] = [];
  let scheduled = false;

  const flush = (): void => {
    const batch = held;
    held = [];
    // Every held computation first, back to back, then every write: the engine's code and hot data stay in cache
    // across the turn's evaluations instead of being evicted by each request's parsing and writing (bench: http-evaluate).
    for (let i = 1; i < batch.length; i += 2) {
      const answer = batch[i] as HeldAnswer;
      if (typeof answer !== 'function') continue;
      try {
        batch[i] = answer();
      } catch (error) {
        logger.error('answer could not be computed', { error: errorText(error) });
        batch[i] = INTERNAL_ANSWER;
      }
    }
    for (let i = 0; i < batch.length; i += 2) {
      const res = batch[i] as AnswerTarget;
      try {
        writeAnswer(res, batch[i + 1] as Answer);
      } catch (error) {
        // Never the batch's other answers: this one's connection is cut, as guarded() does (fast-path.ts).
        logger.error('answer could not be written', { error: errorText(error) });
        res.destroy();
      }
    }
  };
  const turnEnd = (): void => {
    scheduled = false;
    flush();
  };

  return (res, answer) => {
    held.push(res, answer);
    if (held.length >= 2 * limit) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(turnEnd);
    }
  };
}
