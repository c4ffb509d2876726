/** API keys: create with scopes and secret tags (the key is shown once, with a copy button), list, revoke. */
import { useState } from 'preact/hooks';
import { createApiKey, listApiKeys, revokeApiKey, type Api, type ApiKeyCreated, type Scope } from '../api';
import { SCOPE_ALLOWS } from '../session';
import { ErrorBox, Field, Show, splitTags, useAction, useLoad } from '../ui';

const SCOPES = Object.keys(SCOPE_ALLOWS) as Scope[];

export function ApiKeysPage({ api }: { api: Api }) {
  const [loaded, reload] = useLoad(() => listApiKeys(api), [api]);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['evaluate']);
  const [tags, setTags] = useState('');
  const [created, setCreated] = useState<ApiKeyCreated | undefined>();
  const [copied, setCopied] = useState('');
  const action = useAction();
  const create = () => action.run(async () => {
    setCreated(await createApiKey(api, { name, scopes, secret_tags: splitTags(tags) }));
    setName(''); setTags(''); setCopied('');
    reload();
  });
  const copy = async (key: string) => {
    try {
      await navigator.clipboard.writeText(key);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the key and copy it.');
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <form class="panel" aria-label="New API key" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <h3>New API key</h3>
        <Field label="Key name">{(id) => <input id={id} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} class="inline">
              <input type="checkbox" checked={scopes.includes(scope)}
                onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))} /> {scope}
              <small> — {SCOPE_ALLOWS[scope]}</small>
            </label>
          ))}
        </fieldset>
        <Field label="Secret tags" hint="Comma-separated; when set, the key reads only secrets carrying one of them">{(id, hint) => (
          <input id={id} aria-describedby={hint} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        )}</Field>
        <button type="submit" disabled={action.busy || scopes.length === 0}>Create key</button>
        <ErrorBox error={action.error} />
      </form>
      {created !== undefined && (
        <div class="panel once" role="alert">
          <h3>Key "{created.name}" created</h3>
          <p>Copy it now: it is shown only this once, and the service keeps only its hash.</p>
          <div class="row">
            <input aria-label="The new API key" readOnly value={created.key} class="key" onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={() => void copy(created.key)}>Copy</button>
            <button type="button" class="secondary" onClick={() => { setCreated(undefined); setCopied(''); }}>Done</button>
          </div>
          {copied !== '' && <p role="status">{copied}</p>}
        </div>
      )}
      <Show loaded={loaded} what="API keys">{(keys) => (
        <table class="list">
          <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Secret tags</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td><td>{k.scopes.join(', ')}</td><td>{k.secret_tags.join(', ')}</td><td>{k.created_at.slice(0, 19).replace('T', ' ')}</td>
                <td><RevokeButton api={api} id={k.id} name={k.name} onDone={reload} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Show>
    </section>
  );
}

function RevokeButton({ api, id, name, onDone }: { api: Api; id: string; name: string; onDone: () => void }) {
  const action = useAction();
  return (
    <>
      <button type="button" class="danger" disabled={action.busy} aria-label={`Revoke ${name}`}
        onClick={() => void action.run(async () => { if (confirm(`Revoke "${name}"? It stops working at once.`)) { await revokeApiKey(api, id); onDone(); } })}>Revoke</button>
      <ErrorBox error={action.error} />
    </>
  );
}
