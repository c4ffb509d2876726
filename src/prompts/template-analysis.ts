/**
 * Static analysis of a parsed Handlebars template: which top-level names it
 * reads, and which constructs the prompt service does not support. Mirrors the
 * Handlebars 4 compiler's own rules for telling a helper call from a variable
 * read, so that `variables` matches what rendering actually looks up.
 */
// Brings in the ambient hbs.AST types that describe parsed templates.
import type Handlebars = require('handlebars');

type Node = hbs.AST.Node;
type PathExpression = hbs.AST.PathExpression;
type CallNode = hbs.AST.MustacheStatement | hbs.AST.BlockStatement | hbs.AST.SubExpression;

export type TemplateAnalysis = { ok: true; variables: string[] } | { ok: false; error: string };

/** Exact number of positional arguments of each helper a template may call. */
const HELPER_ARITY: Readonly<Record<string, number>> = { if: 1, unless: 1, each: 1, with: 1, lookup: 2 };

// Helpers that call options.fn/inverse, which an inline call ({{if a}}) does not have.
const BLOCK_ONLY_HELPERS = new Set(['if', 'unless', 'each', 'with']);

// Helpers whose block body runs with a new context (the value or each item).
const CONTEXT_CHANGING_HELPERS = new Set(['each', 'with']);

// Names the Handlebars compiler treats as helpers even without arguments; the
// runtime does not provide them, so a tag named so could only fail when rendered.
const RESERVED_NAMES = new Set(['helperMissing', 'blockHelperMissing']);

interface Scope {
  /** Context changes between the template's root and here: `../` steps back one. */
  readonly contextDepth: number;
  /** Block params (`as |item|`) visible here; they shadow context names. */
  readonly blockParams: readonly string[];
}

// Thrown to unwind the walk at the first unsupported construct; never escapes analyzeTemplate.
class UnsupportedTemplate extends Error {}

/**
 * Lists the top-level variables a template reads (sorted, without helper
 * names, `this`, @data variables and names resolved against an iterated item),
 * or says why the template is not supported.
 */
export function analyzeTemplate(program: hbs.AST.Program): TemplateAnalysis {
  const variables = new Set<string>();
  try {
    visitProgram(program, { contextDepth: 0, blockParams: [] }, variables);
  } catch (error) {
    if (error instanceof UnsupportedTemplate) return { ok: false, error: error.message };
    throw error;
  }
  return { ok: true, variables: [...variables].sort() };
}

function visitProgram(program: hbs.AST.Program | undefined, scope: Scope, out: Set<string>): void {
  if (program === undefined) return;
  for (const statement of program.body) visitStatement(statement, scope, out);
}

function visitStatement(node: Node, scope: Scope, out: Set<string>): void {
  switch (node.type) {
    case 'ContentStatement':
    case 'CommentStatement':
      return;
    case 'MustacheStatement':
      visitCall(node as hbs.AST.MustacheStatement, scope, out);
      return;
    case 'BlockStatement':
      visitBlock(node as hbs.AST.BlockStatement, scope, out);
      return;
    case 'PartialStatement':
    case 'PartialBlockStatement':
      throw unsupported('partials ({{> name}}) are not supported', node);
    case 'Decorator':
    case 'DecoratorBlock':
      throw unsupported('decorators ({{* name}}) are not supported', node);
    default:
      throw unsupported(`unsupported template construct ${node.type}`, node);
  }
}

function visitBlock(block: hbs.AST.BlockStatement, scope: Scope, out: Set<string>): void {
  const helper = visitCall(block, scope, out);
  const inner: Scope = {
    contextDepth: changesContext(block, helper) ? scope.contextDepth + 1 : scope.contextDepth,
    blockParams: [...scope.blockParams, ...(block.program?.blockParams ?? [])],
  };
  visitProgram(block.program, inner, out);
  // The else branch of every built-in runs with the outer context.
  visitProgram(block.inverse, scope, out);
}

/**
 * Visits a mustache, block head or subexpression; returns the helper it calls,
 * or undefined when it reads a variable instead.
 */
function visitCall(node: CallNode, scope: Scope, out: Set<string>): string | undefined {
  const path = callPath(node);
  const helper = helperName(node, path);
  if (helper === undefined) {
    if (isSimpleName(path) && RESERVED_NAMES.has(path.parts[0]!)) {
      throw unsupported(`${path.parts[0]} is reserved by Handlebars and cannot be used as a name`, node);
    }
    visitPath(path, scope, out);
  } else {
    checkHelperCall(helper, node);
  }
  for (const param of node.params) visitExpression(param, scope, out);
  for (const pair of node.hash?.pairs ?? []) visitExpression(pair.value, scope, out);
  return helper;
}

function visitExpression(node: hbs.AST.Expression, scope: Scope, out: Set<string>): void {
  if (node.type === 'PathExpression') visitPath(node as PathExpression, scope, out);
  else if (node.type === 'SubExpression') visitCall(node as hbs.AST.SubExpression, scope, out);
  // Literals read nothing.
}

function visitPath(path: PathExpression, scope: Scope, out: Set<string>): void {
  const [first, second] = path.parts;
  if (path.data) {
    // @root.user reads the top-level `user`; @index, @key, @first... are not inputs.
    if (first === 'root' && second !== undefined) out.add(second);
    return;
  }
  if (first === undefined) return; // `this` or `.`
  if (path.depth === 0 && !isScoped(path) && scope.blockParams.includes(first)) return;
  if (path.depth === scope.contextDepth) out.add(first);
}

// Checked here rather than left to the compiler's knownHelpersOnly, so that a
// write is validated by the parse alone (the compiler runs at the first render).
function checkHelperCall(helper: string, node: CallNode): void {
  if (!Object.hasOwn(HELPER_ARITY, helper)) {
    throw unsupported(`unknown helper ${helper}: the helpers are ${Object.keys(HELPER_ARITY).join(', ')}`, node);
  }
  if (BLOCK_ONLY_HELPERS.has(helper) && node.type !== 'BlockStatement') {
    throw unsupported(`${helper} can only be used as a block ({{#${helper} ...}}...{{/${helper}}})`, node);
  }
  const arity = HELPER_ARITY[helper];
  if (arity === undefined || arity === node.params.length) return;
  const expected = arity === 1 ? 'exactly one argument' : `exactly ${arity} arguments`;
  throw unsupported(`${helper} needs ${expected}, got ${node.params.length}`, node);
}

/** The compiler's rule (compiler.js classifySexpr): params or a hash, or a known helper's bare name. */
function helperName(node: CallNode, path: PathExpression): string | undefined {
  const name = path.parts[0];
  if (node.type === 'SubExpression' || node.params.length > 0 || node.hash !== undefined) return path.original;
  return isSimpleName(path) && Object.hasOwn(HELPER_ARITY, name!) ? name : undefined;
}

/** The compiler's simpleId (`{{name}}`, also `{{@name}}`): the only form it may take for a helper call without arguments. */
function isSimpleName(path: PathExpression): boolean {
  return path.parts.length === 1 && !isScoped(path) && path.depth === 0;
}

function changesContext(block: hbs.AST.BlockStatement, helper: string | undefined): boolean {
  // A bare section ({{#user}}...{{/user}}) renders its body with the value as context.
  if (helper === undefined) return true;
  if (!CONTEXT_CHANGING_HELPERS.has(helper)) return false;
  // {{#with this}} keeps the same context object, so `../` does not step back.
  const [target] = block.params;
  return !(helper === 'with' && target?.type === 'PathExpression' && isThis(target as PathExpression));
}

/** Handlebars turns a literal in call position ({{"name"}}) into a path of that name. */
function callPath(node: CallNode): PathExpression {
  const path = node.path as PathExpression | hbs.AST.Literal;
  if (path.type === 'PathExpression') return path as PathExpression;
  const original = String((path as { original?: unknown }).original);
  return { type: 'PathExpression', data: false, depth: 0, parts: [original], original, loc: path.loc };
}

function isScoped(path: PathExpression): boolean {
  return /^\.|this\b/.test(path.original);
}

function isThis(path: PathExpression): boolean {
  return !path.data && path.depth === 0 && path.parts.length === 0;
}

function unsupported(message: string, node: Node): UnsupportedTemplate {
  const { line, column } = node.loc.start;
  return new UnsupportedTemplate(`${message} (line ${line}, column ${column})`);
}

/** Where a block starts, as Handlebars passes it to helpers (`options.loc.start`). */
export function blockKey(start: { readonly line: number; readonly column: number }): string {
  return `${start.line}:${start.column}`;
}

export interface BlockCosts {
  /** Per block (by blockKey): 1 plus every statement inside it, nested blocks included. */
  readonly byBlock: ReadonlyMap<string, number>;
  /** 1 plus every statement of the template: the cost of a block not found above. */
  readonly whole: number;
}

/**
 * What one run of each block's body may cost at most: its statements, each
 * executed at most once per run except inside a nested loop, whose iterations
 * are charged on their own. The render budget charges this per iteration.
 */
export function blockCosts(program: hbs.AST.Program): BlockCosts {
  const byBlock = new Map<string, number>();
  const count = (body: hbs.AST.Program | undefined): number => {
    let total = 0;
    for (const statement of body?.body ?? []) {
      total++;
      if (statement.type === 'BlockStatement') {
        const block = statement as hbs.AST.BlockStatement;
        const inner = 1 + count(block.program) + count(block.inverse);
        byBlock.set(blockKey(block.loc.start), inner);
        total += inner;
      }
    }
    return total;
  };
  return { byBlock, whole: 1 + count(program) };
}
