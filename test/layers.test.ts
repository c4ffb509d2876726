/**
 * Layers point one way (docs/architecture.md#where-things-are): every relative import in
 * src/, projections/ and scripts/ goes to the same layer or a lower one, and
 * nothing outside src/engine reaches past the engine's index. The sources are
 * parsed with TypeScript's own pre-processor (test/support/imports.ts), so
 * `import type`, `export … from`, `import()` and `require()` all count.
 */
import t from 'tap';
import { relativeImports, tsFiles } from './support/imports';

/**
 * Lowest first. A file belongs to the first entry whose path is it or holds it;
 * it may import its own layer and any lower one. A new top-level module must be
 * placed here (the test fails on an unplaced file).
 */
const LAYERS: readonly (readonly string[])[] = [
  // The base modules everyone imports: errors, limits, the logger, configuration, ids, steps, the memory guard.
  ['src/base'],
  ['src/store', 'src/engine', 'src/prompts'],
  ['src/events'],
  ['projections', 'src/vault'],
  ['src/domain'],
  // The read side: the live read model and its feed, and its snapshots.
  ['src/read-model', 'src/snapshots'],
  ['src/service'],
  ['src/audit'],
  ['src/http'],
  ['src/cluster'],
  ['src/main.ts', 'src/index.ts', 'src/client'],
  // The web console, a browser program of its own: it reuses the engine's condition vocabulary and checks.
  ['src/console'],
  // The operator's CLI, and the build tooling.
  ['src/cli', 'scripts'],
];

/** Folders whose tests unit-test the engine's internals and so may import them. */
const ENGINE_INTERNALS_ALLOWED = [
  'src/engine', 'test/engine',
  // The console imports conditions.ts at once and validate.ts (with re2js) on first use: the index would bring the whole engine into the first load.
  'src/console',
];

function under(file: string, entry: string): boolean {
  return file === entry || file === entry.replace(/\.ts$/, '') || file.startsWith(`${entry}/`);
}

function layerOf(file: string): number {
  return LAYERS.findIndex((layer) => layer.some((entry) => under(file, entry)));
}

const layered = ['src', 'projections', 'scripts'].flatMap(tsFiles);

t.test('the parser sees every kind of import', async (t) => {
  const targets = relativeImports('src/store/open-store.ts').map((i) => i.target);
  t.ok(targets.includes('src/store/esdb'), 'require() and import() types count');
  t.ok(layered.length > 50, 'the walk finds the sources');
});

t.test('every file of src/, projections/ and scripts/ has a layer', async (t) => {
  t.same(layered.filter((file) => layerOf(file) < 0), []);
});

t.test('no import points up a layer', async (t) => {
  const upward: string[] = [];
  for (const file of layered) {
    for (const { spec, target } of relativeImports(file)) {
      const to = layerOf(target);
      if (to > layerOf(file)) upward.push(`${file} imports ${spec} (layer ${to} above ${layerOf(file)})`);
    }
  }
  t.same(upward, []);
});

/** Folders with one face (their index.ts), and where else their insides may be imported from. */
const FACES: readonly { readonly dir: string; readonly insidersAlso: readonly string[] }[] = [
  { dir: 'src/engine', insidersAlso: ENGINE_INTERNALS_ALLOWED },
  { dir: 'src/snapshots', insidersAlso: ['test/snapshots'] },
];

for (const { dir, insidersAlso } of FACES) {
  t.test(`outside ${dir} it is imported only through its index`, async (t) => {
    const files = ['src', 'projections', 'scripts', 'bench', 'test'].flatMap(tsFiles);
    const internal: string[] = [];
    for (const file of files) {
      if (under(file, dir) || insidersAlso.some((other) => under(file, other))) continue;
      for (const { spec, target } of relativeImports(file)) {
        if (target.startsWith(`${dir}/`) && target !== `${dir}/index`) internal.push(`${file} imports ${spec}`);
      }
    }
    t.same(internal, []);
  });
}
