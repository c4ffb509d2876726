/**
 * Rendering one prompt version for a caller (evaluate's records and the
 * OpenLIT route): a text version's template, or each message of a chat
 * version. Pure and total: a failure is data (`error`), never a throw.
 */
import type { PromptVersion } from '../../projections';
import { missingVariables, type OutputBound, type RenderLimits, type TemplateLimits } from '../prompts/template';

export type RenderedPrompt = string | { role: string; content: string }[];

export interface RenderOptions {
  readonly variables: Readonly<Record<string, unknown>>;
  /** false: nothing is rendered, `compiled` is the raw prompt. */
  readonly shouldCompile: boolean;
  /** true: a render with variables missing is refused (`compiled: null`, `error` naming them). */
  readonly strict: boolean;
}

/** Output bytes still allowed across the renders of one answer, spent in order. */
export interface OutputBudget {
  left: number;
  /** The error when a render passes `left`, naming the limit. */
  readonly reason: string;
}

export interface RenderedVersion {
  readonly type: 'text' | 'chat';
  /** The raw template, or the chat's messages as written. */
  readonly prompt: RenderedPrompt;
  /** The rendered prompt (the raw one when not compiled); null when the render failed or was refused. */
  readonly compiled: RenderedPrompt | null;
  /** Names the templates use, sorted; for a chat, across its messages. */
  readonly variables: readonly string[];
  /** Of `variables`, those not supplied. */
  readonly missing: string[];
  readonly error?: string;
}

export function renderVersion(version: PromptVersion, options: RenderOptions, limits: RenderLimits, budget?: OutputBudget): RenderedVersion {
  const messages = version.messages;
  const parts = messages === undefined ? [version.compiled] : messages.map((m) => m.compiled);
  const prompt = rawPrompt(version);
  const type = versionType(version);
  const variables = versionVariables(version, limits);
  const missing = missingVariables(variables, options.variables);
  if (!options.shouldCompile) return { type, prompt, compiled: prompt, variables, missing };
  if (options.strict && missing.length > 0) {
    return { type, prompt, compiled: null, variables, missing, error: `missing variables: ${missing.join(', ')} (strict compile)` };
  }
  const texts: string[] = [];
  for (const [i, part] of parts.entries()) {
    const bound: OutputBound | undefined = budget === undefined ? undefined : { bytes: budget.left, reason: budget.reason };
    const rendered = part?.render(options.variables, limits, bound);
    const error = rendered === undefined ? 'template cannot be used' : rendered.error;
    if (error !== undefined) {
      return { type, prompt, compiled: null, variables, missing, error: messages === undefined ? error : `prompt[${i}].content: ${error}` };
    }
    if (budget !== undefined) budget.left -= Buffer.byteLength(rendered!.text, 'utf8');
    texts.push(rendered!.text);
  }
  const compiled = messages === undefined ? texts[0]! : messages.map(({ role }, i) => ({ role, content: texts[i]! }));
  return { type, prompt, compiled, variables, missing };
}

export function versionType(version: PromptVersion): 'text' | 'chat' {
  return version.messages === undefined ? 'text' : 'chat';
}

/** The prompt as written: the template, or the chat's messages. */
export function rawPrompt(version: PromptVersion): RenderedPrompt {
  return version.messages === undefined ? version.template : version.messages.map(({ role, content }) => ({ role, content }));
}

/** Names the version's templates use, sorted; for a chat, across its messages. */
export function versionVariables(version: PromptVersion, limits: TemplateLimits): readonly string[] {
  if (version.messages === undefined) return version.compiled?.variables(limits) ?? [];
  return [...new Set(version.messages.flatMap((m) => m.compiled?.variables(limits) ?? []))].sort();
}
