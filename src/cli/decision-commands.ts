/**
 * The auditor's commands on the audit sink (RULEVAULT_AUDIT_DIR, default
 * <data dir>/audit): a decision record replayed at its position, and the
 * secret-read audit. They read the sink files beside a running service, as
 * the admin API does (GET /api/audit/decisions/:id, /api/audit/secret-reads).
 */
import { decisionNotFound, readDecision, replayable } from '../audit/decision-log';
import type { ReplayReport } from '../audit/decision-replay';
import { listSecretReads } from '../audit/read-audit';
import { createAuditService } from '../audit/service';
import { CLI_TIME_TRAVEL } from './audit-process';
import { createReadModel } from '../read-model/read-model';
import { CliError, columns, type Command } from './command';
import { onStore, storeConfig } from './store-commands';

/** Exit code of `audit decision` when the replayed answer differs from the recorded one (as diff exits 1, but 1 is "failed" here). */
export const REPLAY_DIFFERS_EXIT = 3;

const decision: Command = {
  name: 'decision',
  args: '<decision-id>',
  minArgs: 1,
  summary: 'Show a decision record and evaluate it again at its log position: the same answer, or the difference (exit 3).',
  details: ['The id is the RuleVault-Decision-Id header of an evaluate answer (decision logging on, the answer sampled).'],
  options: [{ name: 'as-of', value: '<position | ISO time | head>', help: 'replay at this point instead of the recorded position (head: the log now)' }],
  examples: ['rulevault audit decision 0193a5c2-7f10-7c3e-9d2a-5b8e1f4c6a70', 'rulevault audit decision 0193a5c2-7f10-7c3e-9d2a-5b8e1f4c6a70 --as-of head --json'],
  async run({ args: [id], options, out }) {
    const asOf = typeof options['as-of'] === 'string' ? options['as-of'] : undefined;
    const config = storeConfig(out);
    const stored = readDecision(config.auditSink.dir, id!);
    if (stored === undefined) throw new CliError(decisionNotFound(id!));
    if ('incomplete' in stored) {
      // A stand-in: what it keeps is shown, and the failure says why there is nothing to replay.
      out.document({ record: stored });
      out.lines(`decision ${stored.decision_id}  ${stored.at}  key ${stored.key_id}  position ${stored.position ?? '(empty log)'}`, `answer   ${JSON.stringify(stored.answer)}`);
    }
    const record = replayable(stored);
    const replay = await onStore(config, (store) =>
      createAuditService({ store, readModel: createReadModel(), limits: config.limits, clock: Date.now, timeTravel: CLI_TIME_TRAVEL }).replayDecision(record, asOf));
    out.document({ record, replay });
    out.lines(
      `decision ${record.decision_id}  ${record.at}  key ${record.key_id}  position ${record.position ?? '(empty log)'}`,
      `request  ${JSON.stringify(record.request)}`,
      ...(record.masked.length > 0 ? [`masked   ${record.masked.join(', ')} (left out of the replay)`] : []),
      `answer   ${JSON.stringify(record.answer)}`,
      ...replayLines(replay),
    );
    return replay.same ? 0 : REPLAY_DIFFERS_EXIT;
  },
};

function replayLines(replay: ReplayReport): string[] {
  const at = `replayed at position ${replay.replayed_at.position ?? '(empty log)'}`;
  // What masked values keep the replay from reproducing, said whatever the outcome: neither agreement nor a difference there means much.
  const unreproducible = Object.entries(replay.unreproducible).map(([part, paths]) => `  ? ${part}: not reproducible, it depends on masked ${paths!.join(', ')}`);
  if (replay.same) return [`${at}: the same answer${unreproducible.length > 0 ? ' in the parts it could reproduce' : ''}`, ...unreproducible];
  const lines = [`${at}: the answer differs`];
  const { matchingRuleIds, entities, entity_data } = replay.differences;
  for (const [name, diff] of [['matchingRuleIds', matchingRuleIds], ['entities', entities]] as const) {
    if (diff === undefined) continue;
    for (const item of diff.only_recorded) lines.push(`  - ${name}: ${item} (answered then, not now)`);
    for (const item of diff.only_replayed) lines.push(`  + ${name}: ${item} (not answered then)`);
  }
  if (entity_data !== undefined) lines.push(`  entity_data: sha256 ${entity_data.recorded_sha256 ?? 'none'} then, ${entity_data.replayed_sha256 ?? 'none'} now`);
  if (replay.masked.length > 0) lines.push(`  (masked values were left out of the replay: ${replay.masked.join(', ')})`);
  return [...lines, ...unreproducible];
}

const reads: Command = {
  name: 'reads',
  summary: 'The secret-read audit: every get-secrets call with key id, request id, time, outcome and the secrets returned (never values), oldest first.',
  options: [
    { name: 'key-id', value: '<id>', help: 'reads by this API key id' },
    { name: 'secret', value: '<id | key>', help: 'reads that returned this secret' },
    { name: 'outcome', value: '<ok | error>', help: 'ok: answered; error: refused or failed (no key, a bad key, no scope, a key not found, ...)' },
    { name: 'from', value: '<ISO time>', help: 'reads at or after this time' },
    { name: 'to', value: '<ISO time>', help: 'reads at or before this time' },
    { name: 'limit', value: '<n>', help: 'reads per page, 1 to 1000 (default 100)' },
    { name: 'cursor', value: '<cursor>', help: 'the next_cursor of the previous page' },
  ],
  examples: [
    'rulevault audit reads --secret OPENAI_API_KEY --from 2026-11-01T00:00:00Z',
    'rulevault audit reads --outcome error --from 2026-12-01T00:00:00Z',
    'rulevault audit reads --key-id 8b1f0c2e-... --json',
  ],
  async run({ options, out }) {
    const config = storeConfig(out);
    const query: Record<string, string> = {};
    for (const [option, parameter] of [['key-id', 'key_id'], ['secret', 'secret'], ['outcome', 'outcome'], ['from', 'from'], ['to', 'to'], ['limit', 'limit'], ['cursor', 'cursor']] as const) {
      const value = options[option];
      if (typeof value === 'string') query[parameter] = value;
    }
    let page;
    try {
      page = listSecretReads(config.auditSink.dir, query);
    } catch (error) {
      // A bad filter is the API's 400: its message names the parameter; say it with the option's name.
      throw new CliError((error as Error).message.replace(/^key_id\b/, '--key-id').replace(/^(secret|outcome|from|to|limit|cursor)\b/, '--$1'));
    }
    out.document(page);
    out.lines(...columns(
      ['at', 'key id', 'request id', 'outcome', 'secrets (key@version)'],
      page.reads.map((r) => [
        r.at, r.key_id ?? '(none)', r.request_id ?? '-', r.code ?? r.outcome, r.secrets.map((s) => `${s.key}@${s.value_version}`).join(' ') || '(none)',
      ]),
    ));
    if (page.next_cursor !== null) out.lines(`more: --cursor ${page.next_cursor}`);
  },
};

/** Registered in audit-commands.ts. */
export const decisionCommands: readonly Command[] = [decision, reads];
