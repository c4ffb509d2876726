/**
 * The repository's TypeScript sources and their imports, read statically for
 * the tests that check the tree's shape (test/layers.test.ts,
 * test/tiers.test.ts). Parsed with TypeScript's own pre-processor, so
 * `import type`, `export … from`, `import()` and `require()` all count.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Repo-relative paths of the .ts and .tsx files (not .d.ts) under `dir`. */
export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...tsFiles(rel));
    else if ((name.endsWith('.ts') || name.endsWith('.tsx')) && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** The repo-relative target, without extension, of relative import `spec` in `file`. */
export function targetOf(file: string, spec: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '');
}

/** The repo-relative targets of a file's relative imports (type-only ones too), without extension. */
export function relativeImports(file: string): { readonly spec: string; readonly target: string }[] {
  return ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true).importedFiles
    .map((ref) => ref.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => ({ spec, target: targetOf(file, spec) }));
}

/** The file a relative import's target (from relativeImports) names: `x.ts`, `x.tsx` or `x/index.ts`; undefined when none is. */
export function sourceOf(target: string): string | undefined {
  return [`${target}.ts`, `${target}.tsx`, `${target}/index.ts`].find((file) => existsSync(path.join(ROOT, file)));
}

/**
 * The module specifiers a file loads when it runs: `import type`, and imports
 * whose every name is a type (both erased by the compiler), are left out;
 * `require()` and `import()` of a literal count.
 */
export function runtimeSpecifiers(file: string): readonly string[] {
  let known = runtimeSpecifiersOf.get(file);
  if (known === undefined) runtimeSpecifiersOf.set(file, (known = parseRuntimeSpecifiers(file)));
  return known;
}

/** By file: the tier test walks the same src/ modules from every unit file. */
const runtimeSpecifiersOf = new Map<string, readonly string[]>();

function parseRuntimeSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  const erased = (clause: ts.ImportClause | undefined): boolean => {
    if (clause === undefined) return false;
    if (clause.isTypeOnly) return true;
    const bindings = clause.namedBindings;
    return clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!erased(node.importClause)) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause;
      const allTypes = named !== undefined && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((element) => element.isTypeOnly);
      if (!node.isTypeOnly && !allTypes) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]!)
      && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}
