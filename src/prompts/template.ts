/**
 * Prompt templates (SPEC 1.3): Handlebars without HTML escaping, compiled once
 * when a prompt version is written or replayed, rendered per evaluate request.
 *
 * Decisions, pinned by test/prompts/template.test.ts:
 * - Only the built-in helpers `if`, `unless`, `each`, `with` and `lookup` exist.
 *   `log` is removed (a template must not write to the service's log), partials
 *   and decorators are rejected, and an unknown helper call is a compile error
 *   (`knownHelpersOnly`), as is a built-in called with the wrong number of
 *   arguments (`{{#if}}`, `{{lookup}}`) or a block helper used inline
 *   (`{{if a}}`): the author sees these as a 400 when writing the prompt, not
 *   as a broken prompt at evaluate time.
 * - Prototype access stays denied (`allowProto*ByDefault: false`, passed
 *   explicitly so Handlebars does not log a warning per denied name).
 * - `render` never throws. Should rendering fail anyway (for example on a
 *   variable whose getter throws), `text` is the raw template source, as with
 *   `shouldCompile: false`, and `error` carries the message.
 * - A variable counts as supplied when it is an own enumerable key whose value is
 *   not undefined; `null` is supplied (JSON's way to say "deliberately empty").
 */
import Handlebars = require('handlebars');
import { analyzeTemplate } from './template-analysis';

export interface RenderResult {
  readonly text: string;
  /** Names from `variables` that the caller did not supply, sorted. */
  readonly missing: string[];
  /** Set only when rendering failed; `text` is then the raw template. */
  readonly error?: string;
}

export interface CompiledPrompt {
  readonly source: string;
  /** Top-level names the template reads, sorted. */
  readonly variables: readonly string[];
  render(variables: Readonly<Record<string, unknown>>): RenderResult;
}

export type CompileResult = { ok: true; template: CompiledPrompt } | { ok: false; error: string };

type CompileOptions = NonNullable<Parameters<typeof Handlebars.compile>[1]>;
type TemplateDelegate = ReturnType<typeof Handlebars.compile>;

// An isolated environment: helpers registered elsewhere in the process never leak in.
const handlebars = Handlebars.create();
handlebars.unregisterHelper('log');

const COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  strict: false,
  knownHelpersOnly: true,
  knownHelpers: { log: false },
};

const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowCallsToHelperMissing: false,
};

/**
 * Compiles a Handlebars prompt template once. Syntax errors, unsupported
 * constructs and unknown helpers come back as `{ ok: false, error }` with
 * Handlebars' message; never throws.
 */
export function compilePromptTemplate(source: string): CompileResult {
  if (typeof source !== 'string') return { ok: false, error: 'a template must be a string' };
  let variables: string[];
  let delegate: TemplateDelegate;
  try {
    const analysis = analyzeTemplate(handlebars.parse(source));
    if (!analysis.ok) return analysis;
    variables = analysis.variables;
    // precompile runs the whole compiler and throws its errors (unknown helpers);
    // compile() alone would defer them to the first render.
    handlebars.precompile(source, COMPILE_OPTIONS);
    delegate = handlebars.compile(source, COMPILE_OPTIONS);
  } catch (error) {
    return { ok: false, error: messageOf(error) };
  }
  // compile() is lazy: one render now builds the template function here, not on
  // the first evaluate request. Its result and any runtime error are irrelevant.
  renderPrompt(delegate, source, variables, {});
  return {
    ok: true,
    template: Object.freeze({
      source,
      variables: Object.freeze(variables),
      render: (supplied: Readonly<Record<string, unknown>>) => renderPrompt(delegate, source, variables, supplied),
    }),
  };
}

// Total: the supplied object comes from a request, so even a hostile value
// (throwing getter, revoked proxy) yields a result instead of an exception.
function renderPrompt(delegate: TemplateDelegate, source: string, variables: readonly string[], supplied: unknown): RenderResult {
  const context = isRecord(supplied) ? supplied : {};
  const missing = variables.filter((name) => !isSupplied(context, name));
  try {
    return { text: delegate(context, RUNTIME_OPTIONS), missing };
  } catch (error) {
    return { text: source, missing, error: `template could not be rendered: ${messageOf(error)}` };
  }
}

function isSupplied(context: Readonly<Record<string, unknown>>, name: string): boolean {
  try {
    return Object.prototype.propertyIsEnumerable.call(context, name) && context[name] !== undefined;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  try {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false; // Array.isArray throws on a revoked proxy
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
