/** Contexts: list, create, edit content and status, delete. */
import { useState } from 'preact/hooks';
import { createContext, deleteContext, listContexts, updateContext, type Api, type Context } from '../api';
import { ProtectControl, useProtections, WriteError, type ProposedEdit } from '../protection';
import { ErrorBox, Field, Show, splitTags, useAction, useLoad } from '../ui';

export function ContextsPage({ api }: { api: Api }) {
  const [loaded, reload] = useLoad(() => listContexts(api), [api]);
  const [editing, setEditing] = useState<Context | undefined>();
  const protections = useProtections(api);
  return (
    <section aria-labelledby="contexts-title">
      <h2 id="contexts-title">Contexts</h2>
      <ContextForm key={editing?.id ?? 'new'} api={api} context={editing} onDone={() => { setEditing(undefined); reload(); }} />
      <Show loaded={loaded} what="contexts">{(contexts) => (
        <table class="list">
          <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Tags</th><th scope="col">Content</th><th scope="col">Protection</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {contexts.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td><td>{c.status}</td><td>{c.tags.join(', ')}</td><td class="clip">{c.content}</td>
                <td><ProtectControl api={api} protections={protections} resource={{ type: 'context', id: c.id }} name={c.name} /></td>
                <td class="actions">
                  <button type="button" class="secondary" aria-label={`Edit ${c.name}`} onClick={() => setEditing(c)}>Edit</button>
                  <DeleteButton label={c.name} onDelete={async () => { await deleteContext(api, c.id); reload(); }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Show>
    </section>
  );
}

export function DeleteButton({ label, onDelete }: { label: string; onDelete: () => Promise<void> }) {
  const action = useAction();
  return (
    <>
      <button type="button" class="danger" disabled={action.busy} aria-label={`Delete ${label}`}
        onClick={() => void action.run(async () => { if (confirm(`Delete ${label}?`)) await onDelete(); })}>Delete</button>
      <ErrorBox error={action.error} />
    </>
  );
}

function ContextForm({ api, context, onDone }: { api: Api; context: Context | undefined; onDone: () => void }) {
  const [name, setName] = useState(context?.name ?? '');
  const [content, setContent] = useState(context?.content ?? '');
  const [description, setDescription] = useState(context?.description ?? '');
  const [tags, setTags] = useState(context?.tags.join(', ') ?? '');
  const [status, setStatus] = useState<Context['status']>(context?.status ?? 'ACTIVE');
  const [refused, setRefused] = useState<ProposedEdit | undefined>();
  const action = useAction();
  const submit = () => action.run(async () => {
    const input = { name, content, description, tags: splitTags(tags), status };
    if (context === undefined) {
      await createContext(api, input);
    } else {
      setRefused({ title: `Edit context "${context.name}"`, change: { op: 'update', resource: { type: 'context', id: context.id }, base_revision: context.revision, body: input as never } });
      await updateContext(api, context.id, input);
    }
    onDone();
  });
  return (
    <form class="panel" aria-label={context === undefined ? 'New context' : `Edit context ${context.name}`} onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h3>{context === undefined ? 'New context' : `Edit ${context.name}`}</h3>
      <Field label="Context name">{(id) => <input id={id} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
      <Field label="Description">{(id) => <input id={id} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}</Field>
      <Field label="Content">{(id) => <textarea id={id} rows={4} required value={content} onInput={(e) => setContent(e.currentTarget.value)} />}</Field>
      <Field label="Tags" hint="Comma-separated">{(id, hint) => <input id={id} aria-describedby={hint} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}</Field>
      <Field label="Status">{(id) => (
        <select id={id} value={status} onChange={(e) => setStatus(e.currentTarget.value as Context['status'])}>
          <option value="ACTIVE">ACTIVE</option><option value="INACTIVE">INACTIVE</option>
        </select>
      )}</Field>
      <div class="actions">
        <button type="submit" disabled={action.busy}>{context === undefined ? 'Create context' : 'Save context'}</button>
        {context !== undefined && <button type="button" class="secondary" onClick={onDone}>Cancel</button>}
      </div>
      <WriteError api={api} error={action.error} edit={refused} />
    </form>
  );
}
