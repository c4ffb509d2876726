/**
 * Evidence for one decision (docs/auditors.md#evidence-for-one-decision):
 * `audit evidence` writes the file from the store and the decision sink;
 * `audit verify-evidence` checks it with nothing but the file and public
 * keys. Exit codes of verify-evidence name the part found altered
 * (docs/decisions/0064-verify-evidence.md).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { decisionEvidence, DEFAULT_MAX_LINKS, evidenceLimits, EvidenceError } from '../audit/evidence';
import { AppError } from '../base/errors';
import { EvidenceFormatError, verifyEvidence, type EvidencePart, type EvidenceReport } from '../audit/evidence-verify';
import { createSignatureCheck } from '../vault/signing-key';
import { publicKeysFrom } from './chain-commands';
import { CliError, type Command, type Output } from './command';
import { onStore, storeConfig } from './store-commands';

/** verify-evidence's exit code per part found altered: 3 as every audit finding (ADR 0016), then one code per part. */
export const EVIDENCE_EXIT: { readonly [part in EvidencePart]: number } = { record: 3, event: 4, approval: 5, chain: 6, signature: 7 };
/** The order findings decide the exit code in: the most basic first (a modified checkpoint makes every link after it suspect). */
const PRIORITY: readonly EvidencePart[] = ['signature', 'chain', 'approval', 'event', 'record'];

const PART_NAMES: { readonly [part in EvidencePart]: string } = {
  record: 'the decision record',
  event: 'a rule, context or prompt event',
  approval: 'a change-request event (an approval)',
  chain: 'a chain link',
  signature: 'the checkpoint\'s signature',
};

const evidence: Command = {
  name: 'evidence',
  args: '<decision-id>',
  minArgs: 1,
  summary: 'Write one file holding a decision record, the revisions of every rule and entity it used, their change requests, and the hash chain from them to a signed checkpoint.',
  details: [
    'The id is the RuleVault-Decision-Id header of an evaluate answer (decision logging on, the answer sampled).',
    'A signed checkpoint at or after the decision\'s position must exist: `rulevault audit checkpoint`, or the service\'s next one.',
    'Check the file anywhere with `rulevault audit verify-evidence <file> --public-key <key>`.',
  ],
  options: [
    { name: 'out', value: '<file>', help: 'the file to write (default evidence-<decision-id>.json)' },
    { name: 'max-links', value: '<n>', help: `events of the chain the file may hold at most (default ${DEFAULT_MAX_LINKS})` },
  ],
  examples: ['rulevault audit evidence 0193a5c2-7f10-7c3e-9d2a-5b8e1f4c6a70 --out decision.evidence.json'],
  async run({ args: [id], options, out }) {
    const file = typeof options.out === 'string' ? options.out : `evidence-${id}.json`;
    const maxLinks = options['max-links'] === undefined ? DEFAULT_MAX_LINKS : Number(options['max-links']);
    if (!Number.isSafeInteger(maxLinks) || maxLinks < 1) throw new CliError('--max-links must be a whole number of at least 1', {}, 2);
    const config = storeConfig(out);
    const { file: built, text } = await onStore(config, (store) =>
      decisionEvidence(store, config.auditSink.dir, id!, { limits: evidenceLimits(config.limits), maxLinks, now: () => new Date() })).catch((error: Error) => {
      throw error instanceof EvidenceError || error instanceof AppError ? new CliError(error.message) : error;
    });
    await writeFile(file, text, { flag: 'w' }).catch((error: Error) => {
      throw new CliError(`cannot write ${file}: ${error.message}`);
    });
    const record = built.decision.record;
    const checkpoint = built.checkpoint.data as { seq: number; key_id: string };
    const summary = {
      file,
      decision_id: record.decision_id,
      position: record.position,
      events: built.events.length,
      change_requests: new Set(built.events.filter((e) => e.stream.startsWith('change-request-')).map((e) => e.stream)).size,
      links: built.chain.links.length,
      checkpoint: { position: built.checkpoint.position, seq: checkpoint.seq, key_id: checkpoint.key_id },
    };
    out.document(summary);
    out.lines(
      `wrote ${file}: decision ${record.decision_id} at position ${record.position}`,
      `${summary.events} events of the rules, entities and change requests it used; ${summary.links} chain links to the checkpoint at position ${summary.checkpoint.position} (key ${summary.checkpoint.key_id})`,
    );
  },
};

const verifyEvidenceCommand: Command = {
  name: 'verify-evidence',
  args: '<file>',
  minArgs: 1,
  summary: 'Check an evidence file offline (no service, no data folder): the record, every event and approval, the chain links and the checkpoint\'s signature.',
  details: [
    'Give the signing keys\' public halves (audit signing-key show): the checkpoint must be signed by one of them, or by a key one of them endorsed on rotation.',
    `Exit codes: 0 verified; ${PRIORITY.map((part) => `${EVIDENCE_EXIT[part]} ${PART_NAMES[part]} was altered`).join(', ')}; 1 the check could not run; 2 usage.`,
  ],
  options: [
    { name: 'public-key', value: '<base64,...>', help: 'the signing keys\' public halves (required, or --public-key-file)' },
    { name: 'public-key-file', value: '<file>', help: 'a file holding public keys, one a line' },
  ],
  examples: ['rulevault audit verify-evidence decision.evidence.json --public-key "$(cat signing.pub)"'],
  async run({ args: [file], options, out }) {
    const publicKeys = await publicKeysFrom(options['public-key'], options['public-key-file']);
    if (publicKeys.length === 0) throw new CliError('--public-key or --public-key-file is required: evidence is only as good as the key that signed its checkpoint', {}, 2);
    const text = await readFile(file!, 'utf8').catch((error: Error) => {
      throw new CliError(`cannot read ${file}: ${error.message}`);
    });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new CliError(`${file} is not JSON: not a RuleVault evidence file`);
    }
    const report = await verifyEvidence(value, { publicKeys, checkSignature: await createSignatureCheck() }).catch((error: Error) => {
      throw error instanceof EvidenceFormatError ? new CliError(`${file}: ${error.message}`) : error;
    });
    out.document(report);
    printReport(out, report);
    return exitCode(report);
  },
};

/** 0, or the code of the most basic part a finding names. */
function exitCode(report: EvidenceReport): number {
  const part = PRIORITY.find((p) => report.findings.some((finding) => finding.part === p));
  return part === undefined ? 0 : EVIDENCE_EXIT[part];
}

function printReport(out: Output, report: EvidenceReport): void {
  const checkpoint = report.checkpoint;
  if (report.verified) {
    out.lines(
      `verified: decision ${report.decision_id} at position ${report.position}`,
      `${report.events} rule and entity events and ${report.change_request_events} change-request events, chained through ${report.links} links to the checkpoint at position ${checkpoint!.position} (sequence ${checkpoint!.seq}), signed by key ${checkpoint!.key_id}`,
      'replaying the record over those events gives the recorded answer',
      ...report.change_requests.map((r) => `change request ${r.id} "${r.title}": opened by ${r.author}, approved by ${r.approvals.map((a) => `${a.by} (revision ${a.revision})`).join(', ') || 'no one'}, ${r.applied_at === null ? 'not applied' : `applied at ${r.applied_at}`}`),
      ...(Object.keys(report.replay?.unreproducible ?? {}).length > 0 ? [`(masked values kept parts of it from being replayed: ${Object.keys(report.replay!.unreproducible).join(', ')})`] : []),
    );
    return;
  }
  const first = PRIORITY.find((p) => report.findings.some((finding) => finding.part === p))!;
  out.lines(`ALTERED: ${PART_NAMES[first]} (decision ${report.decision_id})`, ...report.findings.map((finding) => `  ${finding.part}: ${finding.message}`));
}

/** Registered in audit-commands.ts. */
export const evidenceCommands: readonly Command[] = [evidence, verifyEvidenceCommand];
