/**
 * src/console/api-types.ts is generated from the OpenAPI document: it must be
 * what the generator writes today, or the console's types have drifted from
 * the API (run `npm run console:types`).
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { API_TYPES_FILE, generateApiTypes } from '../../scripts/console-api-types';

t.test('the committed console API types match the OpenAPI document', async (t) => {
  const committed = readFileSync(API_TYPES_FILE, 'utf8');
  t.ok(committed === (await generateApiTypes()), 'src/console/api-types.ts is up to date (npm run console:types rewrites it)');
});
