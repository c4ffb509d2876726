/**
 * Validates JSON bodies against the schema the OpenAPI document gives for a
 * path, method and status, with ajv's JSON Schema 2020-12 dialect (the one
 * OpenAPI 3.1 uses). The whole document is registered once, so `$ref`s to
 * `#/components/schemas/...` resolve inside it.
 */
import Ajv2020 from 'ajv/dist/2020';
import type { OpenApiDocument } from '../../src/http/openapi';

/** The document's top-level members are not JSON Schema keywords: declare them so strict mode accepts them. */
const DOCUMENT_KEYWORDS = ['openapi', 'info', 'servers', 'paths', 'components', 'security', 'tags', 'webhooks'];
const DOCUMENT_ID = 'https://rulevault.local/openapi.json';

export interface CheckResult {
  readonly ok: boolean;
  readonly errors: string;
}

export function createSchemaCheck(document: OpenApiDocument) {
  // Formats are documentation here; the schemas pin the shapes with patterns.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, formats: { 'date-time': true } });
  ajv.addVocabulary(DOCUMENT_KEYWORDS);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });

  return {
    /** The documented JSON schema for a response, or undefined when the document has none. */
    has(path: string, method: string, status: number): boolean {
      return document.paths[path]?.[method as 'get']?.responses[String(status)]?.content?.['application/json'] !== undefined;
    },
    check(path: string, method: string, status: number, body: unknown): CheckResult {
      const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema']
        .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      const validate = ajv.getSchema(`${DOCUMENT_ID}#/${pointer}`);
      if (validate === undefined) return { ok: false, errors: `no schema documented for ${method.toUpperCase()} ${path} ${status}` };
      const ok = validate(body) as boolean;
      return { ok, errors: ok ? '' : ajv.errorsText(validate.errors, { separator: '\n' }) };
    },
  };
}
