/**
 * The client's record and error types are generated from the OpenAPI
 * document (scripts/client-types.ts); the committed file must be what the
 * document renders today, so a schema change cannot leave the client behind.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/client-types';
import { openApiDocument } from '../../src/http/openapi';

const ROOT = path.resolve(__dirname, '..', '..', '..');

t.test('src/client/api-types.ts is current with the OpenAPI document (else run `npm run client:types`)', async (t) => {
  const committed = readFileSync(path.join(ROOT, CLIENT_TYPES_FILE), 'utf8');
  t.equal(committed, renderClientTypes(openApiDocument));
});

t.test('every component schema is a type of the client, records as interfaces', async (t) => {
  const rendered = renderClientTypes(openApiDocument);
  for (const name of Object.keys(openApiDocument.components.schemas)) {
    t.match(rendered, new RegExp(`^export (interface|type) ${name}\\b`, 'm'), name);
  }
  t.match(rendered, /^export interface Rule \{\n {2}id: string;\n/m);
  t.match(rendered, /^export type GetSecretsAnswer = \{\n {2}err: null;/m, 'a oneOf is a union');
});
