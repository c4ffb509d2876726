/**
 * The hash chain's commands under `rulevault audit` (docs/auditors.md#the-hash-chain): verify a live store or an export with public keys only;
 * sign a checkpoint on demand; link a log written before the chain; show and
 * rotate the signing key. `verify` exits 0 when everything checked, 3 at a
 * break (1 when it could not run at all).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { writeCheckpoint } from '../audit/chain-checkpoint';
import { recordsFromExport, verifyChain, type VerifyOptions, type VerifyReport } from '../audit/chain-verify';
import { verifySqliteChain } from '../audit/chain-verify-sqlite';
import { readWholeLog } from '../audit/log-transfer';
import type { Config } from '../base/config';
import { EMPTY_CHAIN, type ChainHead } from '../store/chain';
import { upgradeSqliteChain } from '../store/sqlite-chain-upgrade';
import type { EventStore } from '../store/port';
import {
  createSignatureCheck,
  loadNextSigningKey,
  loadSigningKey,
  parsePublicKey,
  retireSigningKey,
} from '../vault/signing-key';
import { CliError, commaList, type Command, type Group, type Output } from './command';
import { onStore, storeConfig, writing } from './store-commands';

/** Exit code of `verify` at a break: distinct from 1 (the command could not run) and 2 (usage). */
export const BREAK_EXIT_CODE = 3;

const verify: Command = {
  name: 'verify',
  summary: 'Check the hash chain of the store or of an export: names the first position where an event was modified, removed, inserted or reordered.',
  details: [
    'With --public-key (or --public-key-file), every checkpoint must be signed by one of those keys, or by a key one of them endorsed on rotation.',
    `Exit codes: 0 verified, ${BREAK_EXIT_CODE} the chain breaks (the message names the position), 1 the check could not run.`,
  ],
  options: [
    { name: 'in', value: '<file.ndjson>', help: 'an exported log (audit export) instead of the configured store' },
    { name: 'public-key', value: '<base64,...>', help: 'the signing keys\' public halves (audit signing-key show)' },
    { name: 'public-key-file', value: '<file>', help: 'a file holding public keys, one a line' },
  ],
  examples: ['rulevault audit verify --public-key "$(cat signing.pub)"', 'rulevault audit verify --in log.ndjson --public-key-file signing.pub --json'],
  async run({ options, out }) {
    const publicKeys = await publicKeysFrom(options['public-key'], options['public-key-file']);
    const checkSignature = await createSignatureCheck();
    const started = process.hrtime.bigint();
    let report: VerifyReport;
    if (typeof options.in === 'string') {
      const lines = createInterface({ input: createReadStream(options.in), crlfDelay: Infinity });
      report = await verifyChain(recordsFromExport(lines), { publicKeys, checkSignature }).catch((error: Error) => {
        throw new CliError(`${options.in}: ${error.message}`);
      });
    } else {
      const config = storeConfig(out);
      report = await onStore(config, (store) => verifyStore(config, store, { publicKeys, checkSignature }));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    out.document(report);
    printReport(out, report, seconds);
    return report.verified ? 0 : BREAK_EXIT_CODE;
  },
};

const checkpoint: Command = {
  name: 'checkpoint',
  summary: 'Sign the chain\'s head now (a checkpoint event); refused beside a running service, which signs every RULEVAULT_CHAIN_CHECKPOINT_EVERY events itself.',
  options: [],
  examples: ['rulevault audit checkpoint'],
  async run({ out }) {
    const config = storeConfig(out);
    const result = await writing(config, 'audit checkpoint', advice, () =>
      onStore(config, async (store) => {
        const key = (await loadSigningKey({ envValue: config.signingKey, dataDir: config.dataDir })).key;
        const head = await verifiedHead(config, store);
        const written = await writeCheckpoint({ store, key, head, actor: 'cli', at: new Date().toISOString(), requestId: `cli-${randomUUID()}` });
        return { position: written.position.toString(), seq: head.seq, hash: head.hash, key_id: key.keyId, public_key: key.publicKey };
      }));
    out.document(result);
    out.lines(`signed chain sequence ${result.seq} (hash ${result.hash}) with key ${result.key_id}; the checkpoint is at position ${result.position}`);
  },
};

const upgrade: Command = {
  name: 'chain-upgrade',
  summary: 'Link a log written before the hash chain, once (embedded store only; event content is not changed); refused beside a running service.',
  details: ['EventStoreDB cannot rewrite events: export the log and import it into an empty store, which links every event as it appends it.'],
  options: [],
  examples: ['rulevault audit chain-upgrade'],
  async run({ out }) {
    const config = storeConfig(out);
    if (!config.eventStore.startsWith('sqlite:')) {
      throw new CliError('chain-upgrade rewrites the embedded store only; EventStoreDB cannot rewrite events: `rulevault audit export`, then `rulevault audit import` into an empty store links every event');
    }
    const result = await writing(config, 'audit chain-upgrade', advice, async () => upgradeSqliteChain(config.eventStore.slice('sqlite:'.length)));
    out.document(result);
    out.lines(`linked ${result.linked} events (${result.already_linked} were linked already); the chain ends at sequence ${result.seq}`);
  },
};

const show: Command = {
  name: 'show',
  summary: 'Print the signing key\'s public half (what auditors verify with), creating the key when there is none.',
  options: [],
  examples: ['rulevault audit signing-key show > signing.pub'],
  async run({ out }) {
    const config = storeConfig(out);
    const loaded = await loadSigningKey({ envValue: config.signingKey, dataDir: config.dataDir });
    if (loaded.source === 'created') out.warn(`created the signing key ${loaded.path}: back it up (without it no new checkpoint can be signed with this key)`);
    out.document({ public_key: loaded.key.publicKey, key_id: loaded.key.keyId, algorithm: 'ed25519', source: loaded.source });
    out.lines(loaded.key.publicKey);
  },
};

const rotate: Command = {
  name: 'rotate',
  summary: 'Replace the signing key: the old key signs a checkpoint that endorses the new one, then the new key replaces it; refused beside a running service.',
  details: ['With RULEVAULT_SIGNING_KEY, give the new key in RULEVAULT_NEW_SIGNING_KEY, then start the service with RULEVAULT_SIGNING_KEY set to it.'],
  options: [],
  examples: ['rulevault audit signing-key rotate'],
  async run({ out }) {
    const config = storeConfig(out);
    const result = await writing(config, 'audit signing-key rotate', advice, () => rotateOn(config));
    out.document(result);
    out.lines(
      `checkpoint at position ${result.position}: key ${result.from_key_id} endorses key ${result.to_key_id}`,
      `new public key: ${result.public_key}`,
      result.from_env ? 'Now set RULEVAULT_SIGNING_KEY to the new key and start the service.' : 'The new key replaced signing.key; back it up.',
    );
  },
};

async function rotateOn(config: Config) {
  const current = await loadSigningKey({ envValue: config.signingKey, dataDir: config.dataDir });
  if (current.source === 'env' && config.newSigningKey === undefined) {
    throw new CliError('set RULEVAULT_NEW_SIGNING_KEY to the new key (base64 of a 32-byte seed)');
  }
  const next = await loadNextSigningKey({ newEnvValue: current.source === 'env' ? config.newSigningKey : undefined, dataDir: config.dataDir });
  return onStore(config, async (store) => {
    const head = await verifiedHead(config, store, true);
    const written = await writeCheckpoint({
      store, key: current.key, head, actor: 'cli', at: new Date().toISOString(), requestId: `cli-${randomUUID()}`, nextPublicKey: next.key.publicKey,
    });
    if (current.source !== 'env') await retireSigningKey(config.dataDir);
    return {
      position: written.position.toString(),
      from_key_id: current.key.keyId,
      to_key_id: next.key.keyId,
      public_key: next.key.publicKey,
      from_env: current.source === 'env',
    };
  });
}

const advice = () => 'stop the service first: the service signs a checkpoint every RULEVAULT_CHAIN_CHECKPOINT_EVERY events itself.';

/** The head of a chain that verifies (links only: checkpoints against the keys they name); refuses to sign a broken one. */
async function verifiedHead(config: Config, store: EventStore, emptyAllowed = false): Promise<ChainHead> {
  const checkSignature = await createSignatureCheck();
  const report = await verifyStore(config, store, { publicKeys: [], checkSignature });
  if (report.break !== null) throw new CliError(`the chain breaks at position ${report.break.position} (${report.break.message}); nothing was signed`);
  if (report.verified_through === null) {
    if (emptyAllowed) return EMPTY_CHAIN;
    throw new CliError('the log is empty: there is nothing to sign yet');
  }
  return { seq: report.verified_through.seq, hash: report.verified_through.hash };
}

/** The embedded store is verified on all cores from its rows (chain-verify-sqlite.ts); EventStoreDB through the port. */
function verifyStore(config: Config, store: EventStore, options: VerifyOptions): Promise<VerifyReport> {
  return config.eventStore.startsWith('sqlite:')
    ? verifySqliteChain(config.eventStore.slice('sqlite:'.length), store, options)
    : verifyChain(readWholeLog(store), options);
}

/** The trusted public keys of --public-key and --public-key-file (audit verify, audit verify-evidence). */
export async function publicKeysFrom(inline: string | boolean | undefined, file: string | boolean | undefined): Promise<string[]> {
  const texts: string[] = [];
  texts.push(...(commaList(inline) ?? []));
  if (typeof file === 'string') {
    const content = await readFile(file, 'utf8').catch((error: Error) => {
      throw new CliError(`cannot read --public-key-file: ${error.message}`);
    });
    texts.push(...content.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== ''));
  }
  return texts.map((text, index) => {
    const key = parsePublicKey(text);
    if (key === undefined) throw new CliError(`public key ${index + 1} is not standard base64 of 32 bytes (as \`rulevault audit signing-key show\` prints it)`);
    return key;
  });
}

function printReport(out: Output, report: VerifyReport, seconds: number): void {
  const rate = seconds > 0 ? Math.round(report.events / seconds) : report.events;
  const through = report.verified_through;
  if (report.break !== null) {
    out.lines(
      `BROKEN at position ${report.break.position} (${report.break.kind}): ${report.break.message}`,
      through === null ? 'nothing before it verified' : `verified up to position ${through.position} (chain sequence ${through.seq})`,
    );
    return;
  }
  out.lines(through === null ? 'verified: the log is empty' : `verified up to position ${through.position} (chain sequence ${through.seq}, hash ${through.hash})`);
  const signed = report.signed_through;
  out.lines(
    signed === null
      ? 'no checkpoint signs any of it yet'
      : `signed through position ${signed.position} (chain sequence ${signed.seq}) by ${report.checkpoints} checkpoint${report.checkpoints === 1 ? '' : 's'}${report.keys_given ? '' : ' (no public key given: each signature was checked against the key it names only)'}`,
    `${report.events} events, ${report.erased_events} erased, in ${seconds.toFixed(2)} s (${rate} events/s)`,
  );
}

export const chainCommands: readonly (Command | Group)[] = [
  verify,
  checkpoint,
  upgrade,
  { name: 'signing-key', summary: 'The hash chain\'s Ed25519 signing key: show its public half, rotate it.', commands: [show, rotate] },
];
