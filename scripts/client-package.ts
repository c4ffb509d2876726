/**
 * Builds @rulevault/client, the client library as a package of its own,
 * from src/client/index.ts into build/client/ and packs it with `npm pack`.
 *
 * - index.mjs (ESM) and index.cjs (CommonJS): esbuild bundles whatever
 *   src/client/index.ts imports; openfeature.mjs and openfeature.cjs the
 *   same for src/client/openfeature.ts, the `@rulevault/client/openfeature`
 *   entry (ADR 0060), which alone imports a PEER_PACKAGES package: left
 *   out of the bundle, an optional peer dependency the application
 *   installs. Third-party code in the bundle must be on BUNDLED_PACKAGES
 *   (re2js for the engine, handlebars and its source-map for the prompts
 *   local evaluation renders), so the package has no dependencies at all and
 *   a server package (SQLite, gRPC, express, ...) cannot slip in by an import.
 * - types/: the declarations tsc emits for the same files. A bundled
 *   package's own declarations are copied to types/vendor/ and imports of it
 *   pointed there (the engine's types name re2js's RE2JS); a peer's import
 *   is kept; any other package import is refused, since the package installs
 *   none. Bundled packages'
 *   licences go to LICENSES/.
 * - package.json with an exports map (types, import, require) per entry,
 *   and the peers as optional peerDependencies.
 *
 *   npm run client:pack     # writes build/client and build/rulevault-client-<version>.tgz
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..', '..');
const ENTRY = path.join(ROOT, 'src', 'client', 'index.ts');
/** The package's second entry, `./openfeature`: the OpenFeature provider. */
const OPENFEATURE_ENTRY = path.join(ROOT, 'src', 'client', 'openfeature.ts');
export const PACKAGE_NAME = '@rulevault/client';

/** Third-party packages the client may bundle: pure JavaScript, no I/O. */
const BUNDLED_PACKAGES: readonly string[] = ['re2js', 'handlebars', 'source-map'];

/**
 * Packages the application brings, never bundled: optional peer
 * dependencies with the versions the package accepts. Only the openfeature
 * entry may import them, so the plain client loads without them.
 */
const PEER_PACKAGES: Readonly<Record<string, string>> = { '@openfeature/server-sdk': '^1.23.0' };

/**
 * Writes the package into `outDir` (emptied first); returns its package.json.
 * `entry` is src/client/index.ts; a test passes another to check what the
 * package will be once the entry imports more (the engine).
 */
export function buildClientPackage(outDir: string, entry: string = ENTRY): Record<string, unknown> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  bundle(outDir, entry, 'index', []);
  bundle(outDir, OPENFEATURE_ENTRY, 'openfeature', Object.keys(PEER_PACKAGES));
  emitDeclarations(path.join(outDir, 'types'), [entry, OPENFEATURE_ENTRY]);
  const typesOf = (file: string) => `./types/${path.relative(ROOT, file).split(path.sep).join('/').replace(/\.ts$/, '.d.ts')}`;
  const manifest = packageJson(typesOf(entry), typesOf(OPENFEATURE_ENTRY));
  writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  mkdirSync(path.join(outDir, 'LICENSES'));
  for (const name of BUNDLED_PACKAGES) writeFileSync(path.join(outDir, 'LICENSES', `${name}.txt`), readFileSync(bundledPackageFile(name, 'license'), 'utf8'));
  writeFileSync(path.join(outDir, 'README.md'), [
    `# ${PACKAGE_NAME}`,
    '',
    'The RuleVault client: getSecrets, evaluate, getPrompt (cached, with a fallback) and admin helpers.',
    'See docs/client.md ("The client library") in the RuleVault repository.',
    '',
  ].join('\n'));
  return manifest;
}

/** `npm pack` of a built package into `destination`; returns the tarball's path. */
export function packClientPackage(outDir: string, destination: string): string {
  mkdirSync(destination, { recursive: true });
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: outDir, encoding: 'utf8' });
  const [packed] = JSON.parse(output) as { filename: string }[];
  if (packed === undefined) throw new Error(`npm pack printed no package: ${output}`);
  return path.join(destination, packed.filename);
}

/** `entry` bundled as `<name>.mjs` and `<name>.cjs`, with `peers` left as imports. */
function bundle(outDir: string, entry: string, name: string, peers: readonly string[]): void {
  for (const [format, file] of [['esm', `${name}.mjs`], ['cjs', `${name}.cjs`]] as const) {
    const result = buildSync({
      entryPoints: [entry],
      outfile: path.join(outDir, file),
      external: [...peers],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format,
      metafile: true,
      sourcemap: false,
      legalComments: 'inline',
      logLevel: 'silent',
    });
    const foreign = Object.keys(result.metafile.inputs)
      .map(packageOf)
      .filter((name): name is string => name !== undefined && !BUNDLED_PACKAGES.includes(name));
    if (foreign.length > 0) {
      throw new Error(`the client imports ${[...new Set(foreign)].join(', ')}; only ${BUNDLED_PACKAGES.join(', ')} may be bundled (see scripts/client-package.ts)`);
    }
  }
}

/** The package a bundled input comes from, or undefined for the repository's own files. */
function packageOf(input: string): string | undefined {
  const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input.split(path.sep).join('/'));
  return match?.[1];
}

function emitDeclarations(typesDir: string, entries: readonly string[]): void {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    skipLibCheck: true,
    esModuleInterop: true,
    // The declarations need no Node types, but the sources read process.env.
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules', '@types')],
    rootDir: ROOT,
    outDir: typesDir,
  };
  const program = ts.createProgram([...entries], options);
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (problems.length > 0) throw new Error(ts.formatDiagnostics(problems, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' }));
  const vendorDir = path.join(typesDir, 'vendor');
  // Only the bundled packages the declarations name get their declarations carried.
  const named = new Set<string>();
  for (const file of listFiles(typesDir)) {
    const text = readFileSync(file, 'utf8');
    const rewritten = text.replace(/((?:from\s+|import\(\s*|require\(\s*)['"])([^'"]+)(['"])/g, (whole, before: string, specifier: string, after: string) => {
      if (specifier.startsWith('.') || specifier.startsWith('node:') || Object.hasOwn(PEER_PACKAGES, specifier)) return whole;
      if (!BUNDLED_PACKAGES.includes(specifier)) throw new Error(`${path.relative(typesDir, file)} imports ${specifier}; the client's types must stand alone`);
      named.add(specifier);
      const relative = path.relative(path.dirname(file), path.join(vendorDir, specifier)).split(path.sep).join('/');
      return `${before}${relative.startsWith('.') ? relative : `./${relative}`}${after}`;
    });
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
  mkdirSync(vendorDir, { recursive: true });
  for (const name of named) writeFileSync(path.join(vendorDir, `${name}.d.ts`), readFileSync(bundledPackageFile(name, 'types'), 'utf8'));
}

/** A file of a bundled package named by its package.json (`types`), or its LICENSE. */
function bundledPackageFile(name: string, member: 'types' | 'license'): string {
  // Not require.resolve: a package's exports map may hide its package.json.
  const dir = path.join(ROOT, 'node_modules', name);
  const manifestPath = path.join(dir, 'package.json');
  if (member === 'license') return path.join(dir, 'LICENSE');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { types?: string; typings?: string };
  const types = manifest.types ?? manifest.typings;
  if (types === undefined) throw new Error(`${name} names no types file; the client cannot carry its declarations`);
  return path.join(dir, types.endsWith('.ts') ? types : `${types}.d.ts`);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]);
}

function packageJson(types: string, openfeatureTypes: string): Record<string, unknown> {
  const root = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
  return {
    name: PACKAGE_NAME,
    version: root.version,
    description: 'RuleVault client: secrets, evaluate, prompts with caching and fallback',
    license: root.license,
    engines: { node: '>=20' },
    main: './index.cjs',
    module: './index.mjs',
    types,
    exports: {
      '.': { types, import: './index.mjs', require: './index.cjs' },
      './openfeature': { types: openfeatureTypes, import: './openfeature.mjs', require: './openfeature.cjs' },
      './package.json': './package.json',
    },
    peerDependencies: { ...PEER_PACKAGES },
    peerDependenciesMeta: Object.fromEntries(Object.keys(PEER_PACKAGES).map((name) => [name, { optional: true }])),
    sideEffects: false,
  };
}

if (require.main === module) {
  const outDir = path.join(ROOT, 'build', 'client');
  buildClientPackage(outDir);
  const tarball = packClientPackage(outDir, path.join(ROOT, 'build'));
  process.stdout.write(`${path.relative(process.cwd(), tarball)}\n`);
}
