/**
 * Reading rule operands and request inputs the way contract §2 defines them.
 * Shared by the compiler (src/engine/predicates.ts) and write-time validation,
 * so a value accepted at write time means the same thing at evaluate time.
 */
import { Layout } from './layout';

/**
 * A decimal number, written fully: optional sign, digits with an optional
 * fraction (or a bare fraction), optional exponent. No whitespace, no hex,
 * no `Infinity`, no digit separators.
 */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The finite number `text` spells, or NaN when it is not a decimal number or overflows ("1e400"). */
export function parseDecimal(text: string): number {
  if (!DECIMAL.test(text)) return NaN;
  const n = Number(text);
  return Number.isFinite(n) ? n : NaN;
}

/** `in`/`not_in` items: comma-separated, each trimmed; `""` is one empty item. */
export function splitList(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}

/** The two trimmed bounds of a `between` value, or null when it is not exactly `lo,hi`. */
export function splitBetween(value: string): [string, string] | null {
  const parts = value.split(',');
  if (parts.length !== 2) return null;
  return [parts[0].trim(), parts[1].trim()];
}

/**
 * A request value as text for string conditions: strings as they are, numbers
 * and booleans by their JSON text. Null for anything JSON cannot carry
 * (non-finite numbers, objects), which makes the field count as absent.
 */
export function inputText(value: unknown): string | null {
  switch (typeof value) {
    case 'string': return value;
    case 'number': return Number.isFinite(value) ? String(value) : null;
    case 'boolean': return value ? 'true' : 'false';
    default: return null;
  }
}

/** A request value as a number for number conditions; NaN when it is not one (never 0). */
export function inputNumber(value: string | number | boolean): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : NaN;
  if (typeof value === 'string') return parseDecimal(value);
  return NaN;
}

/** A request value as a boolean for boolean conditions: 1 true, 0 false, -1 not a boolean. */
export function inputBoolean(value: string | number | boolean): number {
  if (value === true || value === 'true') return Layout.BOOL_TRUE;
  if (value === false || value === 'false') return Layout.BOOL_FALSE;
  return Layout.NOT_BOOL;
}
