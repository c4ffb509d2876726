/**
 * Secrets: values are write-only. The value inputs are cleared after each
 * write, the answers carry no value (the API never sends one), and nothing
 * here reads a value back.
 */
import { useState } from 'preact/hooks';
import { createSecret, deleteSecret, listSecrets, updateSecret, type Api, type Secret } from '../api';
import { ErrorBox, Field, Show, splitTags, useAction, useLoad } from '../ui';
import { DeleteButton } from './contexts';

export function SecretsPage({ api }: { api: Api }) {
  const [loaded, reload] = useLoad(() => listSecrets(api), [api]);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [tags, setTags] = useState('');
  const [done, setDone] = useState('');
  const action = useAction();
  const create = () => action.run(async () => {
    const secret = await createSecret(api, { key, value, tags: splitTags(tags) });
    setKey(''); setValue(''); setTags('');
    setDone(`Stored ${secret.key} (version ${secret.version}). Its value is not shown again.`);
    reload();
  }, () => setDone(''));
  return (
    <section aria-labelledby="secrets-title">
      <h2 id="secrets-title">Secrets</h2>
      <form class="panel" aria-label="New secret" autocomplete="off" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <h3>New secret</h3>
        <Field label="Secret key">{(id) => <input id={id} required value={key} onInput={(e) => setKey(e.currentTarget.value)} />}</Field>
        <Field label="Secret value" hint="Write-only: sealed on the server and never shown or sent back.">{(id, hint) => (
          <input id={id} type="password" autocomplete="new-password" aria-describedby={hint} required value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        )}</Field>
        <Field label="Tags" hint="Comma-separated; keys with secret tags read only secrets carrying one">{(id, hint) => (
          <input id={id} aria-describedby={hint} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        )}</Field>
        <button type="submit" disabled={action.busy}>Create secret</button>
        <ErrorBox error={action.error} />
        {done !== '' && <p role="status" class="ok">{done}</p>}
      </form>
      <Show loaded={loaded} what="secrets">{(secrets) => (
        <table class="list">
          <thead><tr><th scope="col">Key</th><th scope="col">Tags</th><th scope="col">Version</th><th scope="col">Value</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {secrets.map((s) => (
              <tr key={s.id}>
                <td>{s.key}</td><td>{s.tags.join(', ')}</td><td>{s.version}</td><td aria-label="value hidden">••••••</td>
                <td class="actions">
                  <ReplaceSecret api={api} secret={s} onDone={reload} />
                  <DeleteButton label={s.key} onDelete={async () => { await deleteSecret(api, s.id); reload(); }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Show>
    </section>
  );
}

function ReplaceSecret({ api, secret, onDone }: { api: Api; secret: Secret; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState('');
  const [tags, setTags] = useState(secret.tags.join(', '));
  const action = useAction();
  if (!open) return <button type="button" class="secondary" aria-label={`Replace ${secret.key}`} onClick={() => setOpen(true)}>Replace…</button>;
  const save = () => action.run(async () => {
    await updateSecret(api, secret.id, value === '' ? { tags: splitTags(tags) } : { value, tags: splitTags(tags) });
    setValue('');
    setOpen(false);
    onDone();
  });
  return (
    <form class="inline-form" autocomplete="off" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <Field label={`New value for ${secret.key}`} hint="Empty keeps the value">{(id, hint) => (
        <input id={id} type="password" autocomplete="new-password" aria-describedby={hint} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      )}</Field>
      <Field label={`Tags of ${secret.key}`}>{(id) => <input id={id} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}</Field>
      <button type="submit" disabled={action.busy}>Save</button>
      <button type="button" class="secondary" onClick={() => { setValue(''); setOpen(false); }}>Cancel</button>
      <ErrorBox error={action.error} />
    </form>
  );
}
