/**
 * Protected resources in the pages that edit them (docs/change-requests.md):
 * the protect control and its state, unprotecting by a change request (the
 * API never removes a protection directly), and a direct write refused with
 * the 409 `protected`, offered as a change request holding the same edit.
 */
import { ApiError, listProtections, openChangeRequest, protect, type Api, type ChangeInput, type Protection, type ResourceRef } from './api';
import { go } from './router';
import { ErrorBox, useAction, useLoad, when } from './ui';

type Ref = Parameters<typeof protect>[1];

const sameResource = (a: ResourceRef, b: Ref) => a.type === b.type && a.id === b.id && (a.label ?? undefined) === (b.label ?? undefined);

/** The protections of the node, read once per page; `reload` after a protect. */
export function useProtections(api: Api) {
  const [loaded, reload] = useLoad(() => listProtections(api), [api]);
  const list = loaded.state === 'ready' ? loaded.value : [];
  /** The protection of `resource`, or of the prompt that holds a label (a protected prompt covers its labels). */
  const of = (resource: Ref): Protection | undefined =>
    list.find((p) => sameResource(p.resource, resource)) ??
    (resource.type === 'prompt-label' ? list.find((p) => sameResource(p.resource, { type: 'prompt', id: resource.id! })) : undefined);
  return { of, reload, error: loaded.state === 'error' ? loaded.error : undefined };
}

export type Protections = ReturnType<typeof useProtections>;

/** A resource's words in a title: `rule "eu-limit"`, `label production of prompt "greeting"`. */
export function resourceWords(resource: { readonly type: string; readonly id?: string; readonly label?: string }, name: string | undefined): string {
  if (resource.type === 'test-cases') return 'the test cases';
  const named = name === undefined ? resource.id ?? 'new' : `"${name}"`;
  return resource.type === 'prompt-label' ? `label ${resource.label} of prompt ${named}` : `${resource.type} ${named}`;
}

/** Opens a draft holding `changes` and goes to its page, where it is reviewed and submitted. */
export async function openDraft(api: Api, title: string, changes: ChangeInput[]): Promise<void> {
  const request = await openChangeRequest(api, { title, changes });
  go('changes', request.id);
}

/**
 * The protection of one resource: *Protect* (an admin writes it at once), or
 * *protected* with who and when, and *Unprotect…*, which opens a draft with
 * the `unprotect` change for review.
 */
export function ProtectControl({ api, protections, resource, name }: { api: Api; protections: Protections; resource: Ref; name: string }) {
  const action = useAction();
  const words = resourceWords(resource, name);
  const protection = protections.of(resource);
  const inherited = protection !== undefined && protection.resource.type !== resource.type;
  return (
    <span class="protection">
      {protection === undefined ? (
        <button type="button" class="secondary" disabled={action.busy} aria-label={`Protect ${words}`}
          onClick={() => void action.run(async () => { await protect(api, resource); protections.reload(); })}>Protect</button>
      ) : (
        <>
          <span class="badge" title={`by ${protection.protected_by} at ${when(protection.protected_at)}`}>
            protected{inherited ? ' (with the prompt)' : ''}
          </span>
          {!inherited && (
            <button type="button" class="secondary" disabled={action.busy} aria-label={`Unprotect ${words} (opens a change request)`}
              onClick={() => void action.run(() => openDraft(api, `Unprotect ${words}`, [{ op: 'unprotect', resource }]))}>Unprotect…</button>
          )}
        </>
      )}
      <ErrorBox error={action.error} />
    </span>
  );
}

/** The edit a refused write carried, to propose it instead. */
export interface ProposedEdit {
  readonly title: string;
  readonly change: ChangeInput;
}

export const isProtected = (error: Error | undefined): boolean => error instanceof ApiError && error.code === 'protected';

/**
 * A write's error; when it is the 409 `protected`, the API's message and a
 * button that opens a change request holding the refused edit, pinned to the
 * revision it was made against.
 */
export function WriteError({ api, error, edit }: { api: Api; error: Error | undefined; edit: ProposedEdit | undefined }) {
  const action = useAction();
  if (!isProtected(error) || edit === undefined) return <ErrorBox error={error} />;
  return (
    <div class="conflict" role="alert">
      <p><strong>Protected</strong>: {error!.message} (HTTP 409, protected)</p>
      <button type="button" disabled={action.busy}
        onClick={() => void action.run(() => openDraft(api, edit.title, [edit.change]))}>Open a change request with this edit</button>
      <ErrorBox error={action.error} />
    </div>
  );
}
