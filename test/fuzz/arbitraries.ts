/**
 * fast-check arbitraries for hostile requests. Bodies are built as JSON
 * *text* from a tree whose objects are lists of entries, so they can carry
 * what JSON.stringify never writes: duplicate keys, `__proto__` members,
 * number literals like 1e400 or -0, and (after rendering) invalid UTF-8.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

export type JsonTree =
  | { readonly kind: 'raw'; readonly text: string }
  | { readonly kind: 'array'; readonly items: readonly JsonTree[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, JsonTree])[] };

export function render(tree: JsonTree): string {
  switch (tree.kind) {
    case 'raw': return tree.text;
    case 'array': return `[${tree.items.map(render).join(',')}]`;
    case 'object': return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${render(value)}`).join(',')}}`;
  }
}

const raw = (text: string): JsonTree => ({ kind: 'raw', text });
const object = (entries: readonly (readonly [string, JsonTree])[]): JsonTree => ({ kind: 'object', entries });

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'polluted', 'toString', 'hasOwnProperty', 'valueOf'] as const;

const numberText = fc.oneof(
  fc.constantFrom('1e400', '-1e400', '-0', '0', '1E-400', '123456789012345678901234567890', '0.1', '-5', '9007199254740993'),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.integer().map(String),
);

const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('NaN', 'Infinity', '-0', '1e400', 'true', 'null', '', 'gold', 'context', 'prompt', 'evaluation', '__proto__', '\u0000', '\uD800', '\u202E'),
  fc.constantFrom(1_000, 70_000).map((n) => 'x'.repeat(n)),
);

const stringText = oddString.map((s) => JSON.stringify(s));
const leaf = fc.oneof(numberText, stringText, fc.constantFrom('true', 'false', 'null')).map(raw);

export const anyKey = fc.oneof(
  fc.constantFrom(...PROTO_KEYS, 'entity_type', 'fields', 'include_entity_data', 'entity_inputs', 'variables', 'version', 'shouldCompile', 'key', 'tags', 'name'),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** Any JSON value, small, with hostile keys and literals. */
export const jsonTree: fc.Arbitrary<JsonTree> = fc.letrec<{ node: JsonTree }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 5 }).map((items): JsonTree => ({ kind: 'array', items })),
    fc.array(fc.tuple(anyKey, tie('node')), { maxLength: 5 }).map(object),
  ),
})).node;

/** A member that is usually well-typed, sometimes anything. */
export const mostly = (good: fc.Arbitrary<JsonTree>) => fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: jsonTree });
export const str = (values: fc.Arbitrary<string>) => values.map((s) => raw(JSON.stringify(s)));

/** The members of an object, in any order, with some duplicated (last wins in JSON.parse). */
export function members(spec: { [name: string]: fc.Arbitrary<JsonTree> }): fc.Arbitrary<JsonTree> {
  const entries = Object.entries(spec).map(([name, value]) => fc.option(value.map((v) => [name, v] as const), { nil: undefined }));
  return fc.tuple(fc.tuple(...entries), fc.array(fc.tuple(anyKey, jsonTree), { maxLength: 3 }), fc.array(fc.nat(), { maxLength: 2 }))
    .chain(([given, extra, dupes]) => {
      const list = [...given.filter((e) => e !== undefined), ...extra];
      const duplicated = dupes.filter(() => list.length > 0).map((i) => list[i % list.length]!);
      return fc.shuffledSubarray([...list, ...duplicated], { minLength: list.length + duplicated.length }).map(object);
    });
}

const fieldMap = fc.array(fc.tuple(anyKey, mostly(leaf)), { maxLength: 12 }).map(object);

export const evaluateBody: fc.Arbitrary<JsonTree> = mostly(members({
  entity_type: mostly(str(fc.constantFrom('context', 'prompt', 'evaluation'))),
  fields: mostly(fieldMap),
  include_entity_data: mostly(fc.constantFrom('true', 'false').map(raw)),
  entity_inputs: mostly(members({
    variables: mostly(fc.array(fc.tuple(anyKey, jsonTree), { maxLength: 4 }).map(object)),
    version: mostly(str(fc.constantFrom('1.0.0', '1.1.0', '9.9.9', '1.0', 'latest'))),
    shouldCompile: mostly(fc.constantFrom('true', 'false').map(raw)),
  })),
}));

export const getSecretsBody: fc.Arbitrary<JsonTree> = mostly(members({
  key: mostly(str(fc.constantFrom('OPENAI_API_KEY', 'DB_PASSWORD', 'SHARED', '__proto__', 'constructor', ''))),
  tags: mostly(fc.array(str(fc.constantFrom('llm', 'db', '__proto__', 'constructor', '')), { maxLength: 3 }).map((items): JsonTree => ({ kind: 'array', items }))),
}));

/** Bytes that are not UTF-8: a lone continuation, an overlong slash, a truncated sequence, 0xFF. */
const BAD_UTF8 = [[0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xff, 0xfe], [0xed, 0xa0, 0x80]] as const;

export interface BodyBytes {
  readonly bytes: Buffer;
  readonly contentEncoding: string | undefined;
}

/** Renders a tree to bytes, sometimes with invalid UTF-8 spliced in, sometimes compressed or mislabelled. */
export function bodyBytes(tree: fc.Arbitrary<JsonTree>): fc.Arbitrary<BodyBytes> {
  return fc.record({
    tree,
    corrupt: fc.option(fc.tuple(fc.nat(), fc.constantFrom(...BAD_UTF8)), { nil: undefined, freq: 8 }),
    encoding: fc.constantFrom<'none' | 'gzip' | 'gzip-garbage' | 'mislabelled' | 'unknown'>('none', 'none', 'none', 'none', 'none', 'none', 'gzip', 'gzip-garbage', 'mislabelled', 'unknown'),
  }).map(({ tree: t, corrupt, encoding }) => {
    let bytes = Buffer.from(render(t), 'utf8');
    if (corrupt !== undefined) {
      const at = corrupt[0] % (bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(corrupt[1]), bytes.subarray(at)]);
    }
    switch (encoding) {
      case 'none': return { bytes, contentEncoding: undefined };
      case 'gzip': return { bytes: gzipSync(bytes), contentEncoding: 'gzip' };
      case 'gzip-garbage': return { bytes, contentEncoding: 'gzip' };
      case 'mislabelled': return { bytes: gzipSync(bytes), contentEncoding: 'deflate' };
      case 'unknown': return { bytes, contentEncoding: 'x-squish' };
    }
  });
}

export const contentType = fc.option(fc.constantFrom(
  'application/json', 'text/plain', 'application/json; charset=utf-8', 'application/json; charset=latin1',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16',
  ';;;', 'application/json; charset="utf-8"', 'image/png', '*/*',
), { nil: undefined });

/** Authorization headers: the right key, a wrong-scope key, and malformed or hostile ones. */
export function authorization(right: string, wrong: string): fc.Arbitrary<string | string[] | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(`Bearer ${right}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${wrong}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom('', 'Bearer', 'Bearer ', `bearer ${right}`, `BEARER   ${right}  `, `Bearer ${right} extra`, `Basic ${Buffer.from(`x:${right}`).toString('base64')}`,
          `Bearer ${right.slice(0, -1)}`, `Bearer ${'a'.repeat(8000)}`, 'Bearer __proto__', 'Bearer constructor', `Token ${right}`),
        fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 60 }),
        fc.constant<string[]>([`Bearer ${wrong}`, `Bearer ${right}`]),
      ),
    },
  );
}

const strings = (values: fc.Arbitrary<string>) => fc.array(str(values), { maxLength: 4 }).map((items): JsonTree => ({ kind: 'array', items }));
const name = str(fc.oneof(fc.constantFrom('n', 'a name', '__proto__', ' ', ''), fc.string({ unit: 'binary', maxLength: 30 })));
const status = str(fc.constantFrom('ACTIVE', 'INACTIVE', 'active', ''));
const tags = strings(fc.constantFrom('llm', 'db', '__proto__', '', 'x'.repeat(200)));
const meta = mostly(fc.array(fc.tuple(anyKey, jsonTree), { maxLength: 4 }).map(object));

/** A condition that is often valid, sometimes subtly not (operator for the wrong type, a bad regex). */
const condition = members({
  field: str(fc.constantFrom('tier', 'n', '__proto__', 'constructor', '')),
  operator: str(fc.constantFrom('equals', 'not_equals', 'contains', 'regex', 'in', 'gt', 'between', 'like')),
  value: mostly(fc.oneof(str(fc.constantFrom('gold', '5', '1,9', '(a+)+$', '(unclosed', '[', 'x'.repeat(1001))), numberText.map(raw))),
  data_type: str(fc.constantFrom('string', 'number', 'boolean', 'date')),
});

/** Bodies for each admin write: near-valid members, any of which may be replaced by anything. */
export const adminBodies = {
  rule: members({
    name,
    description: mostly(str(fc.string({ maxLength: 20 }))),
    status,
    group_operator: str(fc.constantFrom('AND', 'OR', 'XOR')),
    condition_groups: mostly(fc.array(members({
      condition_operator: str(fc.constantFrom('AND', 'OR', 'NOR')),
      conditions: mostly(fc.array(condition, { maxLength: 3 }).map((items): JsonTree => ({ kind: 'array', items }))),
    }), { maxLength: 3 }).map((items): JsonTree => ({ kind: 'array', items }))),
    entities: mostly(fc.array(members({
      entity_type: str(fc.constantFrom('context', 'prompt', 'evaluation', 'dataset')),
      entity_id: str(fc.constantFrom('eval-1', 'missing', '__proto__')),
    }), { maxLength: 3 }).map((items): JsonTree => ({ kind: 'array', items }))),
  }),
  context: members({ name, content: mostly(str(fc.string({ maxLength: 40 }))), description: str(fc.string({ maxLength: 10 })), tags, meta_properties: meta, status }),
  prompt: members({
    name,
    prompt: str(fc.constantFrom('Hi {{name}}', '{{#each items}}{{this}}{{/each}}', '{{#if}}', '{{constructor.constructor "return 1"}}', '{{__proto__}}', '{{> partial}}', '')),
    version: str(fc.constantFrom('1.0.0', '2.0.0', '0.0.1', '1.0', 'v1', '99999999999999999999.0.0')),
    tags,
    meta_properties: meta,
    status,
  }),
  secret: members({
    key: str(fc.constantFrom('FUZZ_KEY', 'OPENAI_API_KEY', '__proto__', 'bad\nkey', '', 'k'.repeat(300))),
    value: mostly(str(fc.constantFrom('fuzz-value', '', '\uD800', 'v'.repeat(70_000)))),
    tags,
  }),
  apiKey: members({
    name,
    scopes: mostly(strings(fc.constantFrom('evaluate', 'secrets:read', 'admin', 'root', '__proto__'))),
    secret_tags: tags,
  }),
};

/** Path ids: known ones, and hostile text (malformed percent-encoding, traversal, prototype names, very long). */
export function pathId(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', '..', '%2e%2e%2f', '%00', '%ZZ', '%E0%A4%A', '%', 'x'.repeat(5000)) },
  );
}
