/** Handlers of the Streams gRPC service over a MemoryLog. */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Empty as ProtobufEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import { AllStreamPosition, Empty } from '@eventstore/db-client/generated/shared_pb';
import type { IStreamsServer } from '@eventstore/db-client/generated/streams_grpc_pb';
import {
  AppendReq,
  AppendResp,
  BatchAppendReq,
  BatchAppendResp,
  DeleteResp,
  ReadReq,
  ReadResp,
  TombstoneResp,
} from '@eventstore/db-client/generated/streams_pb';
import { type Expected, type LogPosition, type MemoryLog, type ProposedRecord, type WriteOutcome } from './memory-log';
import {
  batchStatus,
  checkpoint,
  readEvent,
  streamDeletedError,
  streamIdentifier,
  streamName,
  uuidText,
  wrongExpectedVersionError,
} from './messages';
import { filterFromOptions, noFilter, type SubscriptionFilter } from './subscription-filter';

/** What the server needs to stop its long-running calls on shutdown. */
export interface ServiceLifecycle {
  readonly log: MemoryLog;
  isRunning(): boolean;
  /** Counts served calls by method name, so tests can tell which path the client took. */
  count(method: string): void;
}

interface ExpectationSource {
  hasAny(): boolean;
  hasNoStream(): boolean;
  hasStreamExists(): boolean;
}

export function createStreamsService(life: ServiceLifecycle): IStreamsServer {
  const { log } = life;
  return {
    read(call) {
      life.count('Read');
      const options = call.request.getOptions();
      if (options === undefined) return void call.emit('error', invalid('read without options'));
      if (options.hasSubscription()) {
        if (!options.hasAll()) return void call.emit('error', unimplemented('the stand-in subscribes to $all only'));
        void pumpSubscription(life, call, options);
        return;
      }
      const count = BigInt(options.getCount() || '0');
      const backwards = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
      if (options.hasStream()) {
        const streamOptions = options.getStream();
        const stream = streamName(streamOptions?.getStreamIdentifier());
        const from = streamOptions?.hasRevision() ? BigInt(streamOptions.getRevision()) : streamOptions?.hasEnd() ? 'end' : 'start';
        const outcome = log.readStream(stream, backwards ? 'backwards' : 'forwards', from, count);
        if (outcome.kind === 'deleted') return void call.emit('error', streamDeletedError(stream));
        if (outcome.kind === 'not_found') {
          call.write(new ReadResp().setStreamNotFound(new ReadResp.StreamNotFound().setStreamIdentifier(streamIdentifier(stream))));
          return call.end();
        }
        for (const record of outcome.records) call.write(readEvent(record));
        return call.end();
      }
      const records = log.readAll(backwards ? 'backwards' : 'forwards', allFrom(options.getAll()), count);
      for (const record of records) call.write(readEvent(record));
      call.end();
    },

    append(call, callback) {
      life.count('Append');
      let stream = '';
      let expected: Expected = { kind: 'any' };
      const events: ProposedRecord[] = [];
      call.on('data', (request: AppendReq) => {
        const options = request.getOptions();
        if (options) {
          stream = streamName(options.getStreamIdentifier());
          expected = expectation(options, options.hasRevision() ? options.getRevision() : undefined);
        }
        const message = request.getProposedMessage();
        if (message) events.push(proposed(message));
      });
      call.on('end', () => {
        const outcome = log.append(stream, expected, events, new Date());
        switch (outcome.kind) {
          case 'stream_deleted':
            return callback(streamDeletedError(stream));
          case 'wrong_expected_version':
            return callback(null, new AppendResp().setWrongExpectedVersion(wrongExpectedBody(expected, outcome.current)));
          case 'ok':
            return callback(null, new AppendResp().setSuccess(appendSuccess(outcome)));
        }
      });
    },

    batchAppend(call) {
      life.count('BatchAppend');
      // Requests of one correlation id may come in several chunks; the options ride on the first.
      const pending = new Map<string, { stream: string; expected: Expected; events: ProposedRecord[] }>();
      call.on('data', (request: BatchAppendReq) => {
        const correlation = uuidText(request.getCorrelationId());
        const options = request.getOptions();
        const entry = pending.get(correlation) ?? {
          stream: streamName(options?.getStreamIdentifier()),
          expected: options ? expectation(options, options.hasStreamPosition() ? options.getStreamPosition() : undefined) : { kind: 'any' },
          events: [],
        };
        pending.set(correlation, entry);
        for (const message of request.getProposedMessagesList()) entry.events.push(proposed(message));
        if (!request.getIsFinal()) return;
        pending.delete(correlation);
        const response = new BatchAppendResp()
          .setCorrelationId(request.getCorrelationId())
          .setStreamIdentifier(streamIdentifier(entry.stream));
        const outcome = log.append(entry.stream, entry.expected, entry.events, new Date());
        switch (outcome.kind) {
          case 'stream_deleted':
            response.setError(batchStatus({ deletedStream: entry.stream }));
            break;
          case 'wrong_expected_version':
            response.setError(batchStatus({ wrongExpected: { expected: entry.expected, current: outcome.current } }));
            break;
          case 'ok': {
            const success = new BatchAppendResp.Success();
            if (outcome.currentRevision === undefined) success.setNoStream(new ProtobufEmpty());
            else success.setCurrentRevision(outcome.currentRevision.toString());
            if (outcome.position) {
              success.setPosition(
                new AllStreamPosition()
                  .setCommitPosition(outcome.position.commit.toString())
                  .setPreparePosition(outcome.position.prepare.toString()),
              );
            }
            response.setSuccess(success);
            break;
          }
        }
        call.write(response);
      });
      call.on('end', () => call.end());
    },

    delete(call, callback) {
      life.count('Delete');
      const options = call.request.getOptions();
      const stream = streamName(options?.getStreamIdentifier());
      const expected = options ? expectation(options, options.hasRevision() ? options.getRevision() : undefined) : { kind: 'any' as const };
      const outcome = log.softDelete(stream, expected);
      const error = writeError(stream, expected, outcome);
      if (error) return callback(error);
      callback(null, new DeleteResp().setNoPosition(new Empty()));
    },

    tombstone(call, callback) {
      life.count('Tombstone');
      const options = call.request.getOptions();
      const stream = streamName(options?.getStreamIdentifier());
      const expected = options ? expectation(options, options.hasRevision() ? options.getRevision() : undefined) : { kind: 'any' as const };
      const outcome = log.tombstone(stream, expected, new Date());
      const error = writeError(stream, expected, outcome);
      if (error) return callback(error);
      const response = new TombstoneResp();
      if (outcome.kind === 'ok' && outcome.position) {
        response.setPosition(
          new TombstoneResp.Position()
            .setCommitPosition(outcome.position.commit.toString())
            .setPreparePosition(outcome.position.prepare.toString()),
        );
      }
      callback(null, response);
    },
  };
}

/**
 * One $all subscription: confirmation, then history, then caught-up, then
 * live events, all from one cursor over the log so nothing is missed between
 * the phases. Waits for `drain` so a slow client slows the pump down.
 */
async function pumpSubscription(
  life: ServiceLifecycle,
  call: grpc.ServerWritableStream<ReadReq, ReadResp>,
  options: ReadReq.Options,
): Promise<void> {
  const { log } = life;
  let open = true;
  const stop = (): void => {
    open = false;
    log.wake();
  };
  call.on('cancelled', stop);
  call.on('close', stop);
  const from = allFrom(options.getAll());
  let cursor = from === 'start' ? 0 : from === 'end' ? log.length : log.firstIndexAfter(from);
  const filterOptions = options.getFilter();
  const filter: SubscriptionFilter = filterOptions ? filterFromOptions(filterOptions) : noFilter();
  let scanned = 0;
  let caughtUp = false;
  const send = async (message: ReadResp): Promise<void> => {
    if (call.write(message)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        call.off('drain', done);
        call.off('close', done);
        resolve();
      };
      call.on('drain', done);
      call.on('close', done);
    });
  };
  await send(new ReadResp().setConfirmation(new ReadResp.SubscriptionConfirmation().setSubscriptionId(randomUUID())));
  while (open && life.isRunning()) {
    while (open && cursor < log.length) {
      const record = log.at(cursor);
      cursor += 1;
      scanned += 1;
      if (filter.matches(record)) await send(readEvent(record));
      if (filter.checkpointEvery !== undefined && scanned >= filter.checkpointEvery) {
        scanned = 0;
        await send(checkpoint(record));
      }
    }
    if (!open) break;
    if (!caughtUp) {
      caughtUp = true;
      await send(new ReadResp().setCaughtUp(new ReadResp.CaughtUp()));
    }
    // Nothing can be appended between this check and registering the waiter: both are synchronous.
    if (cursor < log.length) continue;
    await log.changed();
  }
}

function allFrom(all: ReadReq.Options.AllOptions | undefined): LogPosition | 'start' | 'end' {
  if (all?.hasPosition()) {
    const position = all.getPosition();
    return { commit: BigInt(position?.getCommitPosition() ?? '0'), prepare: BigInt(position?.getPreparePosition() ?? '0') };
  }
  return all?.hasEnd() ? 'end' : 'start';
}

function expectation(options: ExpectationSource, revision: string | undefined): Expected {
  if (revision !== undefined) return { kind: 'revision', revision: BigInt(revision) };
  if (options.hasNoStream()) return { kind: 'no_stream' };
  if (options.hasStreamExists()) return { kind: 'stream_exists' };
  return { kind: 'any' };
}

function proposed(message: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage): ProposedRecord {
  const map = message.getMetadataMap();
  return {
    id: uuidText(message.getId()),
    type: map.get('type') ?? '',
    contentType: map.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

function appendSuccess(outcome: Extract<WriteOutcome, { kind: 'ok' }>): AppendResp.Success {
  const success = new AppendResp.Success();
  if (outcome.currentRevision === undefined) success.setNoStream(new Empty());
  else success.setCurrentRevision(outcome.currentRevision.toString());
  if (outcome.position === undefined) success.setNoPosition(new Empty());
  else {
    success.setPosition(
      new AppendResp.Position().setCommitPosition(outcome.position.commit.toString()).setPreparePosition(outcome.position.prepare.toString()),
    );
  }
  return success;
}

function wrongExpectedBody(expected: Expected, current: bigint | undefined): AppendResp.WrongExpectedVersion {
  const body = new AppendResp.WrongExpectedVersion();
  if (current === undefined) body.setCurrentNoStream(new Empty());
  else body.setCurrentRevision(current.toString());
  switch (expected.kind) {
    case 'any':
      return body.setExpectedAny(new Empty());
    case 'no_stream':
      return body.setExpectedNoStream(new Empty());
    case 'stream_exists':
      return body.setExpectedStreamExists(new Empty());
    case 'revision':
      return body.setExpectedRevision(expected.revision.toString());
  }
}

function writeError(stream: string, expected: Expected, outcome: WriteOutcome): Partial<grpc.StatusObject> | undefined {
  if (outcome.kind === 'stream_deleted') return streamDeletedError(stream);
  if (outcome.kind === 'wrong_expected_version') return wrongExpectedVersionError(stream, expected, outcome.current);
  return undefined;
}

function invalid(details: string): Partial<grpc.StatusObject> {
  return { code: grpc.status.INVALID_ARGUMENT, details };
}

function unimplemented(details: string): Partial<grpc.StatusObject> {
  return { code: grpc.status.UNIMPLEMENTED, details };
}
