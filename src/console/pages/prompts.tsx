/**
 * Prompts: list, create, rename, tags and status; each version (a template,
 * or a chat's role/content messages) with its config and labels; labels moved
 * and removed; the diff between two versions; the variables a version uses
 * (the API's own analysis); a preview rendered by the server; the history.
 */
import { useState } from 'preact/hooks';
import {
  addPromptVersion, createPrompt, deletePrompt, getPrompt, listPrompts, movePromptLabel, promptHistoryPage, removePromptLabel,
  renderPrompt, updatePrompt, type Api, type Prompt,
} from '../api';
import { pretty } from '../diff';
import { go, href } from '../router';
import { DiffView, ErrorBox, Field, MoreButton, Show, splitTags, useAction, useDebounced, useLoad, usePages, when } from '../ui';
import { ProtectControl, useProtections, WriteError, type ProposedEdit, type Protections } from '../protection';
import { DeleteButton } from './contexts';

type Messages = Exclude<Prompt['prompt'], string>;

/** Labels the API keeps itself (`latest`) or never removes (`production`). */
const FIXED_LABELS = ['latest', 'production'];

export function PromptsPage({ api }: { api: Api }) {
  const [loaded, reload] = useLoad(() => listPrompts(api), [api]);
  const [name, setName] = useState('');
  const [chat, setChat] = useState(false);
  const [template, setTemplate] = useState('');
  const [config, setConfig] = useState('');
  const [tags, setTags] = useState('');
  const action = useAction();
  const create = () => action.run(async () => {
    const prompt = await createPrompt(api, {
      name,
      prompt: chat ? parseJson<Messages>(template, 'the messages') : template,
      tags: splitTags(tags),
      ...(config.trim() === '' ? {} : { config: parseJson<Record<string, never>>(config, 'the config') }),
    });
    go('prompts', prompt.id);
  });
  return (
    <section aria-labelledby="prompts-title">
      <h2 id="prompts-title">Prompts</h2>
      <form class="panel" aria-label="New prompt" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <h3>New prompt</h3>
        <Field label="Prompt name">{(id) => <input id={id} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <div class="tabs" role="radiogroup" aria-label="Prompt type">
          <label><input type="radio" name="prompt-type" checked={!chat} onChange={() => setChat(false)} /> Text</label>
          <label><input type="radio" name="prompt-type" checked={chat} onChange={() => setChat(true)} /> Chat (messages)</label>
        </div>
        <Field label={chat ? 'Messages' : 'Template'} hint={chat
          ? 'JSON: [{"role": "system", "content": "a template"}, …]; each content is a Handlebars template'
          : 'Handlebars: {{name}}, {{#if x}}…{{/if}}, {{#each list}}…{{/each}}; no HTML escaping.'}>{(id, hint) => (
          <textarea id={id} aria-describedby={hint} rows={4} required value={template} onInput={(e) => setTemplate(e.currentTarget.value)} />
        )}</Field>
        <Field label="Config" hint="Optional JSON object (model, temperature, …)">{(id, hint) => (
          <textarea id={id} aria-describedby={hint} rows={2} value={config} onInput={(e) => setConfig(e.currentTarget.value)} />
        )}</Field>
        <Field label="Tags" hint="Comma-separated">{(id, hint) => <input id={id} aria-describedby={hint} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}</Field>
        <button type="submit" disabled={action.busy}>Create prompt (version 1.0.0)</button>
        <ErrorBox error={action.error} />
      </form>
      <Show loaded={loaded} what="prompts">{(prompts) => (
        <table class="list">
          <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Latest version</th><th scope="col">Labels</th><th scope="col">Variables</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {prompts.map((p) => (
              <tr key={p.id}>
                <td><a href={href('prompts', p.id)}>{p.name}</a></td><td>{p.type}</td><td>{p.version}</td>
                <td>{labelText(p.labels)}</td><td>{p.variables.join(', ')}</td><td>{p.status}</td>
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
  return <Show loaded={loaded} what="the prompt">{(prompt) => <PromptDetail key={prompt.revision} api={api} prompt={prompt} onChange={reload} />}</Show>;
}

function PromptDetail({ api, prompt, onChange }: { api: Api; prompt: Prompt; onChange: () => void }) {
  const versions = prompt.versions.map((v) => v.version);
  const protections = useProtections(api);
  const [shown, setShown] = useState(prompt.version);
  const [left, setLeft] = useState(versions.length > 1 ? versions[versions.length - 2]! : prompt.version);
  const [right, setRight] = useState(prompt.version);
  const [version] = useLoad(() => (shown === prompt.version ? Promise.resolve(prompt) : getPrompt(api, prompt.id, shown)), [api, prompt, shown]);
  const [diff] = useLoad(async () => {
    const [a, b] = await Promise.all([getPrompt(api, prompt.id, left), getPrompt(api, prompt.id, right)]);
    return { a, b };
  }, [api, prompt.id, left, right]);
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
      <p class="meta">Latest version {prompt.version} · {prompt.type} · {prompt.status} · variables: {prompt.variables.length === 0 ? 'none' : prompt.variables.join(', ')}
        {prompt.tags.length > 0 && <> · tags {prompt.tags.join(', ')}</>}{' '}
        <ProtectControl api={api} protections={protections} resource={{ type: 'prompt', id: prompt.id }} name={prompt.name} /></p>
      <SettingsForm api={api} prompt={prompt} onChange={onChange} />
      <div class="panel">
        <h3>Versions</h3>
        <table class="list">
          <thead><tr><th scope="col">Version</th><th scope="col">Labels</th><th scope="col">Created</th></tr></thead>
          <tbody>
            {prompt.versions.map((v) => (
              <tr key={v.version}><td>{v.version}</td><td>{v.labels.join(', ')}</td><td>by {v.created_by} at {when(v.created_at)}</td></tr>
            ))}
          </tbody>
        </table>
        <div class="row">{versionSelect('Show version', shown, setShown)}</div>
        <Show loaded={version} what="the version">{(v) => (
          <div aria-label={`version ${v.version}`}>
            <PromptContent prompt={v.prompt} label={`content of ${v.version}`} />
            <h4>Config</h4>
            {v.config === null ? <p class="meta">No config in this version.</p> : <pre class="json" aria-label={`config of ${v.version}`}>{pretty(v.config)}</pre>}
          </div>
        )}</Show>
      </div>
      <LabelsPanel api={api} prompt={prompt} protections={protections} onChange={onChange} />
      <div class="panel">
        <h3>Compare versions</h3>
        <div class="row">{versionSelect('Compare from version', left, setLeft)}{versionSelect('to version', right, setRight)}</div>
        <Show loaded={diff} what="the versions">{({ a, b }) => (
          <>
            <DiffView label={`diff from ${a.version} to ${b.version}`} before={promptText(a.prompt)} after={promptText(b.prompt)} />
            <p class="meta">Variables in {a.version}: {a.variables.join(', ') || 'none'} · in {b.version}: {b.variables.join(', ') || 'none'}</p>
          </>
        )}</Show>
      </div>
      <Show loaded={version} what="the version">{(v) => <PreviewPanel key={v.version} api={api} prompt={v} />}</Show>
      <NewVersionForm api={api} prompt={prompt} onChange={onChange} />
      <HistoryPanel api={api} prompt={prompt} />
    </section>
  );
}

/** A template as text, or a chat as its messages, role beside content. */
function PromptContent({ prompt, label }: { prompt: Prompt['prompt']; label: string }) {
  if (typeof prompt === 'string') return <pre aria-label={label}>{prompt}</pre>;
  return (
    <ol class="messages" aria-label={label}>
      {prompt.map((m, i) => (
        <li key={i} class="message"><span class="role">{m.role}</span><pre>{m.content}</pre></li>
      ))}
    </ol>
  );
}

/** Rename, tags and status (PATCH; the template changes only by a new version). */
function SettingsForm({ api, prompt, onChange }: { api: Api; prompt: Prompt; onChange: () => void }) {
  const [name, setName] = useState(prompt.name);
  const [tags, setTags] = useState(prompt.tags.join(', '));
  const [status, setStatus] = useState(prompt.status);
  const action = useAction();
  const patch = { name, tags: splitTags(tags), status };
  const edit: ProposedEdit = { title: `Edit prompt "${prompt.name}"`, change: { op: 'update', resource: { type: 'prompt', id: prompt.id }, base_revision: prompt.revision, body: patch as never } };
  const save = () => action.run(async () => {
    await updatePrompt(api, prompt.id, patch, prompt.revision);
    onChange();
  });
  return (
    <form class="panel" aria-label="Prompt settings" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <h3>Name, tags and status</h3>
      <div class="row">
        <Field label="Name" hint="Unique">{(id, hint) => <input id={id} aria-describedby={hint} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <Field label="Prompt tags" hint="Comma-separated">{(id, hint) => <input id={id} aria-describedby={hint} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}</Field>
        <Field label="Prompt status" hint="An INACTIVE prompt drops out of evaluate answers">{(id, hint) => (
          <select id={id} aria-describedby={hint} value={status} onChange={(e) => setStatus(e.currentTarget.value as Prompt['status'])}>
            <option value="ACTIVE">ACTIVE</option><option value="INACTIVE">INACTIVE</option>
          </select>
        )}</Field>
        <button type="submit" disabled={action.busy}>Save settings</button>
      </div>
      <WriteError api={api} error={action.error} edit={edit} />
    </form>
  );
}

/** Each label and its version; move one (promote, roll back) or remove a custom one. */
function LabelsPanel({ api, prompt, protections, onChange }: { api: Api; prompt: Prompt; protections: Protections; onChange: () => void }) {
  const [label, setLabel] = useState('production');
  const [version, setVersion] = useState(prompt.version);
  const [refused, setRefused] = useState<ProposedEdit | undefined>();
  const action = useAction();
  const labelRef = (name: string) => ({ type: 'prompt-label' as const, id: prompt.id, label: name });
  const move = () => action.run(async () => {
    setRefused({ title: `Move label ${label.trim()} of prompt "${prompt.name}" to ${version}`, change: { op: 'move-label', resource: labelRef(label.trim()), base_revision: prompt.revision, body: { version } as never } });
    await movePromptLabel(api, prompt.id, label.trim(), version);
    onChange();
  });
  const remove = (name: string) => action.run(async () => {
    setRefused({ title: `Remove label ${name} of prompt "${prompt.name}"`, change: { op: 'remove-label', resource: labelRef(name), base_revision: prompt.revision } });
    await removePromptLabel(api, prompt.id, name);
    onChange();
  });
  return (
    <section class="panel" aria-labelledby="labels-title">
      <h3 id="labels-title">Labels</h3>
      <table class="list" aria-label="labels">
        <thead><tr><th scope="col">Label</th><th scope="col">Version</th><th scope="col">Protection</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>
          {Object.entries(prompt.labels).map(([name, at]) => (
            <tr key={name}>
              <td>{name}</td><td>{at}</td>
              <td>{name !== 'latest' && <ProtectControl api={api} protections={protections} resource={labelRef(name)} name={prompt.name} />}</td>
              <td>{!FIXED_LABELS.includes(name) && (
                <button type="button" class="danger" disabled={action.busy} aria-label={`Remove label ${name}`} onClick={() => void remove(name)}>Remove</button>
              )}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="row" aria-label="Move a label" onSubmit={(e) => { e.preventDefault(); void move(); }}>
        <Field label="Label" hint="production, or a custom one: a lowercase letter, then a-z 0-9 . _ -; latest moves by itself">{(id, hint) => (
          <input id={id} aria-describedby={hint} list="known-labels" required value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        )}</Field>
        <datalist id="known-labels">{[...new Set(['production', ...Object.keys(prompt.labels)])].filter((l) => l !== 'latest').map((l) => <option key={l} value={l} />)}</datalist>
        <Field label="Points at version">{(id) => (
          <select id={id} value={version} onChange={(e) => setVersion(e.currentTarget.value)}>
            {prompt.versions.map((v) => <option key={v.version} value={v.version}>{v.version}</option>)}
          </select>
        )}</Field>
        <button type="submit" disabled={action.busy}>Move label</button>
      </form>
      <WriteError api={api} error={action.error} edit={refused} />
    </section>
  );
}

function NewVersionForm({ api, prompt, onChange }: { api: Api; prompt: Prompt; onChange: () => void }) {
  const chat = typeof prompt.prompt !== 'string';
  const [template, setTemplate] = useState(chat ? pretty(prompt.prompt) : (prompt.prompt as string));
  const [config, setConfig] = useState(prompt.config === null ? '' : pretty(prompt.config));
  const [version, setVersion] = useState('');
  const [refused, setRefused] = useState<ProposedEdit | undefined>();
  const action = useAction();
  const submit = () => action.run(async () => {
    const body = {
      prompt: chat ? parseJson<Messages>(template, 'the messages') : template,
      ...(version.trim() === '' ? {} : { version: version.trim() }),
      ...(config.trim() === '' ? {} : { config: parseJson<Record<string, never>>(config, 'the config') }),
    };
    setRefused({ title: `New version of prompt "${prompt.name}"`, change: { op: 'add-version', resource: { type: 'prompt', id: prompt.id }, base_revision: prompt.revision, body: body as never } });
    await addPromptVersion(api, prompt.id, body);
    setVersion('');
    onChange();
  });
  return (
    <form class="panel" aria-label="New version" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h3>New version</h3>
      <Field label={chat ? 'New messages' : 'New template'} hint={chat ? 'JSON: [{"role": "system", "content": "a template"}, …]' : undefined}>{(id, hint) => (
        <textarea id={id} aria-describedby={hint} rows={chat ? 8 : 5} value={template} onInput={(e) => setTemplate(e.currentTarget.value)} />
      )}</Field>
      <Field label="Config" hint="Optional JSON object (model, temperature, …); each version has its own">{(id, hint) => (
        <textarea id={id} aria-describedby={hint} rows={3} value={config} onInput={(e) => setConfig(e.currentTarget.value)} />
      )}</Field>
      <Field label="Version" hint="MAJOR.MINOR.PATCH, greater than the latest; empty: the next minor">{(id, hint) => (
        <input id={id} aria-describedby={hint} value={version} onInput={(e) => setVersion(e.currentTarget.value)} />
      )}</Field>
      <button type="submit" disabled={action.busy}>Add version</button>
      <WriteError api={api} error={action.error} edit={refused} />
    </form>
  );
}

/**
 * The version rendered by the server with the variables typed here (a
 * dry-run that links it: the same Handlebars, helpers and limits as
 * evaluate; nothing is written). A value that is a JSON list or object is
 * sent as such, for `{{#each}}` and paths.
 */
function PreviewPanel({ api, prompt }: { api: Api; prompt: Prompt }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const variables = useDebounced(values, 300);
  const [rendered] = useLoad(() => renderPrompt(api, prompt.id, prompt.version, variablesOf(variables)), [api, prompt.id, prompt.version, variables]);
  return (
    <section class="panel" aria-labelledby="preview-title">
      <h3 id="preview-title">Preview of {prompt.version}, rendered by the server</h3>
      <div class="row">
        {prompt.variables.map((name) => (
          <Field key={name} label={`Variable ${name}`}>{(id) => (
            <input id={id} value={values[name] ?? ''} onInput={(e) => setValues({ ...values, [name]: e.currentTarget.value })} />
          )}</Field>
        ))}
      </div>
      <Show loaded={rendered} what="the preview">{(record) => record === undefined
        ? <p class="meta">The server renders only ACTIVE prompts: activate this one to preview it.</p>
        : (
          <>
            {record.compiled_prompt === null
              ? <p class="error" role="alert">{record.error ?? 'not rendered'}</p>
              : <div aria-label="preview">{typeof record.compiled_prompt === 'string' ? <pre>{record.compiled_prompt}</pre> : <PromptContent prompt={record.compiled_prompt} label="rendered messages" />}</div>}
            {record.missing_variables.length > 0 && <p class="meta">Missing (rendered empty): {record.missing_variables.join(', ')}</p>}
          </>
        )}</Show>
      <p class="hint">A value that is a JSON list or object is sent as one (for {'{{#each}}'}); anything else as text.</p>
    </section>
  );
}

function HistoryPanel({ api, prompt }: { api: Api; prompt: Prompt }) {
  const paged = usePages((cursor) => promptHistoryPage(api, prompt.id, cursor), [api, prompt.id, prompt.revision]);
  return (
    <section class="panel" aria-labelledby="prompt-history-title">
      <h3 id="prompt-history-title">History</h3>
      <Show loaded={paged.pages} what="the history">{({ items }) => (
        <ol class="history">
          {items.map((e) => (
            <li key={e.revision}><strong>{e.type}</strong> <small>revision {e.revision} · by {e.actor} · {when(e.at)}</small> <code>{summary(e.data)}</code></li>
          ))}
        </ol>
      )}</Show>
      <MoreButton paged={paged} label="Load more history" />
    </section>
  );
}

/** An event's data in one line, templates cut short. */
function summary(data: unknown): string {
  const text = JSON.stringify(data);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

function variablesOf(values: Readonly<Record<string, string>>): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const trimmed = value.trim();
    if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
      try {
        variables[name] = JSON.parse(trimmed);
        continue;
      } catch {
        // Not JSON after all: sent as the text typed.
      }
    }
    variables[name] = value;
  }
  return variables;
}

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new Error(`${what} is not JSON: ${(e as Error).message}`);
  }
}

function labelText(labels: Prompt['labels']): string {
  return Object.entries(labels).map(([name, version]) => `${name} ${version}`).join(', ');
}

/** A version's content as text, for the diff: a chat's messages as `role: content`, one block each. */
function promptText(prompt: Prompt['prompt']): string {
  return typeof prompt === 'string' ? prompt : prompt.map((m) => `${m.role}: ${m.content}`).join('\n\n');
}
