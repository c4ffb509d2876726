/**
 * Rules, contexts and prompts as readable lines, for the rules list and a
 * change request's before/after diff: a rule's conditions read as
 * `country equals eu AND tier in gold,silver`, not as JSON. Pure.
 */
import type { Change, Context, Prompt, Rule } from './api';

type Group = Rule['condition_groups'][number];

/** A group's conditions as read aloud: `country equals eu AND tier in gold,silver`. */
export function groupText(group: Pick<Group, 'conditions'> & { condition_operator?: Group['condition_operator'] }): string {
  return group.conditions.map((c) => `${c.field} ${c.operator} ${c.value}`).join(` ${group.condition_operator ?? 'AND'} `);
}

/** A rule's conditions in one line, groups joined by the rule's operator. */
export function conditionsText(groups: readonly Group[], groupOperator: Rule['group_operator'] = 'AND'): string {
  return groups.map(groupText).join(` ${groupOperator} `);
}

type Members = Readonly<Record<string, unknown>>;
type Names = ReadonlyMap<string, string>;

const line = (name: string, value: unknown): string[] =>
  value === undefined ? [] : [`${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`];

/** A rule's members (all or some, as a PATCH body has them), a line per group of conditions. */
export function ruleLines(rule: Members, names: Names): string[] {
  const groups = rule.condition_groups as Group[] | undefined;
  const entities = rule.entities as Rule['entities'] | undefined;
  return [
    ...line('name', rule.name), ...line('description', rule.description), ...line('status', rule.status),
    ...(rule.group_operator === undefined ? [] : [`groups joined by: ${String(rule.group_operator)}`]),
    ...(groups ?? []).map((g, i) => `group ${i + 1}: ${groupText(g)}`),
    ...(entities === undefined ? [] : [`links: ${entities.map((e) => `${e.entity_type} ${names.get(e.entity_id) ?? e.entity_id}`).join(', ') || 'none'}`]),
    ...(rule.splits === undefined || (rule.splits as unknown[]).length === 0 ? [] : line('splits', rule.splits)),
  ];
}

export function contextLines(context: Members): string[] {
  return [
    ...line('name', context.name), ...line('description', context.description), ...line('status', context.status), ...line('tags', context.tags),
    ...(context.content === undefined ? [] : ['content:', ...String(context.content).split('\n').map((l) => `  ${l}`)]),
  ];
}

/** A prompt's template (or a chat's messages, `role: content`), config and labels. */
export function promptLines(prompt: Members): string[] {
  const body = prompt.prompt as Prompt['prompt'] | undefined;
  const content = body === undefined ? [] : typeof body === 'string' ? body.split('\n') : body.flatMap((m) => `${m.role}: ${m.content}`.split('\n'));
  return [
    ...line('name', prompt.name), ...line('version', prompt.version), ...line('status', prompt.status), ...line('tags', prompt.tags),
    ...(content.length === 0 ? [] : ['prompt:', ...content.map((l) => `  ${l}`)]),
    ...(prompt.config === undefined || prompt.config === null ? [] : line('config', prompt.config)),
  ];
}

/** What a change's resource is now (or was before an applied change), as far as the key may read it. */
export type Current =
  | { readonly kind: 'read'; readonly value: Members }
  | { readonly kind: 'gone' }
  | { readonly kind: 'unreadable'; readonly why: string };

function linesOf(type: Change['resource']['type'], members: Members, names: Names): string[] {
  if (type === 'rule') return ruleLines(members, names);
  if (type === 'context') return contextLines(members);
  return promptLines(members);
}

/** A change's before and after as texts to diff, a member a line; `before` is '' where it is not known. */
/** A set-test-cases body's cases, one a line (NDJSON as given, or an array's items). */
function casesText(cases: unknown): string {
  return typeof cases === 'string' ? cases : Array.isArray(cases) ? cases.map((c) => JSON.stringify(c)).join('\n') : '';
}

export function changeTexts(change: Change, current: Current, names: Names): { before: string; after: string } {
  const { type, label } = change.resource;
  const body = (change.body ?? {}) as Members;
  const now = current.kind === 'read' ? current.value : undefined;
  const text = (lines: string[]) => lines.join('\n');
  switch (change.op) {
    case 'create': return { before: '', after: text(linesOf(type, body, names)) };
    case 'update': return {
      before: now === undefined ? '' : text(linesOf(type, now, names)),
      after: text(linesOf(type, now === undefined ? body : { ...now, ...body }, names)),
    };
    case 'delete': return { before: now === undefined ? `${type} ${change.resource.id}` : text(linesOf(type, now, names)), after: '' };
    case 'add-version': return { before: now === undefined ? '' : text(promptLines({ version: now.version, prompt: now.prompt, config: now.config })), after: text(promptLines(body)) };
    case 'move-label': {
      const labels = now?.labels as Record<string, string> | undefined;
      const at = labels?.[label!];
      return { before: now === undefined ? '' : `label ${label}: ${at === undefined ? 'none' : `version ${at}`}`, after: `label ${label}: version ${String(body.version)}` };
    }
    case 'remove-label': return { before: `label ${label}${now === undefined ? '' : `: version ${(now.labels as Record<string, string>)[label!] ?? 'none'}`}`, after: '' };
    case 'protect': return { before: 'not protected', after: 'protected' };
    case 'unprotect': return { before: 'protected', after: 'not protected' };
    // The whole set, one case a line: the set as it is now is on its own page (GET /api/test-cases).
    case 'set-test-cases': return { before: '', after: casesText(body.cases) };
  }
}
