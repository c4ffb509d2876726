/**
 * A preview of a template with variables, in the page: plain `{{name}}` and
 * `{{{name}}}` tags are replaced; anything else (blocks, helpers, paths) is
 * left as written. An approximation by design: the exact render is the
 * server's (Handlebars with the service's limits), reachable through evaluate
 * of a rule linking the prompt, or the dry-run endpoint once it exists.
 */
const PLAIN_TAG = /\{\{\{?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}?\}\}/g;

export function renderPreview(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(PLAIN_TAG, (tag, name: string) => (Object.hasOwn(values, name) && values[name] !== '' ? values[name]! : tag));
}
