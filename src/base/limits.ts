/**
 * The request and template limits, as a type of their own: config.ts reads
 * them from the environment, and the pure modules the client package bundles
 * (evaluate, templates, local evaluation) take them without importing the
 * configuration reader (or its logger).
 */
export interface Limits {
  /** Request body, bytes (413 above). */
  readonly maxBodyBytes: number;
  /** Members of `fields` in one evaluate request. */
  readonly maxFields: number;
  /** Characters of one field key. */
  readonly maxFieldKeyLength: number;
  /** Characters of one string field value. */
  readonly maxFieldValueLength: number;
  /** Characters of one regex pattern in a rule. */
  readonly maxRegexLength: number;
  /** Prompt templates (src/prompts/): UTF-8 bytes of one template. */
  readonly templateMaxBytes: number;
  /** Expressions in one template: tags plus the names, literals, path separators and operators in them. */
  readonly templateMaxExpressions: number;
  /** Nesting of blocks and sub-expressions in one template. */
  readonly templateMaxDepth: number;
  /** UTF-8 bytes of one rendered prompt. */
  readonly renderMaxBytes: number;
  /** UTF-8 bytes of all prompts rendered for one evaluate answer. */
  readonly responseMaxRenderBytes: number;
  /** Work of one render: each loop iteration costs 1 plus the statements of its body. */
  readonly renderMaxSteps: number;
}
