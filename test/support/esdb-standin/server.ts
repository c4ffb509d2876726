/**
 * An in-process stand-in for an EventStoreDB node: the subset of its gRPC
 * protocol that @eventstore/db-client 6 uses for streams, served with the
 * client's own generated service definitions and messages. The log lives in
 * memory and survives stop()/start(), so tests can kill the "server" under a
 * live client and bring it back on the same port.
 */
import * as grpc from '@grpc/grpc-js';
import { ServerFeaturesService } from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import { SupportedMethod, SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb';
import { StreamsService } from '@eventstore/db-client/generated/streams_grpc_pb';
import { MemoryLog } from './memory-log';
import { createStreamsService } from './streams-service';

export interface StandinOptions {
  /**
   * Answer ServerFeatures and advertise BatchAppend, as servers since 21.10
   * do; the client then appends over BatchAppend. Otherwise ServerFeatures is
   * UNIMPLEMENTED and the client falls back to plain Append.
   */
  readonly batchAppend?: boolean;
  /** Records in `$`-system and foreign streams written before any test event (default true). */
  readonly seedForeignEvents?: boolean;
}

export interface EsdbStandin {
  readonly log: MemoryLog;
  /** Port bound by the last start(); 0 before. */
  readonly port: number;
  /** `esdb://127.0.0.1:<port>?tls=false` */
  readonly connectionString: string;
  /** Listens on `port` (0: any free port); resolves with the bound port. */
  start(port?: number): Promise<number>;
  /** Kills every call at once, like a crashed node; the log is kept. */
  stop(): Promise<void>;
  /** stop() then start() on the same port. */
  restart(): Promise<void>;
  /** How many calls of a Streams method (`Append`, `BatchAppend`, `Read`, ...) the stand-in has served. */
  calls(method: string): number;
}

/** Creates a stand-in; call start() to listen. */
export function createEsdbStandin(options: StandinOptions = {}): EsdbStandin {
  const log = new MemoryLog();
  if (options.seedForeignEvents ?? true) seedForeignEvents(log);
  let server: grpc.Server | undefined;
  let port = 0;
  const counts = new Map<string, number>();
  const life = {
    log,
    isRunning: () => server !== undefined,
    count: (method: string) => void counts.set(method, (counts.get(method) ?? 0) + 1),
  };

  const start = async (requested = port): Promise<number> => {
    if (server) throw new Error('the stand-in is already running');
    const next = new grpc.Server();
    next.addService(StreamsService, createStreamsService(life));
    if (options.batchAppend) next.addService(ServerFeaturesService, { getSupportedMethods: supportedMethods });
    port = await new Promise<number>((resolve, reject) =>
      next.bindAsync(`127.0.0.1:${requested}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    server = next;
    return port;
  };

  const stop = async (): Promise<void> => {
    const current = server;
    server = undefined;
    current?.forceShutdown();
    log.wake();
  };

  return {
    log,
    get port() {
      return port;
    },
    get connectionString() {
      return `esdb://127.0.0.1:${port}?tls=false`;
    },
    start,
    stop,
    calls: (method) => counts.get(method) ?? 0,
    async restart() {
      await stop();
      await start(port);
    },
  };
}

const supportedMethods: grpc.handleUnaryCall<unknown, SupportedMethods> = (_call, callback) => {
  const streams = ['Read', 'Append', 'BatchAppend', 'Delete', 'Tombstone'].map((name) =>
    new SupportedMethod().setServiceName('event_store.client.streams.Streams').setMethodName(name),
  );
  callback(null, new SupportedMethods().setEventStoreServerVersion('0.0.0-standin').setMethodsList(streams));
};

/** A shared EventStoreDB holds system and other applications' events; adapters must skip them. */
function seedForeignEvents(log: MemoryLog): void {
  const json = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');
  const at = new Date(0);
  log.append('$settings', { kind: 'any' }, [
    { id: '11111111-1111-4111-8111-111111111111', type: '$settings', contentType: 'application/json', data: json({}), customMetadata: new Uint8Array() },
  ], at);
  log.append('billing-7', { kind: 'any' }, [
    { id: '22222222-2222-4222-8222-222222222222', type: 'InvoiceRaised', contentType: 'application/json', data: json({ amount: 3 }), customMetadata: new Uint8Array() },
  ], at);
}
