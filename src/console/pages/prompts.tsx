/**
 * Prompts: list, create, add a version, read any version, the diff between
 * two versions, the variables a template uses (the API's own analysis), and
 * a preview render with variables.
 */
import { useState } from 'preact/hooks';
import { addPromptVersion, createPrompt, deletePrompt, getPrompt, listPrompts, type Api, type Prompt } from '../api';
import { go, href } from '../router';
import { DiffView, ErrorBox, Field, Show, splitTags, useAction, useLoad } from '../ui';
import { DeleteButton } from './contexts';
import { renderPreview } from '../preview';

export function PromptsPage({ api }: { api: Api }) {
  const [loaded, reload] = useLoad(() => listPrompts(api), [api]);
  const [name, setName] = useState('');
  const [template, setTemplate] = useState('');
  const [tags, setTags] = useState('');
  const action = useAction();
  const create = () => action.run(async () => {
    const prompt = await createPrompt(api, { name, prompt: template, tags: splitTags(tags) });
    go('prompts', prompt.id);
  });
  return (
    <section aria-labelledby="prompts-title">
      <h2 id="prompts-title">Prompts</h2>
      <form class="panel" aria-label="New prompt" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <h3>New prompt</h3>
        <Field label="Prompt name">{(id) => <input id={id} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <Field label="Template" hint="Handlebars: {{name}}, {{#if x}}…{{/if}}, {{#each list}}…{{/each}}; no HTML escaping.">{(id, hint) => (
          <textarea id={id} aria-describedby={hint} rows={4} required value={template} onInput={(e) => setTemplate(e.currentTarget.value)} />
        )}</Field>
        <Field label="Tags" hint="Comma-separated">{(id, hint) => <input id={id} aria-describedby={hint} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}</Field>
        <button type="submit" disabled={action.busy}>Create prompt (version 1.0.0)</button>
        <ErrorBox error={action.error} />
      </form>
      <Show loaded={loaded} what="prompts">{(prompts) => (
        <table class="list">
          <thead><tr><th scope="col">Name</th><th scope="col">Latest version</th><th scope="col">Variables</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {prompts.map((p) => (
              <tr key={p.id}>
                <td><a href={href('prompts', p.id)}>{p.name}</a></td><td>{p.version}</td><td>{p.variables.join(', ')}</td><td>{p.status}</td>
                <td><DeleteButton label={p.name} onDelete={async () => { await deletePrompt(api, p.id); reload(); }} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}</Show>
    </section>
  );
}

export function PromptPage({ api, id }: { api: Api; id: string }) {
  const [loaded, reload] = useLoad(() => getPrompt(api, id), [api, id]);
  return <Show loaded={loaded} what="the prompt">{(prompt) => <PromptDetail key={prompt.version} api={api} prompt={prompt} onChange={reload} />}</Show>;
}

function PromptDetail({ api, prompt, onChange }: { api: Api; prompt: Prompt; onChange: () => void }) {
  const versions = prompt.versions.map((v) => v.version);
  const [left, setLeft] = useState(versions.length > 1 ? versions[versions.length - 2]! : prompt.version);
  const [right, setRight] = useState(prompt.version);
  const [template, setTemplate] = useState(promptText(prompt.prompt));
  const [version, setVersion] = useState('');
  const add = useAction();
  const [diff] = useLoad(async () => {
    const [a, b] = await Promise.all([getPrompt(api, prompt.id, left), getPrompt(api, prompt.id, right)]);
    return { a, b };
  }, [api, prompt.id, left, right]);
  const submit = () => add.run(async () => {
    await addPromptVersion(api, prompt.id, version.trim() === '' ? { prompt: template } : { prompt: template, version: version.trim() });
    setVersion('');
    onChange();
  });
  const versionSelect = (label: string, value: string, set: (v: string) => void) => (
    <Field label={label}>{(id) => (
      <select id={id} value={value} onChange={(e) => set(e.currentTarget.value)}>
        {versions.map((v) => <option key={v} value={v}>{v}</option>)}
      </select>
    )}</Field>
  );
  return (
    <section aria-labelledby="prompt-title">
      <div class="title-row"><h2 id="prompt-title">Prompt: {prompt.name}</h2><a href={href('prompts')}>Back to prompts</a></div>
      <p class="meta">Latest version {prompt.version} · {prompt.status} · variables: {prompt.variables.length === 0 ? 'none' : prompt.variables.join(', ')}</p>
      <div class="panel">
        <h3>Versions</h3>
        <ul>{prompt.versions.map((v) => <li key={v.version}>{v.version} <small>by {v.created_by} at {v.created_at}</small></li>)}</ul>
        <div class="row">{versionSelect('Compare from version', left, setLeft)}{versionSelect('to version', right, setRight)}</div>
        <Show loaded={diff} what="the versions">{({ a, b }) => (
          <>
            <DiffView label={`diff from ${a.version} to ${b.version}`} before={promptText(a.prompt)} after={promptText(b.prompt)} />
            <p class="meta">Variables in {a.version}: {a.variables.join(', ') || 'none'} · in {b.version}: {b.variables.join(', ') || 'none'}</p>
          </>
        )}</Show>
      </div>
      <PreviewPanel prompt={prompt} />
      <form class="panel" aria-label="New version" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <h3>New version</h3>
        <Field label="New template">{(id) => <textarea id={id} rows={5} value={template} onInput={(e) => setTemplate(e.currentTarget.value)} />}</Field>
        <Field label="Version" hint="MAJOR.MINOR.PATCH, greater than the latest; empty: the next minor">{(id, hint) => (
          <input id={id} aria-describedby={hint} value={version} onInput={(e) => setVersion(e.currentTarget.value)} />
        )}</Field>
        <button type="submit" disabled={add.busy}>Add version</button>
        <ErrorBox error={add.error} />
      </form>
    </section>
  );
}

function PreviewPanel({ prompt }: { prompt: Prompt }) {
  const [values, setValues] = useState<Record<string, string>>({});
  return (
    <section class="panel" aria-labelledby="preview-title">
      <h3 id="preview-title">Preview ({prompt.version})</h3>
      {prompt.variables.map((name) => (
        <Field key={name} label={`Variable ${name}`}>{(id) => (
          <input id={id} value={values[name] ?? ''} onInput={(e) => setValues({ ...values, [name]: e.currentTarget.value })} />
        )}</Field>
      ))}
      <pre class="preview" aria-label="preview">{renderPreview(promptText(prompt.prompt), values)}</pre>
      <p class="hint">Plain {'{{name}}'} tags are filled in here; block helpers show as written. The server's own render (exact) needs the dry-run endpoint.</p>
    </section>
  );
}

/** A version's template as text: a chat prompt's messages as `role: content`, one block each. */
function promptText(prompt: Prompt['prompt']): string {
  return typeof prompt === 'string' ? prompt : prompt.map((m) => `${m.role}: ${m.content}`).join('\n\n');
}
