/**
 * Prompt templates (contract §1.3): Handlebars without HTML escaping.
 *
 * Decisions, pinned by test/prompts/template.test.ts and template-limits.test.ts:
 * - A template is checked when it is written (`checkPromptTemplate`): first the
 *   linear pre-scan of template-scan.ts (size, expressions, nesting depth), and
 *   only then Handlebars' parser, whose cost grows faster than the template.
 * - The read model holds a `PromptTemplate` per version that parses nothing
 *   until it is used: replay and a start from snapshot cost nothing per
 *   template. The first use checks and parses it (a template stored before the
 *   limits existed is refused here, unparsed), the first render compiles it;
 *   both results are kept, so a template is compiled once per process.
 * - Only the built-in helpers `if`, `unless`, `each`, `with` and `lookup` exist.
 *   `log` is removed (a template must not write to the service's log), partials,
 *   decorators and raw blocks are rejected, and so is an unknown helper call, a
 *   built-in called with the wrong number of arguments (`{{#if}}`,
 *   `{{lookup}}`), a block helper used inline (`{{if a}}`) and the names the
 *   compiler reserves (`{{helperMissing}}`): the author sees these as a 400
 *   when writing the prompt, never as a broken prompt at evaluate time.
 * - Prototype access stays denied (`allowProto*ByDefault: false`, passed
 *   explicitly so Handlebars does not log a warning per denied name).
 * - A render is bounded: every iteration of a loop is charged the statements of
 *   its body against `RULEVAULT_RENDER_MAX_STEPS`, and the output against a byte
 *   limit; past either the render stops at once with an error naming it.
 * - `render` never throws. When it fails, `text` is the raw template source, as
 *   with `shouldCompile: false`, and `error` carries the message.
 * - A variable counts as supplied when it is an own enumerable key whose value is
 *   not undefined; `null` is supplied (JSON's way to say "deliberately empty").
 */
import Handlebars = require('handlebars');
import type { Limits } from '../base/limits';
import { analyzeTemplate, blockCosts, blockKey, type BlockCosts } from './template-analysis';
import { scanTemplate, type TemplateLimits } from './template-scan';

export type { TemplateLimits } from './template-scan';
export type RenderLimits = TemplateLimits & Pick<Limits, 'renderMaxBytes' | 'renderMaxSteps'>;

/** The output bound of one render, when tighter than `renderMaxBytes` (what is left of an answer's). */
export interface OutputBound {
  readonly bytes: number;
  /** The error when the output passes it, naming the limit. */
  readonly reason: string;
}

export interface RenderResult {
  readonly text: string;
  /** Names from `variables` that the caller did not supply, sorted. */
  readonly missing: string[];
  /** Set only when rendering failed; `text` is then the raw template. */
  readonly error?: string;
}

export interface PromptTemplate {
  readonly source: string;
  /** Top-level names the template reads, sorted; empty when it cannot be used under these limits. */
  variables(limits: TemplateLimits): readonly string[];
  render(variables: Readonly<Record<string, unknown>>, limits: RenderLimits, bound?: OutputBound): RenderResult;
}

export type CheckResult =
  | { ok: true; variables: readonly string[] }
  /** `limit`: the template passes a configured limit (the message names it), rather than being invalid. */
  | { ok: false; error: string; limit: boolean };

type CompileOptions = NonNullable<Parameters<typeof Handlebars.compile>[1]>;
type TemplateDelegate = ReturnType<typeof Handlebars.compile>;
type HelperOptions = Handlebars.HelperOptions & { loc?: { start: { line: number; column: number } } };

/** What the first use of a template learns and keeps. */
type Parsed =
  | { ok: true; ast: hbs.AST.Program | undefined; variables: readonly string[]; costs: BlockCosts; delegate?: TemplateDelegate }
  | { ok: false; error: string; limit: boolean };

// An isolated environment: helpers registered elsewhere in the process never leak in.
const handlebars = Handlebars.create();
handlebars.unregisterHelper('log');

const COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  strict: false,
  knownHelpersOnly: true,
  // Not helpers here: the analysis refuses them where the compiler would call one.
  knownHelpers: { log: false, helperMissing: false, blockHelperMissing: false },
};

const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = {
  allowProtoPropertiesByDefault: false,
  allowProtoMethodsByDefault: false,
  allowCallsToHelperMissing: false,
};

/**
 * Checks a template being written: the pre-scan, then the parse and the
 * analysis. Never throws; runs no compiler (the first render does).
 */
export function checkPromptTemplate(source: string, limits: TemplateLimits): CheckResult {
  const parsed = parse(source, limits);
  return parsed.ok ? { ok: true, variables: parsed.variables } : { ok: false, error: parsed.error, limit: parsed.limit };
}

/**
 * Wraps a stored template for the read model. Nothing is parsed here: the
 * template is checked and parsed on first use, compiled on first render, and
 * both results are kept. `ok: false` only for a value that is not a string.
 */
export function compilePromptTemplate(source: string): { ok: true; template: PromptTemplate } | { ok: false; error: string } {
  if (typeof source !== 'string') return { ok: false, error: 'a template must be a string' };
  return { ok: true, template: lazyTemplate(source) };
}

function lazyTemplate(source: string): PromptTemplate {
  // The limits come from the configuration, one object per process; a
  // different object (a test's) is answered afresh.
  let kept: { limits: TemplateLimits; parsed: Parsed } | undefined;
  const parsedUnder = (limits: TemplateLimits): Parsed => {
    if (kept?.limits === limits) return kept.parsed;
    const handed = latest?.limits === limits && latest.source === source ? latest.parsed : undefined;
    kept = { limits, parsed: handed ?? parse(source, limits) };
    return kept.parsed;
  };
  return Object.freeze({
    source,
    variables: (limits: TemplateLimits) => {
      const parsed = parsedUnder(limits);
      return parsed.ok ? parsed.variables : Object.freeze([]);
    },
    render: (supplied: Readonly<Record<string, unknown>>, limits: RenderLimits, bound?: OutputBound) => {
      const parsed = parsedUnder(limits);
      if (!parsed.ok) {
        return { text: source, missing: [], error: `template cannot be used: ${parsed.error}` };
      }
      if (parsed.delegate === undefined) {
        // compile() takes the parsed tree as it is and applies whitespace control to it once.
        parsed.delegate = handlebars.compile(parsed.ast!, COMPILE_OPTIONS);
        parsed.ast = undefined;
        work.compiled++;
      }
      return renderPrompt(parsed.delegate, source, parsed.variables, parsed.costs, supplied, outputLimit(limits, bound), limits);
    },
  });
}

const work = { parsed: 0, compiled: 0 };

/**
 * The last template parsed. A write checks its template, then the fold wraps
 * the stored copy and the answer lists its variables: this hands the parse
 * over instead of repeating it. Shared safely: a parse is only ever extended
 * by its compiled function, the same for any holder of the same source.
 */
let latest: { source: string; limits: TemplateLimits; parsed: Parsed } | undefined;

/**
 * How many templates this process has handed to Handlebars' parser and
 * compiler. Replay and a start from snapshot add nothing (a test pins it).
 */
export function templateWork(): { readonly parsed: number; readonly compiled: number } {
  return { ...work };
}

function parse(source: string, limits: TemplateLimits): Parsed {
  if (typeof source !== 'string') return { ok: false, error: 'a template must be a string', limit: false };
  const scan = scanTemplate(source, limits);
  if (!scan.ok) return { ok: false, error: scan.error, limit: true };
  work.parsed++;
  const parsed = parseChecked(source);
  latest = { source, limits, parsed };
  return parsed;
}

function parseChecked(source: string): Parsed {
  try {
    // Unprocessed: compile() applies whitespace control itself, and must do it once.
    const ast = handlebars.parseWithoutProcessing(source);
    const analysis = analyzeTemplate(ast);
    if (!analysis.ok) return { ok: false, error: analysis.error, limit: false };
    return { ok: true, ast, variables: Object.freeze(analysis.variables), costs: blockCosts(ast) };
  } catch (error) {
    return { ok: false, error: messageOf(error), limit: false };
  }
}

function outputLimit(limits: RenderLimits, bound: OutputBound | undefined): OutputBound {
  const bytes = limits.renderMaxBytes;
  return bound !== undefined && bound.bytes < bytes
    ? bound
    : { bytes, reason: `the rendered prompt is longer than ${bytes} bytes; the limit is RULEVAULT_RENDER_MAX_BYTES=${bytes}` };
}

// Thrown from inside a render to stop it; caught in renderPrompt.
class RenderLimitReached extends Error {}

/**
 * The budget of the render under way. Rendering is synchronous, so one slot
 * is enough; the loop helper below reads it.
 */
interface RenderBudget {
  readonly costs: BlockCosts;
  readonly maxSteps: number;
  /** Output characters allowed: a lower bound of the bytes, checked while rendering. */
  readonly output: OutputBound;
  steps: number;
  /** Output produced by loops so far (exact: an iteration's text replaces what its inner loops added). */
  chars: number;
}

let budget: RenderBudget | undefined;

const builtinEach = handlebars.helpers['each'] as Handlebars.HelperDelegate;

// Every loop goes through here: `{{#each}}`, and sections over arrays
// (`{{#items}}`), which Handlebars hands to this environment's `each`.
handlebars.registerHelper('each', function countedEach(this: unknown, context: unknown, options: HelperOptions) {
  const active = budget;
  if (active === undefined) return builtinEach.call(this, context, options);
  const start = options.loc?.start;
  const cost = (start === undefined ? undefined : active.costs.byBlock.get(blockKey(start))) ?? active.costs.whole;
  const body = options.fn;
  const fn = (item: unknown, frame?: Handlebars.RuntimeOptions) => {
    active.steps += cost;
    if (active.steps > active.maxSteps) {
      throw new RenderLimitReached(`rendering took more than ${active.maxSteps} steps; the limit is RULEVAULT_RENDER_MAX_STEPS=${active.maxSteps}`);
    }
    const before = active.chars;
    const text = body(item, frame);
    active.chars = before + text.length;
    if (active.chars > active.output.bytes) throw outputExceeded(active.output);
    return text;
  };
  return builtinEach.call(this, context, { ...options, fn } as HelperOptions);
});

function outputExceeded(output: OutputBound): RenderLimitReached {
  return new RenderLimitReached(output.reason);
}

// Total: the supplied object comes from a request, so even a hostile value
// (throwing getter, revoked proxy) yields a result instead of an exception.
function renderPrompt(
  delegate: TemplateDelegate,
  source: string,
  variables: readonly string[],
  costs: BlockCosts,
  supplied: unknown,
  output: OutputBound,
  limits: RenderLimits,
): RenderResult {
  const context = isRecord(supplied) ? supplied : {};
  const missing = missingVariables(variables, context);
  budget = { costs, maxSteps: limits.renderMaxSteps, output, steps: 0, chars: 0 };
  try {
    const text = delegate(context, RUNTIME_OPTIONS);
    // Outside loops, output is the template's own text and one value per tag,
    // joined as ropes: cheap to build, measured here before anyone reads it.
    if (text.length > output.bytes || Buffer.byteLength(text, 'utf8') > output.bytes) throw outputExceeded(output);
    return { text, missing };
  } catch (error) {
    // V8 refuses strings past about 2^29 characters: that is the output bound too.
    const reason = error instanceof RangeError && /string length/i.test(error.message) ? outputExceeded(output) : error;
    return { text: source, missing, error: `template could not be rendered: ${messageOf(reason)}` };
  } finally {
    budget = undefined;
  }
}

/** The names the caller did not supply (see the decisions above), in the order given. */
export function missingVariables(names: readonly string[], supplied: unknown): string[] {
  const context = isRecord(supplied) ? supplied : {};
  return names.filter((name) => !isSupplied(context, name));
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
