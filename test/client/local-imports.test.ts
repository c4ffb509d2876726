/**
 * The local evaluator goes into the installable client package: what it
 * imports, file by file, must not reach the server (SQLite, gRPC, express,
 * libsodium, the store adapters). Walks its run-time imports (type-only ones
 * are erased) with TypeScript's parser and lists every package reached.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** The specifiers a file imports at run time: `import type` and `export type` are erased by the compiler. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.ES2022);
  const specs: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly === true) continue;
      specs.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined && !statement.isTypeOnly) {
      specs.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isImportEqualsDeclaration(statement) && !statement.isTypeOnly && ts.isExternalModuleReference(statement.moduleReference)) {
      specs.push((statement.moduleReference.expression as ts.StringLiteral).text);
    }
  }
  return specs;
}

function closure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of runtimeImports(file)) {
      if (!spec.startsWith('.')) {
        packages.add(spec);
        continue;
      }
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      let resolved = `${target}.ts`;
      try {
        readFileSync(path.join(ROOT, resolved));
      } catch {
        resolved = `${target}/index.ts`;
      }
      visit(resolved);
    }
  };
  visit(entry);
  return { files, packages };
}

t.test('src/client/local.ts reaches only the engine, templates and pure modules', async (t) => {
  const { files, packages } = closure('src/client/local.ts');
  t.same([...packages].sort(), ['handlebars', 're2js'], 'packages: the engine\'s regex library and the template engine');
  const server = [...files].filter((file) => /^src\/(store\/(?!port\.ts|owned-streams\.ts)|vault|http|audit|main|read-model)/.test(file));
  t.same(server, [], 'no store adapter, vault, HTTP or audit module');
});
