/**
 * Writes src/console/api-types.ts: TypeScript types for the console, generated
 * from the OpenAPI document (src/http/openapi.ts) by openapi-typescript, so the
 * API's shapes are written once. test/console/api-types.test.ts fails when the
 * committed file and the document drift apart: run `npm run console:types`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../src/http/openapi';

export const API_TYPES_FILE = path.resolve(__dirname, '../../src/console/api-types.ts');

const HEADER = [
  '/* eslint-disable */',
  '// Generated from src/http/openapi.ts by scripts/console-api-types.ts (openapi-typescript). Do not edit:',
  '// run `npm run console:types`. test/console/api-types.test.ts keeps it in step with the document.',
  '',
].join('\n');

export async function generateApiTypes(): Promise<string> {
  // openapi-typescript is ESM only; this file compiles to CommonJS, where import() stays a dynamic import.
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(JSON.parse(JSON.stringify(openApiDocument)) as never, { alphabetize: true });
  return HEADER + astToString(ast);
}

if (require.main === module) {
  void generateApiTypes().then((text) => {
    writeFileSync(API_TYPES_FILE, text);
    process.stdout.write(`wrote ${API_TYPES_FILE}\n`);
  });
}
