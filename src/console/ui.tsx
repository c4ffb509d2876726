/** Small shared pieces: loading and error states, a labelled field, the async hook every page uses. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, type ListPage } from './api';
import { diffLines, type DiffLine } from './diff';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: Error } | { state: 'ready'; value: T };

/** Runs `load` now and on `reload()`; an answer that arrives after a newer call is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    setLoaded({ state: 'loading' });
    load().then(
      (value) => current && setLoaded({ state: 'ready', value }),
      (error: Error) => current && setLoaded({ state: 'error', error }),
    );
    return () => {
      current = false;
    };
  }, [...deps, tick]);
  return [loaded, useCallback(() => setTick((n) => n + 1), [])];
}

/** The items read so far and the cursor of the rest (null: all read). */
export interface Pages<T> { readonly items: readonly T[]; readonly next: string | null }

/**
 * A list read a page at a time on the server's cursor: the first page now
 * (again whenever `deps` change), each next one on `more()`, appended. Only
 * pages asked for are fetched and rendered, so a long list stays cheap.
 */
export function usePages<T>(load: (cursor: string | undefined) => Promise<ListPage<T>>, deps: unknown[]) {
  const [first, reload] = useLoad(() => load(undefined), deps);
  const [rest, setRest] = useState<ListPage<T> | undefined>();
  useEffect(() => setRest(undefined), [first]);
  const action = useAction();
  const pages: Loaded<Pages<T>> = first.state !== 'ready' ? first : {
    state: 'ready',
    value: { items: [...first.value.items, ...(rest?.items ?? [])], next: rest === undefined ? first.value.next_cursor : rest.next_cursor },
  };
  const more = (cursor: string) => action.run(async () => {
    const page = await load(cursor);
    setRest({ items: [...(rest?.items ?? []), ...page.items], next_cursor: page.next_cursor });
  });
  return { pages, reload, more, busy: action.busy, error: action.error };
}

/** The button that reads the next page, while there is one, and the error of the last try. */
export function MoreButton<T>({ paged, label }: { paged: ReturnType<typeof usePages<T>>; label: string }) {
  const next = paged.pages.state === 'ready' ? paged.pages.value.next : null;
  return (
    <>
      {next !== null && (
        <button type="button" class="secondary" disabled={paged.busy} onClick={() => void paged.more(next)}>{paged.busy ? 'Loading…' : label}</button>
      )}
      <ErrorBox error={paged.error} />
    </>
  );
}

/** `value` once it has stayed the same (by its JSON) for `ms`: typing asks the server once, when it pauses. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    if (key === JSON.stringify(settled)) return undefined;
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [key]);
  return settled;
}

/** A button action with a busy flag and its error: the page stays usable while it runs. */
/**
 * A user's action with its busy state and error. `onError` clears what the page showed of the previous
 * answer: a new error never stands beside an old answer, as if the two belonged together.
 */
export function useAction(): {
  busy: boolean; error: Error | undefined; run: (action: () => Promise<void>, onError?: () => void) => Promise<void>; clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const run = async (action: () => Promise<void>, onError?: () => void) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      onError?.();
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

export function Loading({ what }: { what: string }) {
  return <p class="loading" role="status" aria-live="polite">Loading {what}…</p>;
}

export function ErrorBox({ error }: { error: Error | undefined }) {
  if (error === undefined) return null;
  const status = error instanceof ApiError && error.status !== 0 ? ` (HTTP ${error.status}${error.code ? `, ${error.code}` : ''})` : '';
  return <p class="error" role="alert">{error.message}{status}</p>;
}

export function Show<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (value: T) => ComponentChildren }) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'error') return <ErrorBox error={loaded.error} />;
  return <>{children(loaded.value)}</>;
}

let nextId = 0;
/** A label bound to its control by id; `hint` is read out with the control. */
export function Field({ label, hint, children }: { label: string; hint?: ComponentChildren; children: (id: string, describedBy?: string) => ComponentChildren }) {
  const [id] = useState(() => `f${++nextId}`);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children(id, hint === undefined ? undefined : `${id}-hint`)}
      {hint !== undefined && <small id={`${id}-hint`} class="hint">{hint}</small>}
    </div>
  );
}

export function DiffView({ before, after, label }: { before: string; after: string; label: string }) {
  const lines: DiffLine[] = diffLines(before, after);
  return (
    <pre class="diff" aria-label={label}>
      {lines.map((line, i) => (
        <span key={i} class={`diff-${line.op}`}>{line.op === 'add' ? '+ ' : line.op === 'del' ? '- ' : '  '}{line.text}{'\n'}</span>
      ))}
    </pre>
  );
}

export function splitTags(text: string): string[] {
  return text.split(',').map((t) => t.trim()).filter((t) => t !== '');
}

export function when(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
}

/** An id shown by its name when one is known, the id beside it (auditors match ids); the bare id otherwise. */
export function Named({ id, names }: { id: string | null; names: ReadonlyMap<string, string> }) {
  if (id === null) return <span class="hint">none</span>;
  const name = names.get(id);
  return name === undefined ? <code>{id}</code> : <><span class="name">{name}</span> <code class="id">{id}</code></>;
}
