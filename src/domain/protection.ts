/**
 * Protected resources (docs/change-requests.md): a rule, context, prompt or
 * one prompt label that changes only through an approved change request,
 * unless a key with the break-glass scope writes it directly with a reason.
 * Checked where commands are decided (src/service/catalog-commands.ts), so
 * every route that writes (lean path, express, import, the CLI over HTTP)
 * meets the same refusal.
 */
import { AppError, badRequest } from '../base/errors';
import { resourceKey, type ChangeControlState } from '../../projections/change-control';
import { PROTECTABLE_TYPES, type ProtectionEvent, type ResourceRef, type ResourceType } from '../events';
import { readEnum, readMembers, readString } from './input';
import { readLabel } from './prompts';

export const CHANGE_REQUESTS_ROUTE = '/api/change-requests';
export const BREAK_GLASS_HEADER = 'rulevault-break-glass';

/** `rule 1f0c...`, `label production of prompt 1f0c...`. */
export function describeResource(ref: ResourceRef): string {
  if (ref.type === 'test-cases') return 'the test cases';
  return ref.type === 'prompt-label' ? `label ${ref.label} of prompt ${ref.id}` : `${ref.type} ${ref.id}`;
}

/**
 * The resources among `refs` that protection covers: a prompt's protection
 * covers its labels too, so a label ref is hit by either.
 */
export function protectedAmong(control: ChangeControlState, refs: readonly ResourceRef[]): ResourceRef[] {
  const hits: ResourceRef[] = [];
  for (const ref of refs) {
    const own = control.protections.get(resourceKey(ref));
    const prompt = ref.type === 'prompt-label' ? control.protections.get(resourceKey({ type: 'prompt', id: ref.id })) : undefined;
    if (own !== undefined || prompt !== undefined) hits.push(ref);
  }
  return hits;
}

export function protectedError(ref: ResourceRef): AppError {
  return new AppError('protected', `${describeResource(ref)} is protected: change it through a change request (POST ${CHANGE_REQUESTS_ROUTE}), ` +
    'or, with the break-glass scope, send RuleVault-Break-Glass: <reason>');
}

/**
 * What a direct write of `refs` must append first: nothing when none is
 * protected; one BreakGlassUsed per protected one when the caller broke
 * the glass (`reason`); else the 409.
 */
export function decideDirectWrite(control: ChangeControlState, refs: readonly ResourceRef[], breakGlass: string | undefined, operation: string): ProtectionEvent[] {
  const hits = protectedAmong(control, refs);
  if (hits.length === 0) return [];
  if (breakGlass === undefined) throw protectedError(hits[0]!);
  return hits.map((resource) => ({ type: 'BreakGlassUsed', data: { resource, reason: breakGlass, operation } }));
}

/** The reason in a RuleVault-Break-Glass header: 400 when empty (each use must say why). */
export function readBreakGlassReason(header: string | undefined): string {
  const reason = (header ?? '').trim();
  if (reason === '') throw badRequest('RuleVault-Break-Glass must give the reason for the direct write');
  if (reason.length > 1024) throw badRequest('RuleVault-Break-Glass must be at most 1024 characters');
  return reason;
}

/** `{type, id, label?}` of a change or a protection (`types`: those it may name); a label only, and always, on a prompt-label. */
export function readResourceRef(value: unknown, path: string, types: readonly ResourceType[] = PROTECTABLE_TYPES): ResourceRef {
  const object = readMembers(value, path, ['type', 'id', 'label']);
  const type = readEnum(object.type, `${path}.type`, types);
  const id = readString(object.id, `${path}.id`, { maxLength: 256 });
  if (type !== 'prompt-label') {
    if (object.label !== undefined) throw badRequest(`${path}.label is only for a prompt-label`);
    return { type, id };
  }
  return { type, id, label: readLabel(object.label, `${path}.label`) };
}
