/**
 * A line diff (longest common subsequence) for prompt versions and rule
 * history. Pure. Quadratic in lines, so inputs past MAX_DIFF_CELLS are shown
 * as a whole replacement rather than freezing the page.
 */
export type DiffLine = { readonly op: 'same' | 'add' | 'del'; readonly text: string };

const MAX_DIFF_CELLS = 4_000_000;

export function diffLines(before: string, after: string): DiffLine[] {
  // An empty text has no lines (a creation's "before").
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  if (a.length * b.length > MAX_DIFF_CELLS) {
    return [...a.map((text) => ({ op: 'del' as const, text })), ...b.map((text) => ({ op: 'add' as const, text }))];
  }
  // lcs[i][j]: the common subsequence length of a[i..] and b[j..].
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: 'del', text: a[i++]! });
    else out.push({ op: 'add', text: b[j++]! });
  }
  while (i < a.length) out.push({ op: 'del', text: a[i++]! });
  while (j < b.length) out.push({ op: 'add', text: b[j++]! });
  return out;
}

/** Stable, indented JSON for diffing values (history's before/after). */
export function pretty(value: unknown): string {
  return value === undefined || value === null ? '' : JSON.stringify(value, null, 2);
}
