/**
 * Builds the console into dist/console, served at /console (src/http/routes/console.ts).
 * No modulepreload polyfill: it would be an inline-free but needless script, and every
 * supported browser preloads modules itself. JSX compiles to Preact's automatic runtime.
 */
import { defineConfig } from 'vite';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
