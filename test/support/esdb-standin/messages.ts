/** Protobuf messages of the stand-in, built with the client's own generated classes. */
import * as grpc from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { StreamDeleted, StreamIdentifier, UUID, WrongExpectedVersion } from '@eventstore/db-client/generated/shared_pb';
import { Empty as ProtobufEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import { Status } from '@eventstore/db-client/generated/status_pb';
import { ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { Expected, LogPosition, LogRecord } from './memory-log';

/** Values EventStoreDB puts in `expected-version` metadata for the symbolic expectations. */
const EXPECTED_CODES = { any: -2n, no_stream: -1n, stream_exists: -4n } as const;

export function streamName(identifier: StreamIdentifier | undefined): string {
  return Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');
}

export function streamIdentifier(name: string): StreamIdentifier {
  return new StreamIdentifier().setStreamName(Buffer.from(name, 'utf8'));
}

export function uuidText(uuid: UUID | undefined): string {
  if (uuid === undefined) return '';
  if (!uuid.hasStructured()) return uuid.getString();
  const structured = uuid.getStructured();
  const bytes = Buffer.alloc(16);
  bytes.writeBigInt64BE(BigInt(structured?.getMostSignificantBits() ?? '0'), 0);
  bytes.writeBigInt64BE(BigInt(structured?.getLeastSignificantBits() ?? '0'), 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function readEvent(record: LogRecord): ReadResp {
  const recorded = new ReadResp.ReadEvent.RecordedEvent()
    .setId(new UUID().setString(record.id))
    .setStreamIdentifier(streamIdentifier(record.stream))
    .setStreamRevision(record.revision.toString())
    .setCommitPosition(record.commit.toString())
    .setPreparePosition(record.prepare.toString())
    .setCustomMetadata(record.customMetadata)
    .setData(record.data);
  const map = recorded.getMetadataMap();
  map.set('type', record.type);
  map.set('content-type', record.contentType);
  map.set('created', record.createdTicks.toString());
  const event = new ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(record.commit.toString());
  return new ReadResp().setEvent(event);
}

export function checkpoint(position: LogPosition): ReadResp {
  const message = new ReadResp.Checkpoint()
    .setCommitPosition(position.commit.toString())
    .setPreparePosition(position.prepare.toString());
  return new ReadResp().setCheckpoint(message);
}

export function expectedCode(expected: Expected): bigint {
  return expected.kind === 'revision' ? expected.revision : EXPECTED_CODES[expected.kind];
}

/** A status error the way EventStoreDB raises it: the kind in `exception` metadata. */
export function statusError(code: grpc.status, details: string, entries: Record<string, string>): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return { code, details, metadata };
}

export function streamDeletedError(stream: string): Partial<grpc.StatusObject> {
  return statusError(grpc.status.FAILED_PRECONDITION, `Event stream '${stream}' is deleted.`, {
    exception: 'stream-deleted',
    'stream-name': stream,
  });
}

export function wrongExpectedVersionError(stream: string, expected: Expected, current: bigint | undefined): Partial<grpc.StatusObject> {
  const entries: Record<string, string> = {
    exception: 'wrong-expected-version',
    'stream-name': stream,
    'expected-version': expectedCode(expected).toString(),
  };
  if (current !== undefined) entries['actual-version'] = current.toString();
  return statusError(grpc.status.FAILED_PRECONDITION, `Append failed due to WrongExpectedVersion. Stream: ${stream}`, entries);
}

/** BatchAppend reports failures as a google.rpc.Status with packed details. */
export function batchStatus(details: { wrongExpected?: { expected: Expected; current: bigint | undefined }; deletedStream?: string }): Status {
  const any = new Any();
  if (details.wrongExpected) {
    const { expected, current } = details.wrongExpected;
    const message = new WrongExpectedVersion();
    if (current === undefined) message.setCurrentNoStream(new ProtobufEmpty());
    else message.setCurrentStreamRevision(current.toString());
    switch (expected.kind) {
      case 'any':
        message.setExpectedAny(new ProtobufEmpty());
        break;
      case 'no_stream':
        message.setExpectedNoStream(new ProtobufEmpty());
        break;
      case 'stream_exists':
        message.setExpectedStreamExists(new ProtobufEmpty());
        break;
      case 'revision':
        message.setExpectedStreamPosition(expected.revision.toString());
        break;
    }
    any.pack(message.serializeBinary(), 'event_store.client.WrongExpectedVersion');
    return new Status().setCode(9).setMessage('Wrong expected version').setDetails(any);
  }
  const deleted = new StreamDeleted().setStreamIdentifier(streamIdentifier(details.deletedStream ?? ''));
  any.pack(deleted.serializeBinary(), 'event_store.client.StreamDeleted');
  return new Status().setCode(9).setMessage('Stream deleted').setDetails(any);
}
