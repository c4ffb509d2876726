/**
 * The pre-scan every prompt template passes before Handlebars parses it.
 *
 * Handlebars' parser costs several microseconds per token and grows faster
 * than linearly with nesting (a 420 KiB nested template took minutes), so the
 * size, the number of expressions and the nesting depth are checked first, in
 * one linear pass that reads each character once. The pass follows the
 * Handlebars 4 lexer closely enough never to undercount: escaped tags
 * (`\{{`), comments and string or `[...]` literals cannot hide or fake a tag,
 * and when in doubt it counts more, never less.
 */
import type { Limits } from '../base/limits';

export type TemplateLimits = Pick<Limits, 'templateMaxBytes' | 'templateMaxExpressions' | 'templateMaxDepth'>;

export interface TemplateSize {
  readonly bytes: number;
  /** Tags, plus the names, path segments, literals and operators inside them. */
  readonly expressions: number;
  /** Deepest nesting of blocks (an `{{else if}}` chain link counts as one) plus sub-expressions. */
  readonly depth: number;
}

export type ScanResult = { ok: true; size: TemplateSize } | { ok: false; error: string };

// Characters that are a token of their own inside a tag.
const OPERATORS = new Set(['(', ')', '=', '|', '.', '/', '@']);
const SPACE = /\s/;

/**
 * Measures a template against the limits without parsing it. The error names
 * the limit and its setting, e.g. `prompt has 2001 expressions; the limit is
 * RULEVAULT_TEMPLATE_MAX_EXPRESSIONS=2000`.
 */
export function scanTemplate(source: string, limits: TemplateLimits): ScanResult {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > limits.templateMaxBytes) {
    return { ok: false, error: `prompt is ${bytes} bytes; the limit is RULEVAULT_TEMPLATE_MAX_BYTES=${limits.templateMaxBytes}` };
  }
  const scanner = new Scanner(source);
  let depth = 0;
  for (let tag = scanner.nextTag(); tag !== undefined; tag = scanner.nextTag()) {
    if (tag === 'raw') return { ok: false, error: 'raw blocks ({{{{name}}}}) are not supported' };
    if (scanner.expressions > limits.templateMaxExpressions) {
      return {
        ok: false,
        error: `prompt has more than ${limits.templateMaxExpressions} expressions; the limit is RULEVAULT_TEMPLATE_MAX_EXPRESSIONS=${limits.templateMaxExpressions}`,
      };
    }
    depth = Math.max(depth, scanner.deepest);
    if (depth > limits.templateMaxDepth) {
      return {
        ok: false,
        error: `prompt nests blocks and sub-expressions ${depth} deep; the limit is RULEVAULT_TEMPLATE_MAX_DEPTH=${limits.templateMaxDepth}`,
      };
    }
  }
  return { ok: true, size: { bytes, expressions: scanner.expressions, depth } };
}

type TagKind = 'open' | 'chain' | 'close' | 'other' | 'raw';

/** Walks the tags of a template in order, keeping the counts the limits need. */
class Scanner {
  expressions = 0;
  /** Deepest nesting reached inside the last tag. */
  deepest = 0;
  private position = 0;
  /** Per open block, the levels it holds: 1, plus one per `{{else if ...}}` link. */
  private readonly blocks: number[] = [];
  private blockDepth = 0;

  constructor(private readonly source: string) {}

  /** Steps over the next tag and returns its kind; undefined at the end. */
  nextTag(): TagKind | undefined {
    const text = this.source;
    let start = text.indexOf('{{', this.position);
    // The lexer reads one backslash before `{{` as an escape (the tag is text), two or more as a real tag.
    while (start > 0 && text[start - 1] === '\\' && text[start - 2] !== '\\') start = text.indexOf('{{', start + 2);
    if (start === -1) {
      this.position = text.length;
      return undefined;
    }
    this.expressions++;
    let at = start + 2;
    if (text.startsWith('{{', at)) return 'raw';
    if (text[at] === '~') at++;
    const sigil = text[at];
    if (sigil === '!') return this.skipComment(at + 1);
    let kind: TagKind = 'other';
    if (sigil === '#') kind = 'open';
    else if (sigil === '/') kind = 'close';
    else if (sigil === '^') kind = /^\^\s*~?\}\}/.test(text.slice(at, at + 64)) ? 'other' : 'open';
    else if (/^\s*else\b/.test(text.slice(at, at + 64))) kind = /^\s*else\s*~?\}\}/.test(text.slice(at, at + 64)) ? 'other' : 'chain';
    if (kind === 'open') {
      this.blocks.push(1);
      this.blockDepth++;
    } else if (kind === 'chain' && this.blocks.length > 0) {
      this.blocks[this.blocks.length - 1]!++;
      this.blockDepth++;
    } else if (kind === 'close') {
      // A stray closer makes the parse fail right there, so nothing after it is parsed.
      this.blockDepth -= this.blocks.pop() ?? 0;
    }
    // The sigil is part of the tag, not a token of its own.
    this.skipTagBody(kind === 'open' || kind === 'close' ? at + 1 : at);
    return kind;
  }

  /** Counts the tokens and parentheses of a tag up to its closing `}}`. */
  private skipTagBody(from: number): void {
    const text = this.source;
    let parens = 0;
    let inWord = false;
    this.deepest = this.blockDepth;
    let at = from;
    for (; at < text.length; at++) {
      const char = text[at]!;
      if (char === '}' && text[at + 1] === '}') break;
      if (char === '"' || char === "'" || char === '[') {
        this.expressions++;
        inWord = false;
        at = this.skipLiteral(at, char === '[' ? ']' : char);
      } else if (OPERATORS.has(char)) {
        this.expressions++;
        inWord = false;
        if (char === '(') parens++;
        else if (char === ')') parens = Math.max(0, parens - 1);
        this.deepest = Math.max(this.deepest, this.blockDepth + parens);
      } else if (SPACE.test(char) || char === '~' || char === '}' || char === '{' || char === '&') {
        inWord = false;
      } else if (!inWord) {
        this.expressions++;
        inWord = true;
      }
    }
    this.position = at + 2;
  }

  /** The index of a literal's closing character (`\"` does not close a string, `\]` not a segment). */
  private skipLiteral(open: number, close: string): number {
    const text = this.source;
    for (let at = open + 1; at < text.length; at++) {
      if (text[at] === '\\' && text[at + 1] === close) at++;
      else if (text[at] === close) return at;
    }
    return text.length;
  }

  /** `{{!-- ... --}}` ends at the first `--}}`, `{{! ... }}` at the first `}}`; neither holds tags. */
  private skipComment(from: number): TagKind {
    const text = this.source;
    if (text.startsWith('--', from)) {
      const end = /--~?\}\}/g;
      end.lastIndex = from + 2;
      const match = end.exec(text);
      this.position = match === null ? text.length : match.index + match[0].length;
    } else {
      const end = text.indexOf('}}', from);
      this.position = end === -1 ? text.length : end + 2;
    }
    this.deepest = this.blockDepth;
    return 'other';
  }
}
