/**
 * Configuration: the only module that reads `process.env`. Defaults live in
 * one object, every value is validated at start-up, and the result is frozen.
 * A bad value throws a `ConfigError` naming the variable.
 */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { CRASH_POINTS, FAIL_POINTS, type CrashPoint, type FailPoint } from './crash-points';
import { LOG_LEVELS, type LogLevel } from './log';
import type { Limits } from './limits';

export type { Limits } from './limits';


export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** `sqlite:<path>` or an EventStoreDB connection string. */
  readonly eventStore: string;
  /** Base64 master key from the environment, if given. */
  readonly masterKey: string | undefined;
  /** Base64 target key for `cli rotate-master-key` when keys come from the environment. */
  readonly newMasterKey: string | undefined;
  /** Base64 seed of the hash chain's Ed25519 signing key, if given (else `<dataDir>/signing.key`). */
  readonly signingKey: string | undefined;
  /** Base64 seed of the next signing key for `audit signing-key rotate` when keys come from the environment. */
  readonly newSigningKey: string | undefined;
  /** Events between two signed checkpoints of the hash chain the service writes; 0: none (on demand only). */
  readonly chainCheckpointEvery: number;
  /** SHA-256 (hex) of RULEVAULT_ADMIN_KEY; the key itself is not kept. */
  readonly adminKeyHash: string | undefined;
  /** Allowed browser origins, exact `scheme://host[:port]`. */
  readonly corsOrigins: readonly string[];
  readonly publicUrl: string | undefined;
  readonly limits: Limits;
  /** Milliseconds a graceful shutdown waits for in-flight requests. */
  readonly shutdownGraceMs: number;
  /** Milliseconds a client has to send its headers, and its whole request (slow clients are cut off). */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly logLevel: LogLevel;
  /** Answers the lean path holds to write together at the end of an event-loop turn; 0 or 1: each at once (src/http/turn-writes.ts). */
  readonly answerBatch: number;
  /** The embedded store's group commit (default on): concurrent writes share one sync of the disk. */
  readonly groupCommit: boolean;
  /** Serve POST /bench/noop, the benchmark's same-app baseline (off in production). */
  readonly benchRoutes: boolean;
  /**
   * `RULEVAULT_*` variables in the environment that no part of RuleVault reads
   * (a typo, usually), each with the closest known name; start-up warns about them.
   */
  readonly unknownVariables: readonly UnknownVariable[];
  /** Milliseconds between read-model snapshots; 0 turns snapshots off. */
  readonly snapshotIntervalMs: number;
  /**
   * Which snapshots carry the compiled engine's image: `shutdown` (default:
   * taking it blocks a serving process, ~1.7 s at 1M rules) or `every` (a
   * start after a crash restores it instead of compiling every rule).
   */
  readonly snapshotEngineImage: SnapshotEngineImage;
  /** Base checkpoints audit evaluate keeps (src/audit/time-travel.ts): memory against fold length. */
  readonly auditCheckpoints: number;
  /** Entries of read-model maps audit's checkpoints and points may hold together (src/audit/time-travel.ts). */
  readonly auditHeldRecords: number;
  /** Bearer token that may read /metrics besides admin keys; undefined: admin keys only. */
  readonly metricsTokenHash: string | undefined;
  /** The change stream (src/service/change-feed.ts, docs/change-stream.md). */
  readonly stream: StreamSettings;
  /** POST /api/import and `rulevault import` (src/service/import.ts, docs/api.md#import). */
  readonly import: ImportSettings;
  /** Distinct approvers a change request needs before it applies (docs/change-requests.md); its author never counts. */
  readonly approvalsRequired: number;
  /** Tests only: the erasure step at which the process kills itself (src/base/crash-points.ts). */
  readonly testCrashAt: CrashPoint | FailPoint | undefined;
  /** Decision records and the secret-read audit (src/audit/sink.ts, docs/auditors.md). */
  readonly auditSink: AuditSinkSettings;
  /**
   * HTTP worker processes (src/cluster/): 1 serves from this process; more
   * fork that many workers, each with its own read models, and this process
   * becomes the writer that decides every write (docs/operations.md#workers).
   */
  readonly workers: number;
}

export interface AuditSinkSettings {
  /** Folder of the sink files (decisions-<id>.ndjson, secret-reads.db). */
  readonly dir: string;
  readonly decisions: {
    /** Decision records are written at all (every answer carries a decision id regardless). */
    readonly enabled: boolean;
    /** Fraction of evaluate answers recorded, above 0 and at most 1. */
    readonly sampleRate: number;
    /** Paths of input fields and prompt variables whose values records keep as "[masked]" (`customer.ssn`; `*` one segment, `**` any number: src/audit/decision-mask.ts). */
    readonly maskFields: readonly string[];
    /** Records waiting to be written, at most; more are dropped and counted. */
    readonly queueCapacity: number;
    /** Bytes of one NDJSON file of records before the next is started. */
    readonly maxFileBytes: number;
    /** Files kept; the oldest is deleted past it. */
    readonly maxFiles: number;
  };
  /** Decision records an impact report replays at most (audit/impact.ts); reading stops at the bound and the report says so. */
  readonly impactMaxDecisions: number;
  readonly secretReads: {
    /** A read whose record cannot be written answers an error instead of the values. */
    readonly failClosed: boolean;
    readonly maxRecords: number;
  };
}

export interface StreamSettings {
  /** Milliseconds between heartbeat comment lines on every open stream. */
  readonly heartbeatMs: number;
  /** Unsent bytes a subscriber may have queued (past its first snapshot) before it is cut off. */
  readonly maxBufferBytes: number;
  /** Changes kept for resuming from Last-Event-ID; an older position gets a fresh snapshot. */
  readonly replayEvents: number;
  /** Bytes of change frames kept for resuming, whichever bound comes first: the window's memory, whatever the frames' size. */
  readonly replayBytes: number;
  /** Bytes a snapshot event may take; a larger view is refused (a client holds it as one string, and V8's strings stop short of 512 MiB). */
  readonly maxSnapshotBytes: number;
}

export interface ImportSettings {
  /** Items (rules, contexts, prompts) in one import; more is a 413. */
  readonly maxItems: number;
  /** Bytes of one import's body (it has its own limit: RULEVAULT_MAX_BODY_BYTES is for single writes); more is a 413. */
  readonly maxBytes: number;
}

/** The largest snapshot event a client can hold as one string: V8's limit is 2^29 - 24 UTF-16 units, and a byte is at most a unit. */
const MAX_SNAPSHOT_BYTES = 500 * 1024 * 1024;

export const DEFAULTS = {
  port: 3000,
  host: '127.0.0.1',
  dataDir: './data',
  limits: {
    maxBodyBytes: 1024 * 1024, // 1 MiB
    maxFields: 256,
    maxFieldKeyLength: 256,
    maxFieldValueLength: 64 * 1024, // 64 KiB of characters
    maxRegexLength: 1000,
    // Prompt templates: chosen so that parsing the worst template allowed stays
    // near 50 ms and a render near a few ms on the build machine (docs/prompts.md#limits).
    templateMaxBytes: 512 * 1024, // bytes
    templateMaxExpressions: 1000,
    templateMaxDepth: 20,
    renderMaxBytes: 1024 * 1024, // bytes
    responseMaxRenderBytes: 4 * 1024 * 1024, // bytes
    renderMaxSteps: 20_000,
  },
  shutdownGraceMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // The answers one turn writes together at most: ~64 x 20 µs of work, ~1.3 ms, is the longest an answer waits here.
  answerBatch: 64,
  snapshotIntervalMs: 5 * 60_000,
  auditCheckpoints: 512,
  approvalsRequired: 1,
  auditHeldRecords: 8_000_000,
  chainCheckpointEvery: 1000, // events
  decisionLog: {
    sampleRate: 1,
    queueCapacity: 10_000, // records
    maxFileBytes: 64 * 1024 * 1024, // bytes
    maxFiles: 16,
  },
  impactMaxDecisions: 10_000,
  readAuditMaxRecords: 1_000_000,
  workers: 1, // processes; `auto` is the cores, up to maxAutoWorkers
  maxAutoWorkers: 8,
  stream: {
    heartbeatMs: 15_000,
    maxBufferBytes: 4 * 1024 * 1024, // bytes
    replayEvents: 10_000,
    // Per process (each worker keeps its own window): 10k changes of ~1.6 KiB.
    replayBytes: 16 * 1024 * 1024, // bytes
    maxSnapshotBytes: 256 * 1024 * 1024, // bytes
  },
  import: {
    // 100k standard-workload rules are ~40 MB of NDJSON (bench: import).
    maxItems: 100_000,
    maxBytes: 128 * 1024 * 1024, // bytes
  },
} as const;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

export interface UnknownVariable {
  readonly variable: string;
  readonly closest: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Read by the client library (src/client), not by the service; not a typo when set. */
const CLIENT_VARIABLES = ['RULEVAULT_URL', 'RULEVAULT_API_KEY'];
/** The test suite's own switches (test/support); never reported. */
const TEST_PREFIX = 'RULEVAULT_TEST_';

export function loadConfig(env: Env = process.env): Config {
  // Every variable loadConfig asks for is a known one: recording the reads keeps the list of known names from drifting.
  const read = new Set<string>(CLIENT_VARIABLES);
  const tracked = new Proxy(env, {
    get: (target, name) => {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  const config = readConfig(tracked);
  return Object.freeze({ ...config, unknownVariables: Object.freeze(unknownVariables(env, read)) });
}

function readConfig(env: Env): Omit<Config, 'unknownVariables'> {
  const dataDir = nonEmpty(env, 'RULEVAULT_DATA_DIR') ?? DEFAULTS.dataDir;
  const publicUrl = nonEmpty(env, 'RULEVAULT_PUBLIC_URL');
  const corsOrigins = [
    ...originList(env, 'RULEVAULT_ALLOWED_CORS_ORIGINS'),
    ...originList(env, 'RULEVAULT_ALLOWED_ORIGINS'),
  ];
  if (publicUrl !== undefined) corsOrigins.push(publicOrigin(publicUrl));
  return {
    port: integer(env, 'PORT', DEFAULTS.port, 0, 65535),
    host: nonEmpty(env, 'HOST') ?? DEFAULTS.host,
    dataDir,
    eventStore: eventStore(env, dataDir),
    masterKey: nonEmpty(env, 'RULEVAULT_MASTER_KEY'),
    newMasterKey: nonEmpty(env, 'RULEVAULT_NEW_MASTER_KEY'),
    signingKey: nonEmpty(env, 'RULEVAULT_SIGNING_KEY'),
    newSigningKey: nonEmpty(env, 'RULEVAULT_NEW_SIGNING_KEY'),
    chainCheckpointEvery: integer(env, 'RULEVAULT_CHAIN_CHECKPOINT_EVERY', DEFAULTS.chainCheckpointEvery, 0, 100_000_000),
    adminKeyHash: optionalSecretHash(env, 'RULEVAULT_ADMIN_KEY'),
    corsOrigins: Object.freeze([...new Set(corsOrigins)]),
    publicUrl,
    limits: Object.freeze({
      maxBodyBytes: integer(env, 'RULEVAULT_MAX_BODY_BYTES', DEFAULTS.limits.maxBodyBytes, 1024, 64 * 1024 * 1024),
      maxFields: integer(env, 'RULEVAULT_MAX_FIELDS', DEFAULTS.limits.maxFields, 1, 100_000),
      maxFieldKeyLength: integer(env, 'RULEVAULT_MAX_FIELD_KEY_LENGTH', DEFAULTS.limits.maxFieldKeyLength, 1, 65_536),
      maxFieldValueLength: integer(env, 'RULEVAULT_MAX_FIELD_VALUE_LENGTH', DEFAULTS.limits.maxFieldValueLength, 1, 16 * 1024 * 1024),
      maxRegexLength: integer(env, 'RULEVAULT_MAX_REGEX_LENGTH', DEFAULTS.limits.maxRegexLength, 1, 100_000),
      templateMaxBytes: integer(env, 'RULEVAULT_TEMPLATE_MAX_BYTES', DEFAULTS.limits.templateMaxBytes, 1, 16 * 1024 * 1024),
      templateMaxExpressions: integer(env, 'RULEVAULT_TEMPLATE_MAX_EXPRESSIONS', DEFAULTS.limits.templateMaxExpressions, 1, 1_000_000),
      templateMaxDepth: integer(env, 'RULEVAULT_TEMPLATE_MAX_DEPTH', DEFAULTS.limits.templateMaxDepth, 1, 1000),
      renderMaxBytes: integer(env, 'RULEVAULT_RENDER_MAX_BYTES', DEFAULTS.limits.renderMaxBytes, 1, 256 * 1024 * 1024),
      responseMaxRenderBytes: integer(env, 'RULEVAULT_RESPONSE_MAX_RENDER_BYTES', DEFAULTS.limits.responseMaxRenderBytes, 1, 256 * 1024 * 1024),
      renderMaxSteps: integer(env, 'RULEVAULT_RENDER_MAX_STEPS', DEFAULTS.limits.renderMaxSteps, 1, 1_000_000_000),
    }),
    shutdownGraceMs: integer(env, 'RULEVAULT_SHUTDOWN_GRACE_MS', DEFAULTS.shutdownGraceMs, 0, 600_000),
    headersTimeoutMs: integer(env, 'RULEVAULT_HEADERS_TIMEOUT_MS', DEFAULTS.headersTimeoutMs, 100, 600_000),
    requestTimeoutMs: integer(env, 'RULEVAULT_REQUEST_TIMEOUT_MS', DEFAULTS.requestTimeoutMs, 100, 3_600_000),
    logLevel: logLevel(env),
    benchRoutes: flag(env, 'RULEVAULT_BENCH_ROUTES', false),
    answerBatch: integer(env, 'RULEVAULT_ANSWER_BATCH', DEFAULTS.answerBatch, 0, 65_536),
    workers: workerCount(env),
    groupCommit: flag(env, 'RULEVAULT_GROUP_COMMIT', true),
    snapshotIntervalMs: integer(env, 'RULEVAULT_SNAPSHOT_INTERVAL_MS', DEFAULTS.snapshotIntervalMs, 0, 7 * 24 * 3_600_000),
    snapshotEngineImage: snapshotEngineImage(env),
    metricsTokenHash: optionalSecretHash(env, 'RULEVAULT_METRICS_TOKEN'),
    auditCheckpoints: integer(env, 'RULEVAULT_AUDIT_CHECKPOINTS', DEFAULTS.auditCheckpoints, 2, 65_536),
    approvalsRequired: integer(env, 'RULEVAULT_APPROVALS_REQUIRED', DEFAULTS.approvalsRequired, 1, 100),
    auditHeldRecords: integer(env, 'RULEVAULT_AUDIT_HELD_RECORDS', DEFAULTS.auditHeldRecords, 0, 1_000_000_000),
    stream: Object.freeze({
      heartbeatMs: integer(env, 'RULEVAULT_STREAM_HEARTBEAT_MS', DEFAULTS.stream.heartbeatMs, 10, 3_600_000),
      maxBufferBytes: integer(env, 'RULEVAULT_STREAM_MAX_BUFFER_BYTES', DEFAULTS.stream.maxBufferBytes, 1024, 1024 * 1024 * 1024),
      replayEvents: integer(env, 'RULEVAULT_STREAM_REPLAY_EVENTS', DEFAULTS.stream.replayEvents, 0, 10_000_000),
      replayBytes: integer(env, 'RULEVAULT_STREAM_REPLAY_BYTES', DEFAULTS.stream.replayBytes, 0, 64 * 1024 * 1024 * 1024),
      maxSnapshotBytes: integer(env, 'RULEVAULT_STREAM_MAX_SNAPSHOT_BYTES', DEFAULTS.stream.maxSnapshotBytes, 1024, MAX_SNAPSHOT_BYTES),
    }),
    import: Object.freeze({
      maxItems: integer(env, 'RULEVAULT_IMPORT_MAX_ITEMS', DEFAULTS.import.maxItems, 1, 10_000_000),
      // A JS string holds at most ~512 MiB: the body is decoded into one.
      maxBytes: integer(env, 'RULEVAULT_IMPORT_MAX_BYTES', DEFAULTS.import.maxBytes, 1024, 512 * 1024 * 1024),
    }),
    testCrashAt: crashPointSetting(env),
    auditSink: Object.freeze({
      dir: nonEmpty(env, 'RULEVAULT_AUDIT_DIR') ?? `${dataDir.replace(/\/+$/, '')}/audit`,
      decisions: Object.freeze({
        enabled: flag(env, 'RULEVAULT_DECISION_LOG', false),
        sampleRate: fraction(env, 'RULEVAULT_DECISION_LOG_SAMPLE_RATE', DEFAULTS.decisionLog.sampleRate),
        maskFields: Object.freeze(nameList(env, 'RULEVAULT_DECISION_LOG_MASK_FIELDS')),
        queueCapacity: integer(env, 'RULEVAULT_DECISION_LOG_QUEUE', DEFAULTS.decisionLog.queueCapacity, 1, 10_000_000),
        maxFileBytes: integer(env, 'RULEVAULT_DECISION_LOG_MAX_FILE_BYTES', DEFAULTS.decisionLog.maxFileBytes, 4096, 64 * 1024 * 1024 * 1024),
        maxFiles: integer(env, 'RULEVAULT_DECISION_LOG_MAX_FILES', DEFAULTS.decisionLog.maxFiles, 2, 100_000),
      }),
      impactMaxDecisions: integer(env, 'RULEVAULT_IMPACT_MAX_DECISIONS', DEFAULTS.impactMaxDecisions, 1, 10_000_000),
      secretReads: Object.freeze({
        failClosed: flag(env, 'RULEVAULT_READ_AUDIT_FAIL_CLOSED', false),
        maxRecords: integer(env, 'RULEVAULT_READ_AUDIT_MAX_RECORDS', DEFAULTS.readAuditMaxRecords, 1000, 1_000_000_000),
      }),
    }),
  };
}

/** A decimal above 0 and at most 1 (`0.01` is 1%). */
function fraction(env: Env, name: string, fallback: number): number {
  const text = nonEmpty(env, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^[0-9]*\.?[0-9]+$/.test(text) || !(value > 0 && value <= 1)) {
    throw new ConfigError(name, `must be a fraction above 0 and at most 1 (0.01 is 1%), got "${text}"`);
  }
  return value;
}

/** A comma-separated list of names, trimmed, empty entries dropped. */
function nameList(env: Env, name: string): string[] {
  const text = nonEmpty(env, name);
  return text === undefined ? [] : [...new Set(text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))];
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** RFC 6750's b64token: the characters a client can send after `Authorization: Bearer `. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A bearer secret from the environment, kept only as its SHA-256. */
function optionalSecretHash(env: Env, name: string): string | undefined {
  const value = nonEmpty(env, name);
  if (value === undefined) return undefined;
  if (value.length < 32) {
    throw new ConfigError(name, 'must be at least 32 characters (use 256 random bits, e.g. `openssl rand -base64 32`)');
  }
  // A token no client can send would lock every caller out: refuse it at start rather than answer 401 forever.
  if (!BEARER_TOKEN.test(value)) {
    throw new ConfigError(
      name,
      'cannot be sent as a bearer token: use only letters, digits and - . _ ~ + / (then = at the end), ' +
        'no spaces or other characters (e.g. `openssl rand -base64 32`)',
    );
  }
  return sha256Hex(value);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const value = nonEmpty(env, name);
  if (value === undefined) return fallback;
  if (value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ConfigError(name, `must be 1/true or 0/false, got "${value}"`);
}

export const SNAPSHOT_ENGINE_IMAGES = ['shutdown', 'every'] as const;
export type SnapshotEngineImage = (typeof SNAPSHOT_ENGINE_IMAGES)[number];

function snapshotEngineImage(env: Env): SnapshotEngineImage {
  const value = nonEmpty(env, 'RULEVAULT_SNAPSHOT_ENGINE_IMAGE') ?? 'shutdown';
  if (!(SNAPSHOT_ENGINE_IMAGES as readonly string[]).includes(value)) {
    throw new ConfigError('RULEVAULT_SNAPSHOT_ENGINE_IMAGE', `must be one of ${SNAPSHOT_ENGINE_IMAGES.join(', ')}, got "${value}"`);
  }
  return value as SnapshotEngineImage;
}

function logLevel(env: Env): LogLevel {
  const value = nonEmpty(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  }
  return value as LogLevel;
}

function crashPointSetting(env: Env): CrashPoint | FailPoint | undefined {
  const value = nonEmpty(env, 'RULEVAULT_TEST_CRASH_AT');
  if (value === undefined) return undefined;
  const points: readonly string[] = [...CRASH_POINTS, ...FAIL_POINTS];
  if (!points.includes(value)) {
    throw new ConfigError('RULEVAULT_TEST_CRASH_AT', `is for tests only; must be one of ${points.join(', ')}, got "${value}"`);
  }
  return value as CrashPoint | FailPoint;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = nonEmpty(env, name);
  if (text === undefined) return fallback;
  if (!/^[0-9]+$/.test(text)) throw new ConfigError(name, `must be a whole number, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** RULEVAULT_WORKERS: a whole number, or `auto` (the cores this process may use, at most DEFAULTS.maxAutoWorkers). */
function workerCount(env: Env): number {
  const text = nonEmpty(env, 'RULEVAULT_WORKERS');
  if (text?.toLowerCase() === 'auto') return Math.min(availableParallelism(), DEFAULTS.maxAutoWorkers);
  if (text !== undefined && !/^[0-9]+$/.test(text)) throw new ConfigError('RULEVAULT_WORKERS', `must be a whole number from 1 to 64, or auto, got "${text}"`);
  return integer(env, 'RULEVAULT_WORKERS', DEFAULTS.workers, 1, 64);
}

function eventStore(env: Env, dataDir: string): string {
  const value = nonEmpty(env, 'RULEVAULT_EVENTSTORE') ?? `sqlite:${dataDir.replace(/\/+$/, '')}/events.db`;
  if (value.startsWith('sqlite:')) {
    if (value.length === 'sqlite:'.length) throw new ConfigError('RULEVAULT_EVENTSTORE', 'sqlite: needs a file path, e.g. sqlite:./data/events.db');
    return value;
  }
  if (/^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kurrent|kurrent\+discover):\/\/.+/.test(value)) return value;
  throw new ConfigError(
    'RULEVAULT_EVENTSTORE',
    'must be sqlite:<path> or an EventStoreDB connection string (esdb://host:2113?tls=false)',
  );
}

/** A comma-separated list of complete origins; `*` or anything else refuses start-up. */
function originList(env: Env, name: string): string[] {
  const text = nonEmpty(env, name);
  if (text === undefined) return [];
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      if (entry === '*') throw new ConfigError(name, '"*" is not allowed: list each origin (https://app.example.com)');
      // The URL parser takes `https://*.example.com` as a host named "*.example.com", which no browser ever sends.
      if (entry.includes('*')) {
        throw new ConfigError(name, `"${entry}": wildcards are not supported, list each origin (https://app.example.com)`);
      }
      const origin = parseOrigin(entry);
      if (origin !== entry) {
        throw new ConfigError(
          name,
          `"${entry}" is not a complete origin: write scheme://host[:port] with no path or trailing slash${origin ? ` (did you mean ${origin}?)` : ''}`,
        );
      }
      return origin;
    });
}

function publicOrigin(url: string): string {
  const origin = parseOrigin(url);
  if (origin === undefined) throw new ConfigError('RULEVAULT_PUBLIC_URL', `"${url}" is not an http(s) URL`);
  return origin;
}

/** The origin of an http(s) URL whose host a browser could really send: a DNS name, an IPv4 or an [IPv6] address. */
function parseOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (!HOST_NAME.test(url.hostname) && !url.hostname.startsWith('[')) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** Dot-separated labels of letters, digits, `-` and `_` (after the URL parser lower-cased and punycoded it). */
const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** The start-up warning for a variable no one reads. */
export function unknownVariableWarning({ variable, closest }: UnknownVariable): string {
  return `${variable} is not a RuleVault setting and is ignored; did you mean ${closest}?`;
}

/** `RULEVAULT_*` variables no one reads, each with the closest known name (by edit distance). */
function unknownVariables(env: Env, known: ReadonlySet<string>): UnknownVariable[] {
  const names = [...known].filter((name) => name.startsWith('RULEVAULT_'));
  return Object.keys(env)
    .filter((name) => name.startsWith('RULEVAULT_') && !name.startsWith(TEST_PREFIX) && !known.has(name))
    .sort()
    .map((variable) => ({
      variable,
      closest: names.reduce((best, name) => (editDistance(variable, name) < editDistance(variable, best) ? name : best)),
    }));
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Where the CLI's secret commands (src/cli/secret-commands.ts) reach the service: RULEVAULT_URL and RULEVAULT_API_KEY, as the client library reads them. */
export function clientSettings(env: Env = process.env): { readonly url?: string; readonly apiKey?: string } {
  const url = env.RULEVAULT_URL || undefined;
  const apiKey = env.RULEVAULT_API_KEY || undefined;
  return { ...(url ? { url } : {}), ...(apiKey ? { apiKey } : {}) };
}
