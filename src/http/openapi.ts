/**
 * The OpenAPI 3.1 description of every route, as a typed object. Schemas
 * describe what the code answers (src/service/views.ts and friends), not
 * what it could answer: response objects forbid unknown members, so the drift
 * test (test/openapi) fails when an answer gains or loses a member.
 */
import { MAX_DRAFTS } from '../audit/dry-run';
import { EXPLAIN_ANSWER_BYTES, MAX_NAMED_RULES } from '../audit/explain';
import { ERROR_CODES } from '../base/errors';
import { LIST_LIMIT_MAX } from '../service/listing';
import { CHANGE_OPS, PROTECTABLE_TYPES, RESOURCE_TYPES, SCOPES } from '../events';
import { REQUEST_STATES } from '../../projections/change-control';

/** The subset of JSON Schema 2020-12 this document uses. */
export interface SchemaObject {
  readonly $ref?: string;
  readonly type?: JsonType | readonly JsonType[];
  readonly description?: string;
  readonly format?: string;
  readonly enum?: readonly (string | null)[];
  readonly const?: string | boolean | null;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly items?: SchemaObject;
  readonly properties?: { readonly [name: string]: SchemaObject };
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | SchemaObject;
  readonly propertyNames?: SchemaObject;
  readonly oneOf?: readonly SchemaObject[];
  readonly anyOf?: readonly SchemaObject[];
}

type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export interface MediaType {
  readonly schema: SchemaObject;
}

export interface HeaderObject {
  readonly description: string;
  readonly schema: SchemaObject;
}

export interface ResponseObject {
  readonly description: string;
  readonly headers?: { readonly [name: string]: HeaderObject };
  readonly content?: { readonly [mediaType: string]: MediaType };
}

export interface ParameterObject {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly description?: string;
  readonly schema: SchemaObject;
}

export interface OperationObject {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** `[]` for routes that need no key; absent means the document default (bearer). */
  readonly security?: readonly { readonly [scheme: string]: readonly string[] }[];
  readonly parameters?: readonly ParameterObject[];
  readonly requestBody?: { readonly required: boolean; readonly content: { readonly [mediaType: string]: MediaType } };
  readonly responses: { readonly [status: string]: ResponseObject };
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type PathItem = { readonly [M in HttpMethod]?: OperationObject };

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly security: readonly { readonly [scheme: string]: readonly string[] }[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: { readonly [path: string]: PathItem };
  readonly components: {
    readonly securitySchemes: {
      readonly [name: string]:
        | { readonly type: 'http'; readonly scheme: 'bearer'; readonly description: string }
        | { readonly type: 'apiKey'; readonly in: 'header'; readonly name: string; readonly description: string };
    };
    readonly schemas: { readonly [name: string]: SchemaObject };
  };
}

// ---- schema helpers -------------------------------------------------------

const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
const str: SchemaObject = { type: 'string' };
const strings: SchemaObject = { type: 'array', items: str };
const nullable = (schema: SchemaObject): SchemaObject => ({ anyOf: [schema, { type: 'null' }] });

/** A closed object: every listed member present (unless `optional`), nothing else. */
function record(properties: { [name: string]: SchemaObject }, optional: readonly string[] = []): SchemaObject {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}

/** A public request body: unknown members are ignored by the service (contract §1), so they are allowed. */
function input(properties: { [name: string]: SchemaObject }, required: readonly string[] = []): SchemaObject {
  return { type: 'object', properties, required, additionalProperties: true };
}

/** An admin write body: an unknown (say, misspelt) member is a 400 naming it, never ignored. */
function adminInput(properties: { [name: string]: SchemaObject }, required: readonly string[] = []): SchemaObject {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** A change of a change request as the API answers it. */
const changeMembers: { [name: string]: SchemaObject } = {
  op: { type: 'string', enum: CHANGE_OPS },
  resource: ref('ResourceRef'),
  base_revision: ref('Position'),
  body: { type: 'object' },
};

/** A change request as every answer has it; GET of one adds each change's `before` (ChangeRequestRead). */
const changeRequestMembers: { [name: string]: SchemaObject } = {
  id: str,
  title: str,
  description: str,
  state: { type: 'string', enum: REQUEST_STATES },
  author: ref('Actor'),
  created_at: ref('Timestamp'),
  updated_at: ref('Timestamp'),
  revision: ref('Position'),
  changes: { type: 'array', items: ref('Change') },
  approvals: { type: 'array', items: record({ by: ref('Actor'), at: ref('Timestamp'), revision: ref('Position'), override: str }, ['override']) },
  approvals_required: { type: 'integer', minimum: 1 },
  comments: { type: 'array', items: record({ by: ref('Actor'), at: ref('Timestamp'), text: str }) },
  applying: { type: 'boolean', description: 'EventStoreDB: the plan is written and not yet finished (the next apply or start finishes it)' },
  results: nullable({
    type: 'array',
    items: record({ op: { type: 'string', enum: CHANGE_OPS }, resource: ref('ResourceRef'), before_revision: ref('Position'), revision: ref('Position') }, ['before_revision', 'revision']),
  }),
  closed: nullable(record({ by: ref('Actor'), at: ref('Timestamp'), reason: str, resource: ref('ResourceRef') }, ['resource'])),
};

const json = (schema: SchemaObject) => ({ 'application/json': { schema } });
const answer = (description: string, schema: SchemaObject): ResponseObject => ({ description, content: json(schema) });
const ETAG: HeaderObject = { description: 'the resource\'s revision as a strong entity tag, `"<revision>"`; If-Match takes it back', schema: { type: 'string', pattern: '^"(0|[1-9][0-9]*)"$' } };
/** A single admin resource in an answer, with its revision as the ETag. */
const versioned = (description: string, schema: SchemaObject): ResponseObject => ({ description, headers: { ETag: ETAG }, content: json(schema) });
const body = (schema: SchemaObject, required = true) => ({ required, content: json(schema) });

const ERROR_MEANING = {
  400: 'The request is malformed or breaks a limit, or (admin routes) has a member or query parameter the route does not take; `err` names it',
  401: 'No API key, or the key is unknown or revoked',
  403: 'The key lacks the scope, or the browser Origin is not allowed',
  404: 'No such resource (or it is deleted)',
  409: 'The If-Match revision is stale, or the write conflicts (duplicate key, version not greater, the last admin key), or the hash chain breaks (no checkpoint is signed), or a decision record is a stand-in with no request to replay, or no signed checkpoint covers a decision\'s evidence yet, or (code protected) the resource is protected, or (code stale) a change request\'s resource moved',
  413: 'The request body is larger than RULEVAULT_MAX_BODY_BYTES (an import: RULEVAULT_IMPORT_MAX_BYTES, or more items than RULEVAULT_IMPORT_MAX_ITEMS)',
  503: 'The read models are still catching up with the log',
} as const;
type ErrorStatus = keyof typeof ERROR_MEANING;

function errors(...statuses: ErrorStatus[]): { [status: string]: ResponseObject } {
  return Object.fromEntries(statuses.map((status) => [String(status), answer(ERROR_MEANING[status], ref('Error'))]));
}

/** Every /api route authenticates, may be refused a browser origin, and waits for readiness. */
const ADMIN_READ_ERRORS = [401, 403, 503] as const;
const ADMIN_WRITE_ERRORS = [400, 401, 403, 413, 503] as const;

const idParameter = (what: string): ParameterObject => ({ name: 'id', in: 'path', required: true, description: `the ${what} id`, schema: str });
const ifMatch: ParameterObject = {
  name: 'If-Match',
  in: 'header',
  description: 'the revision the change is based on: a bare number, the ETag (`"3"`), a comma-separated list of them (any one current), ' +
    'or `*` (any revision; the resource must exist, else 404); 409 when the resource moved on',
  schema: { type: 'string', pattern: '^\\s*(\\*|((W/)?"?(0|[1-9][0-9]{0,18})"?\\s*)(,\\s*(W/)?"?(0|[1-9][0-9]{0,18})"?\\s*)*)\\s*$' },
};

const breakGlass: ParameterObject = {
  name: 'RuleVault-Break-Glass',
  in: 'header',
  description: 'the reason for a direct write to a protected resource (else 409 protected); needs the break-glass scope, and is recorded as a BreakGlassUsed event',
  schema: { type: 'string', minLength: 1, maxLength: 1024 },
};

// ---- component schemas ------------------------------------------------------

const STATUS: SchemaObject = { type: 'string', enum: ['ACTIVE', 'INACTIVE'] };
const LOGICAL: SchemaObject = { type: 'string', enum: ['AND', 'OR'] };
const ENTITY_TYPE: SchemaObject = { type: 'string', enum: ['context', 'prompt', 'evaluation'] };
const DATA_TYPE: SchemaObject = { type: 'string', enum: ['string', 'number', 'boolean'] };
const OPERATOR: SchemaObject = {
  type: 'string',
  enum: ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'ends_with', 'regex', 'in', 'not_in', 'gt', 'gte', 'lt', 'lte', 'between'],
};
const SCOPE: SchemaObject = { type: 'string', enum: SCOPES };
const META: SchemaObject = { type: 'object', description: 'any JSON object; a `__proto__` key stays plain data' };
const VERSION: SchemaObject = { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' };
const LABEL: SchemaObject = { type: 'string', pattern: '^[a-z][a-z0-9._-]{0,63}$' };
const MESSAGES: SchemaObject = { type: 'array', items: record({ role: str, content: str }) };
/** A prompt as written or rendered: a template, or a chat's messages. */
const PROMPT_TEXT: SchemaObject = { anyOf: [str, MESSAGES] };
const PROMPT_TYPE: SchemaObject = { type: 'string', enum: ['text', 'chat'] };
const CONFIG: SchemaObject = { type: ['object', 'null'], description: 'the version\'s config (model, temperature, tools, ...) as given; null when none' };
const PROMPT_INPUT: SchemaObject = {
  anyOf: [
    { type: 'string', description: 'a Handlebars template' },
    { type: 'array', minItems: 1, maxItems: 100, items: adminInput({ role: { type: 'string', maxLength: 64 }, content: { type: 'string', description: 'a Handlebars template' } }, ['role', 'content']) },
  ],
  description: 'a template (a text prompt), or an ordered list of messages, each content a template (a chat prompt)',
};
const CONFIG_INPUT: SchemaObject = { type: 'object', description: 'any JSON object (model, temperature, tools, ...) of at most 16 KiB, stored and returned as given' };

const provenance = {
  created_by: ref('Actor'),
  created_at: ref('Timestamp'),
  updated_at: ref('Timestamp'),
  revision: ref('Position'),
  position: ref('Position'),
};

const contextMembers = {
  id: str,
  name: str,
  description: str,
  content: str,
  tags: strings,
  meta_properties: META,
  status: STATUS,
  created_by: ref('Actor'),
  created_at: ref('Timestamp'),
  updated_at: ref('Timestamp'),
};

const eventMembers = {
  type: str,
  revision: ref('Position'),
  position: ref('Position'),
  actor: ref('Actor'),
  at: ref('Timestamp'),
  request_id: str,
  data: { type: 'object' },
  metadata: ref('EventMetadata'),
} satisfies { [name: string]: SchemaObject };

const WEIGHT: SchemaObject = { type: 'integer', minimum: 0, maximum: 2147483647, description: 'a whole number; a variant\'s share is its weight over the total (1 of 100000 is 0.001%)' };
const LINK_REASON: SchemaObject = {
  type: 'string',
  enum: ['TARGETING_MATCH', 'SPLIT', 'DEFAULT'],
  description: 'TARGETING_MATCH: a plain link of a matching rule; SPLIT: the variant a split chose by the bucketing value; DEFAULT: the split\'s choice for a request without the bucketing field (the first variant with weight in force)',
};
const BUCKET_BY: SchemaObject = { type: 'string', minLength: 1, maxLength: 256, description: 'the request field bucketed (as a condition names one); default `targetingKey`' };
const SCHEDULE_TIME: SchemaObject = { type: 'string', format: 'date-time', description: 'ISO 8601 with a zone; stored as UTC' };

/** A split as written (`output` false) or as a rule answers it (bucket_by always present). */
function splitSchema(output: boolean): SchemaObject {
  const variant = output
    ? record({ name: str, entity_id: str, weight: WEIGHT, version: VERSION, label: LABEL }, ['version', 'label'])
    : adminInput({
      name: { type: 'string', maxLength: 128 },
      entity_id: { type: 'string', description: 'a link of the rule of the split\'s type (a prompt: by id or name)' },
      weight: WEIGHT,
      version: { ...VERSION, description: 'a prompt variant only: the version rendered' },
      label: { ...LABEL, description: 'a prompt variant only: the label whose version is rendered; not with version' },
    }, ['name', 'entity_id', 'weight']);
  const scheduleMembers: { [name: string]: SchemaObject } = {
    start: SCHEDULE_TIME,
    end: { ...SCHEDULE_TIME, description: 'after start' },
    weights: { type: 'object', additionalProperties: WEIGHT, description: 'every variant\'s weight from the end on, by name' },
    steps: { type: 'integer', minimum: 1, maximum: 1000, description: 'equal steps from start to end; absent: linear' },
  };
  const members: { [name: string]: SchemaObject } = {
    entity_type: ENTITY_TYPE,
    bucket_by: BUCKET_BY,
    variants: { type: 'array', minItems: 1, maxItems: 100, items: variant },
    schedule: output ? record(scheduleMembers, ['steps']) : adminInput(scheduleMembers, ['start', 'end', 'weights']),
  };
  return output ? record(members, ['schedule']) : adminInput(members, ['entity_type', 'variants']);
}

const ruleInputMembers = {
  name: { type: 'string', maxLength: 256 },
  description: str,
  status: STATUS,
  group_operator: LOGICAL,
  condition_groups: {
    type: 'array',
    minItems: 1,
    maxItems: 100,
    items: adminInput({
      condition_operator: LOGICAL,
      conditions: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: adminInput({
          field: str,
          operator: OPERATOR,
          value: { type: ['string', 'number', 'boolean'], description: 'a number or boolean is stored as its JSON text' },
          data_type: DATA_TYPE,
        }, ['field', 'operator', 'value']),
      },
    }, ['conditions']),
  },
  entities: {
    type: 'array',
    description: 'a context or prompt named must exist; a PATCH checks only the links it adds and drops links to ones deleted since',
    items: adminInput({ entity_type: ENTITY_TYPE, entity_id: str }, ['entity_type', 'entity_id']),
  },
  key: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$', description: 'what its splits hash before the bucketing value (flagd\'s flag key); default the rule id; set at creation, never changed' },
  splits: {
    type: 'array',
    maxItems: 3,
    description: 'at most one per entity type; each variant names a link of the rule; `[]` (PATCH) takes every split away',
    items: splitSchema(false),
  },
} satisfies { [name: string]: SchemaObject };

const evaluateMembers = {
  entity_type: ENTITY_TYPE,
  fields: {
    type: 'object',
    description: 'at most RULEVAULT_MAX_FIELDS members; names and string values are length-limited; null is an absent field',
    additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
  },
  include_entity_data: { type: 'boolean' },
  entity_inputs: input({
    variables: { type: 'object' },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+$' },
    label: { ...LABEL, description: 'the version a label names (`latest`, `production`, a custom one); not with version' },
    shouldCompile: { type: 'boolean' },
    strict: { type: 'boolean', description: 'true: a render with variables missing is refused (compiled_prompt null, error naming them)' },
  }),
} satisfies { [name: string]: SchemaObject };

const evaluateAnswerMembers = {
  matchingRuleIds: strings,
  entities: {
    type: 'array',
    items: record({
      rule_id: str,
      entity_type: ENTITY_TYPE,
      entity_id: str,
      variant: { ...nullable(str), description: 'the split variant that chose this link; null for a plain link' },
      reason: LINK_REASON,
    }),
  },
  entity_data: {
    type: 'object',
    description: 'keyed `<entity_type>:<entity_id>`; `{}` for evaluations; null for a prompt version that does not exist',
    propertyNames: { pattern: '^(context|prompt):' },
    additionalProperties: { anyOf: [ref('ContextRecord'), ref('PromptRecord'), { type: 'null' }] },
  },
} satisfies { [name: string]: SchemaObject };

/** Entities as a decision record keeps them: records written before splits have no variant or reason. */
const RECORDED_ENTITIES: SchemaObject = {
  type: 'array',
  items: record((evaluateAnswerMembers.entities.items as { properties: { [name: string]: SchemaObject } }).properties, ['variant', 'reason']),
};

const explainField: SchemaObject = { type: 'string', description: 'explain only those of the rules asked about with a condition on this field' };
const explainRuleIds: SchemaObject = {
  type: 'array', maxItems: MAX_NAMED_RULES, items: str,
  description: 'rules to explain besides the matching ones, matched or not, ACTIVE or not; each must exist (400 otherwise)',
};
const omittedRuleIds: SchemaObject = {
  type: 'array', items: str,
  description: `rules asked about but left out to keep the explanations within ${EXPLAIN_ANSWER_BYTES} bytes, sorted; name them in rule_ids to have them explained`,
};
const integer: SchemaObject = { type: 'integer', minimum: 0 };

/** The stable machine-readable error codes (src/base/errors.ts ERROR_STATUS), one per status. */
const ERROR_CODE: SchemaObject = {
  type: 'string',
  enum: ERROR_CODES,
  description: 'bad_request 400, unauthorized 401, forbidden 403, not_found 404, conflict 409, protected 409 (the resource changes only through ' +
    'a change request), stale 409 (a change request\'s resource moved since it was drafted), payload_too_large 413, ' +
    'internal 500, unavailable 503 (not ready, or the vault cannot be opened); a code is never renamed',
};
const nextCursor: SchemaObject = {
  ...nullable(str),
  description: 'pass as `cursor` for the next page; null when this page is the last (always null without `limit`)',
};

// ---- list query parameters ----------------------------------------------------

const query = (name: string, description: string, schema: SchemaObject = str): ParameterObject => ({ name, in: 'query', description, schema });
const PAGE_PARAMETERS: readonly ParameterObject[] = [
  query('limit', `items per page, 1 to ${LIST_LIMIT_MAX}; absent: every remaining item (one page)`, { type: 'string', pattern: '^[0-9]+$' }),
  query('cursor', 'the `next_cursor` of the previous page, unchanged (opaque; a cursor of another list is a 400)'),
];
const STATUS_FILTER = query('status', '`active` or `inactive` (any letter case)');
const SEARCH = (where: string) => query('q', `a case-insensitive substring of the ${where}`);
const TAG_FILTER = query('tag', 'only those carrying this tag');
const LIST_PARAMETERS = {
  rules: [
    ...PAGE_PARAMETERS, STATUS_FILTER,
    query('entity_type', 'only rules linking an entity of this type (with entity_id: that entity)', ENTITY_TYPE),
    query('entity_id', 'only rules linking this entity id'),
    query('field', 'only rules with a condition on this field (with operator: one condition has both)'),
    query('operator', 'only rules with a condition using this operator', OPERATOR),
    SEARCH('name, description or id'),
  ],
  contexts: [...PAGE_PARAMETERS, STATUS_FILTER, TAG_FILTER, SEARCH('name, description or id')],
  prompts: [...PAGE_PARAMETERS, STATUS_FILTER, TAG_FILTER, SEARCH('name or id')],
  secrets: [...PAGE_PARAMETERS, TAG_FILTER, SEARCH('key or id')],
  apiKeys: [...PAGE_PARAMETERS, query('scope', 'only keys holding this scope', SCOPE), SEARCH('name or id')],
} as const;

const tagsInput: SchemaObject = { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 128 } };

/**
 * One rule's explanation (src/audit/explain.ts). `dryRun`: as dry-run answers
 * it, marked `draft` (a draft has no revision or position: null) and with
 * `decisive` on groups and conditions.
 */
function explanation(dryRun: boolean): SchemaObject {
  const decisive: { [name: string]: SchemaObject } = dryRun
    ? { decisive: { type: 'boolean', description: 'its result decided the verdict of the conditions (see docs/auditors.md#dry-run-evaluate)' } }
    : {};
  const position = dryRun ? nullable(ref('Position')) : ref('Position');
  return record({
    rule_id: str,
    name: str,
    status: STATUS,
    revision: position,
    position,
    matched: { type: 'boolean' },
    reason: { ...nullable(str), description: 'why it did not match, in one line; null when it matched' },
    group_operator: LOGICAL,
    ...(dryRun ? { draft: { type: 'boolean', description: 'a draft of the request, not a live rule' } } : {}),
    groups: {
      type: 'array',
      items: record({
        index: integer,
        condition_operator: LOGICAL,
        result: { type: 'boolean' },
        ...decisive,
        conditions: {
          type: 'array',
          items: record({
            index: integer,
            field: str,
            operator: OPERATOR,
            value: str,
            data_type: DATA_TYPE,
            input: { type: ['string', 'number', 'boolean', 'null'], description: 'the value the condition saw; null when absent' },
            result: { type: 'boolean' },
            reason: { type: 'string', enum: ['holds', 'field absent', 'not a number', 'not a boolean', 'comparison false', 'invalid condition'] },
            ...decisive,
          }),
        },
      }),
    },
    splits: { type: 'array', items: SPLIT_EXPLANATION, description: 'only for a rule with splits: how each chose' },
  }, ['splits']);
}

const SPLIT_EXPLANATION: SchemaObject = record({
  entity_type: ENTITY_TYPE,
  bucket_by: str,
  value: { ...nullable(str), description: 'the bucketing value as hashed (a number or boolean as its JSON text); null when the request lacks it' },
  key: { type: 'string', description: 'the rule key hashed before the value' },
  hash: { ...nullable(integer), description: 'murmur3 x86 32-bit, seed 0, of the UTF-8 bytes of key then value, unsigned' },
  bucket: { ...integer, description: 'the value\'s bucket: (hash * total) >> 32; inside a rollout window the hash itself' },
  total: { ...integer, description: 'the total weight in force, or 2^32 inside a rollout window (the ranges are then on the hash)' },
  ranges: { type: 'array', items: record({ variant: str, entity_id: str, from: integer, to: integer }), description: 'each variant\'s buckets, [from, to)' },
  variant: str,
  reason: { type: 'string', enum: ['SPLIT', 'DEFAULT'] },
  progress: { type: 'number', minimum: 0, maximum: 1, description: 'with a schedule: how far into its window the request\'s time is' },
}, ['progress']);

const contextInputMembers = {
  name: { type: 'string', maxLength: 256 }, content: str, description: str, tags: tagsInput, meta_properties: META, status: STATUS,
} as const satisfies { [name: string]: SchemaObject };
const promptInputMembers = {
  name: { type: 'string', maxLength: 256, description: 'unique (exact, case-sensitive); 409 when taken' },
  prompt: PROMPT_INPUT,
  version: VERSION,
  config: CONFIG_INPUT,
  tags: tagsInput,
  meta_properties: META,
  status: STATUS,
} as const satisfies { [name: string]: SchemaObject };
const IMPORT_ID: SchemaObject = { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' };

const schemas: { [name: string]: SchemaObject } = {
  Error: record({ err: str, code: ERROR_CODE }),
  Position: { type: 'string', pattern: '^(0|[1-9][0-9]*)$', description: 'a revision or log position, as a decimal string' },
  Timestamp: { type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z$' },
  Actor: { type: 'string', description: 'the API key id that made the change, or `env-admin`, `cli`, `system`' },
  EventMetadata: {
    type: 'object',
    properties: {
      actor: ref('Actor'), at: ref('Timestamp'), request_id: str, schema: { type: 'integer' },
      change_request: { type: 'string', description: 'on an event a change request\'s apply wrote: that request\'s id' },
    },
    required: ['actor', 'at', 'request_id'],
  },

  ResourceRef: {
    ...record({ type: { type: 'string', enum: RESOURCE_TYPES }, id: str, label: LABEL }, ['label']),
    description: 'a rule, context or prompt (a prompt also by name when given), or one label of a prompt (`prompt-label`, with `label`); ' +
      'a change may also name the test-case set, `{"type": "test-cases", "id": "default"}` (never protected: it is always under change control)',
  },
  ResourceRefInput: adminInput({ type: { type: 'string', enum: PROTECTABLE_TYPES }, id: str, label: LABEL }, ['type']),
  ChangeResourceInput: adminInput({ type: { type: 'string', enum: RESOURCE_TYPES }, id: str, label: LABEL }, ['type']),
  Change: record(changeMembers, ['base_revision', 'body']),
  ChangeInput: adminInput({
    op: { type: 'string', enum: CHANGE_OPS },
    resource: { ...ref('ChangeResourceInput'), description: 'required but for a set-test-cases, whose resource is the one set' },
    base_revision: { ...ref('Position'), description: 'the revision drafted against; absent: the resource\'s revision now (none for a create, protect, unprotect)' },
    body: { type: 'object', description: 'what the matching direct route takes: a create or update body, a version, `{version}` for a label move; ' +
      '`{cases}` for set-test-cases (NDJSON text, one case a line, or a JSON array of cases; empty: no cases)' },
  }, ['op']),
  ChangeRequestInput: adminInput({
    title: { type: 'string', maxLength: 256 },
    description: { type: 'string', maxLength: 16384 },
    changes: { type: 'array', minItems: 1, maxItems: 100, items: ref('ChangeInput') },
  }, ['title', 'changes']),
  ChangeRequestPatch: adminInput({
    title: { type: 'string', maxLength: 256 },
    description: { type: 'string', maxLength: 16384 },
    changes: { type: 'array', minItems: 1, maxItems: 100, items: ref('ChangeInput') },
  }),
  ChangeRequest: record(changeRequestMembers),
  ChangeWithBefore: record({
    ...changeMembers,
    before: nullable({
      anyOf: [ref('Rule'), ref('Context'), ref('Prompt')],
      description: 'the resource as GET of it answers, at the revision the change replaces: for an applied request the one its apply found, else its base_revision (the live record while it still is at it, else folded from its history); a prompt at the version the change\'s label names, else its newest. null for a create, a protect, an unprotect, and a resource whose stream is gone',
    }),
  }, ['base_revision', 'body']),
  ChangeRequestRead: record({ ...changeRequestMembers, changes: { type: 'array', items: ref('ChangeWithBefore') } }),
  ChangeRequestAsOf: record({ ...changeRequestMembers, as_of: record({ position: nullable(ref('Position')), at: nullable(str) }) }),
  ChangeRequestList: record({ change_requests: { type: 'array', items: ref('ChangeRequest') }, next_cursor: nextCursor }),
  ChangeRequestHistory: record({ events: { type: 'array', items: record(eventMembers) }, next_cursor: nextCursor }),
  Protection: record({ resource: ref('ResourceRef'), protected_by: ref('Actor'), protected_at: ref('Timestamp') }),
  ProtectionList: record({ protections: { type: 'array', items: ref('Protection') } }),
  ProtectionInput: adminInput({ resource: ref('ResourceRefInput') }, ['resource']),
  ReasonInput: adminInput({ reason: { type: 'string', maxLength: 16384 } }),
  CommentInput: adminInput({ text: { type: 'string', maxLength: 16384 } }, ['text']),
  ApprovalInput: adminInput({ override: { type: 'string', minLength: 1, maxLength: 16384, description: 'why the approval stands although test cases fail; recorded with the approval' } }),
  ImpactReport: record({
    window: record({ from: ref('Timestamp'), to: ref('Timestamp') }),
    max_decisions: { type: 'integer', minimum: 1 },
    truncated: { type: 'boolean', description: 'reading stopped at max_decisions: older records of the window were not replayed' },
    read: { type: 'integer', minimum: 0 },
    replayed: { type: 'integer', minimum: 0 },
    changed: { type: 'integer', minimum: 0 },
    unchanged: { type: 'integer', minimum: 0 },
    unreproducible: record({ count: { type: 'integer', minimum: 0 }, decisions: { type: 'array', items: record({ decision_id: str, masked_fields: strings }) } }),
    incomplete: record({ count: { type: 'integer', minimum: 0 }, decisions: { type: 'array', items: record({ decision_id: str, why: str }) } }),
    changes: {
      type: 'array',
      items: record({
        decision_id: str,
        at: ref('Timestamp'),
        rule_ids: record({ added: strings, removed: strings }),
        entities: record({ added: { type: 'array', items: evaluateAnswerMembers.entities.items }, removed: { type: 'array', items: evaluateAnswerMembers.entities.items } }),
        variants: { type: 'array', items: record({ rule_id: str, before: nullable(str), after: nullable(str) }) },
      }),
    },
    explain: { type: 'array', items: record({ decision_id: str, rules: { type: 'array', items: ref('RuleExplanation') }, omitted_rule_ids: omittedRuleIds }) },
    not_replayed: {
      type: 'array',
      items: record({ index: { type: 'integer', minimum: 0 }, op: { type: 'string', enum: CHANGE_OPS }, resource: { type: 'object' }, why: str }),
    },
    touched_rule_ids: strings,
  }),
  TestResults: record({
    source: { type: 'string', enum: ['request', 'current'], description: 'request: the cases its set-test-cases proposes; current: the node\'s set' },
    test_cases_revision: nullable(ref('Position')),
    passed: { type: 'integer', minimum: 0 },
    failed: { type: 'integer', minimum: 0 },
    cases: {
      type: 'array',
      items: record({
        name: str, line: { type: 'integer', minimum: 1 }, pass: { type: 'boolean' },
        diff: record({
          rules: record({ missing: strings, unexpected: strings }),
          entities: record({ missing: strings, unexpected: strings }),
          variants: { type: 'array', items: record({ rule_id: str, expected: nullable(str), actual: nullable(str) }) },
        }, ['rules', 'entities', 'variants']),
        error: str,
      }, ['diff', 'error']),
    },
  }),
  TestCaseSet: record({
    revision: nullable(ref('Position')),
    count: { type: 'integer', minimum: 0 },
    text: { type: 'string', description: 'NDJSON, one case a line (docs/decisions/0066-test-case-files.md); empty: no cases' },
    cases: { type: 'array', items: { type: 'object', description: '{name, line, entity_type, fields, expect}' } },
    set_by: nullable(ref('Actor')),
    set_at: nullable(ref('Timestamp')),
    change_request: { ...nullable(str), description: 'the applied change request that set it' },
  }),

  Health: record({ status: { const: 'ok' } }),
  Ready: record({
    status: { const: 'ready' },
    position: nullable(ref('Position')),
    erasure: {
      ...record({
        since: ref('Timestamp'),
        pending: { type: 'array', items: { enum: ['store', 'snapshot'] } },
        reason: str,
        attempts: integer,
      }),
      description: 'only while an erasure committed has later steps left (a checkpoint of the WAL, the snapshot\'s rewrite): retried until done',
    },
  }, ['erasure']),
  NotReady: record({ err: str, code: ERROR_CODE, position: nullable(ref('Position')) }),

  EvaluateRequest: input(evaluateMembers, ['entity_type', 'fields']),
  EntityLink: record({ entity_type: ENTITY_TYPE, entity_id: str }),
  EvaluateResponse: record(evaluateAnswerMembers, ['entity_data']),
  ContextRecord: record(contextMembers),
  PromptRecord: record({
    id: str,
    name: str,
    version: str,
    type: PROMPT_TYPE,
    prompt: PROMPT_TEXT,
    compiled_prompt: {
      anyOf: [str, MESSAGES, { type: 'null' }],
      description: 'the rendered template, or the chat with each content rendered (the raw one with shouldCompile false); null when rendering failed, passed a limit or was refused (strict), see error',
    },
    error: {
      type: 'string',
      description: 'present only when compiled_prompt is null: why, naming the limit passed (RULEVAULT_RENDER_MAX_STEPS, RULEVAULT_RENDER_MAX_BYTES, RULEVAULT_RESPONSE_MAX_RENDER_BYTES) or the variables missing (strict)',
    },
    variables: strings,
    missing_variables: strings,
    config: CONFIG,
    tags: strings,
    meta_properties: META,
    status: STATUS,
    created_by: ref('Actor'),
    created_at: ref('Timestamp'),
    updated_at: ref('Timestamp'),
  }, ['error']),

  GetSecretsRequest: input({ key: str, tags: strings }),
  GetCompiledRequest: input({
    name: str,
    id: str,
    promptId: { type: 'string', description: 'the same as id (OpenLIT\'s Python SDK sends this name)' },
    version: { type: 'string', description: 'MAJOR.MINOR.PATCH, or a label (production, ...); default the latest' },
    label: LABEL,
    variables: { type: 'object' },
    shouldCompile: { type: 'boolean', description: 'default false, as OpenLIT\'s' },
    compile: { type: 'boolean', description: 'older OpenLIT SDKs\' name of shouldCompile' },
    strict: { type: 'boolean', description: 'true: a render with variables missing is refused with err naming them' },
  }),
  GetCompiledAnswer: {
    oneOf: [
      record({
        err: { type: 'null' },
        res: record({
          promptId: str,
          versionId: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$', description: 'a name-based UUID of the prompt id and version' },
          name: str,
          version: VERSION,
          tags: strings,
          metaProperties: META,
          prompt: PROMPT_TEXT,
          compiledPrompt: PROMPT_TEXT,
          type: PROMPT_TYPE,
          config: CONFIG,
          variables: strings,
          missingVariables: strings,
        }),
      }),
      record({ err: str, code: ERROR_CODE, res: { type: 'null' } }),
    ],
  },
  GetSecretsAnswer: {
    oneOf: [
      record({ err: { type: 'null' }, res: { type: 'object', additionalProperties: str, description: 'secret key to plaintext value' } }),
      record({ err: str, code: ERROR_CODE, res: { type: 'null' } }),
    ],
  },

  RuleInput: adminInput(ruleInputMembers, ['name', 'condition_groups']),
  RulePatch: adminInput(ruleInputMembers),
  Rule: record({
    id: str,
    name: str,
    description: str,
    status: STATUS,
    group_operator: LOGICAL,
    condition_groups: {
      type: 'array',
      items: record({
        condition_operator: LOGICAL,
        conditions: { type: 'array', items: record({ field: str, operator: OPERATOR, value: str, data_type: DATA_TYPE }) },
      }),
    },
    entities: { type: 'array', items: ref('EntityLink') },
    key: str,
    splits: { type: 'array', items: splitSchema(true) },
    ...provenance,
  }),
  RuleList: record({ rules: { type: 'array', items: ref('Rule') }, next_cursor: nextCursor }),
  RuleHistory: record({
    events: {
      type: 'array',
      items: record({
        ...eventMembers,
        changes: {
          type: 'object',
          description: 'the rule members this event changed',
          additionalProperties: { type: 'object', properties: { before: {}, after: {} }, required: ['before', 'after'] },
        },
      }),
    },
    next_cursor: nextCursor,
  }),

  ContextInput: adminInput(contextInputMembers, ['name', 'content']),
  ContextPatch: adminInput({
    name: { type: 'string', maxLength: 256 }, content: str, description: str, tags: tagsInput, meta_properties: META, status: STATUS,
  }),
  Context: record({ ...contextMembers, revision: ref('Position'), position: ref('Position') }),
  ContextList: record({ contexts: { type: 'array', items: ref('Context') }, next_cursor: nextCursor }),

  PromptInput: adminInput(promptInputMembers, ['name', 'prompt']),
  PromptVersionInput: adminInput({ prompt: PROMPT_INPUT, version: VERSION, config: CONFIG_INPUT }, ['prompt']),
  ImportItem: {
    description: 'One item: `kind`, an optional `id` (a UUID; default a new one), and the create body of its route. ' +
      'A rule\'s context or prompt link names an existing id, or the id or name of an item earlier in the import ' +
      '(a prompt link also an existing prompt\'s name).',
    oneOf: [
      adminInput({ kind: { const: 'rule' }, id: IMPORT_ID, ...ruleInputMembers }, ['kind', 'name', 'condition_groups']),
      adminInput({ kind: { const: 'context' }, id: IMPORT_ID, ...contextInputMembers }, ['kind', 'name', 'content']),
      adminInput({ kind: { const: 'prompt' }, id: IMPORT_ID, ...promptInputMembers }, ['kind', 'name', 'prompt']),
    ],
  },
  ImportResult: record({
    imported: { type: 'integer', minimum: 1 },
    rules: { type: 'integer', minimum: 0 },
    contexts: { type: 'integer', minimum: 0 },
    prompts: { type: 'integer', minimum: 0 },
    position: ref('Position'),
    items: { type: 'array', items: record({ kind: { type: 'string', enum: ['rule', 'context', 'prompt'] }, id: str, name: str }) },
  }),
  PromptLabelMove: adminInput({ version: VERSION }, ['version']),
  PromptHistory: record({ events: { type: 'array', items: record(eventMembers) }, next_cursor: nextCursor }),
  PromptPatch: adminInput({ name: { type: 'string', maxLength: 256 }, tags: tagsInput, meta_properties: META, status: STATUS }),
  Prompt: record({
    id: str,
    name: str,
    version: str,
    type: PROMPT_TYPE,
    prompt: PROMPT_TEXT,
    variables: strings,
    config: CONFIG,
    labels: { type: 'object', additionalProperties: VERSION, description: 'each label (latest included) to the version it names' },
    tags: strings,
    meta_properties: META,
    status: STATUS,
    versions: { type: 'array', items: record({ version: str, labels: strings, created_by: ref('Actor'), created_at: ref('Timestamp') }) },
    ...provenance,
  }),
  PromptList: record({ prompts: { type: 'array', items: ref('Prompt') }, next_cursor: nextCursor }),

  SecretInput: adminInput({
    key: { type: 'string', maxLength: 256 },
    value: { type: 'string', maxLength: 65536 },
    tags: tagsInput,
  }, ['key', 'value']),
  SecretPatch: adminInput({ key: { type: 'string', maxLength: 256 }, value: { type: 'string', maxLength: 65536 }, tags: tagsInput }),
  Secret: record({ id: str, key: str, tags: strings, version: { type: 'integer', minimum: 1 }, ...provenance }),
  SecretList: record({ secrets: { type: 'array', items: ref('Secret') }, next_cursor: nextCursor }),

  ApiKeyInput: adminInput({
    name: { type: 'string', maxLength: 256 },
    scopes: { type: 'array', minItems: 1, items: SCOPE },
    secret_tags: tagsInput,
  }, ['name', 'scopes']),
  ApiKey: record({ id: str, name: str, scopes: { type: 'array', items: SCOPE }, secret_tags: strings, created_by: ref('Actor'), created_at: ref('Timestamp') }),
  ApiKeyCreated: record({
    id: str,
    name: str,
    scopes: { type: 'array', items: SCOPE },
    secret_tags: strings,
    created_by: ref('Actor'),
    created_at: ref('Timestamp'),
    key: { type: 'string', description: 'the API key itself, shown only in this answer' },
  }),
  Whoami: record({
    id: { type: 'string', description: 'the key id (`env-admin` for RULEVAULT_ADMIN_KEY): the actor of its writes' },
    name: str,
    scopes: { type: 'array', items: SCOPE },
    secret_tags: { ...strings, description: 'non-empty: the key reads only secrets carrying one of these tags' },
  }),
  ApiKeyList: record({ api_keys: { type: 'array', items: ref('ApiKey') }, next_cursor: nextCursor }),

  AuditPage: record({
    events: { type: 'array', items: record({ stream: str, ...eventMembers }) },
    next: { ...nullable(ref('Position')), description: 'pass as `after` for the next page; null at the end' },
    scan_limit_reached: { const: true, description: 'present when a filtered scan stopped early: continue from `next`' },
    size_limit_reached: { const: true, description: 'present when the page\'s event data reached ~8 MB before `limit` events: continue from `next`' },
    next_cursor: { ...nullable(str), description: 'the opaque form of `next`, taken by `cursor`, as on every list' },
  }, ['scan_limit_reached', 'size_limit_reached']),
  Digest: record({
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the canonical read models (positions excluded)' },
    position: nullable(ref('Position')),
    counts: record({
      rules: integer, contexts: integer, prompts: integer, prompt_versions: integer, secrets: integer, api_keys: integer,
    }),
  }),
  DecisionRecord: record({
    decision_id: { type: 'string', description: 'the RuleVault-Decision-Id the answer carried (a UUID version 7: sorts by time)' },
    at: { type: 'string', description: 'ISO 8601 time the answer was computed' },
    key_id: { type: 'string', description: 'the API key that called' },
    position: { ...nullable(ref('Position')), description: 'the log position the answer was computed at (null: the empty log)' },
    request: record({
      entity_type: ENTITY_TYPE,
      fields: { type: 'object', description: 'as sent; a masked value is "[masked]" (RULEVAULT_DECISION_LOG_MASK_FIELDS)' },
      include_entity_data: { type: 'boolean' },
      entity_inputs: { type: 'object', description: 'variables (masked like fields, at any depth), shouldCompile, strict, and version or label when given' },
    }),
    masked: { ...strings, description: 'paths of the masked values (`fields.<name>`, `entity_inputs.variables.<path>`, as `entity_inputs.variables.customer.ssn`)' },
    answer: ref('DecisionAnswer'),
  }),
  DecisionStandIn: record({
    decision_id: str,
    at: str,
    key_id: str,
    position: nullable(ref('Position')),
    incomplete: { type: 'string', description: 'why the record could not be written whole (it could not be serialized): it keeps no request, masked paths or entity_data digest, and cannot be replayed' },
    answer: record({ matchingRuleIds: strings, entities: RECORDED_ENTITIES }),
  }),
  DecisionAnswer: record({
    matchingRuleIds: strings,
    entities: RECORDED_ENTITIES,
    entity_data_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the JSON of entity_data, when the request asked for it and nothing was masked (a digest of what a masked value rendered into would let a guess of it be checked)' },
  }, ['entity_data_sha256']),
  EvidenceFile: record({
    format: { const: 'rulevault-evidence' },
    version: { type: 'integer', minimum: 1, maximum: 1 },
    created_at: ref('Timestamp'),
    decision: record({ record: ref('DecisionRecord'), sha256: str }),
    limits: { type: 'object', description: 'the exporting node\'s limits, which the offline replay reads the request under' },
    events: { type: 'array', items: { type: 'object' }, description: 'the events of the rules, entities and change requests the decision used, as `audit export` writes them' },
    chain: record({ first_seq: { type: 'integer', minimum: 0 }, prev: str, links: { type: 'array', items: { type: 'object' } } }),
    checkpoint: { type: 'object', description: 'the signed checkpoint event the chain ends at' },
    endorsements: { type: 'array', items: { type: 'object' }, description: 'earlier checkpoints that endorse a next key' },
  }),
  DecisionReplay: record({
    decision_id: str,
    recorded_position: nullable(ref('Position')),
    replayed_at: record({ position: nullable(ref('Position')), at: nullable(str) }),
    same: { type: 'boolean', description: 'true when the replayed answer equals the recorded one in every part compared' },
    masked: { ...strings, description: 'masked values, left out of the replay' },
    unreproducible: {
      ...record({ matchingRuleIds: strings, entities: strings, entity_data: strings }, ['matchingRuleIds', 'entities', 'entity_data']),
      description: 'the parts of the answer the replay cannot reproduce, each with the masked values it depends on: matchingRuleIds and entities when a rule at the replayed point reads a masked field, entity_data whenever a value was masked (its digest is not kept, so it is not compared)',
    },
    recorded: ref('DecisionAnswer'),
    replayed: ref('DecisionAnswer'),
    differences: record({
      matchingRuleIds: ref('SetDifference'),
      entities: { ...ref('SetDifference'), description: 'entities as `<rule_id> <entity_type>:<entity_id>`' },
      entity_data: record({ recorded_sha256: nullable(str), replayed_sha256: nullable(str) }),
    }, ['matchingRuleIds', 'entities', 'entity_data']),
  }),
  SetDifference: record({ only_recorded: strings, only_replayed: strings }),
  SecretReadPage: record({
    reads: {
      type: 'array',
      items: record({
        read_id: { type: 'string', description: 'a UUID version 7' },
        at: str,
        key_id: { ...nullable(str), description: 'the API key that called; null when the call named none that exists' },
        request_id: { ...nullable(str), description: 'the X-Request-Id of the read' },
        outcome: { type: 'string', enum: ['ok', 'error'], description: 'ok: answered (`err` null); error: answered `err` with `code`' },
        code: { ...nullable(ERROR_CODE), description: 'the error code answered; null when the outcome is ok' },
        secrets: { type: 'array', items: record({ id: str, key: str, version: integer, value_version: integer }), description: 'the secrets returned; never a value' },
      }),
    },
    next_cursor: nextCursor,
  }),
  ChainPoint: record({
    position: ref('Position'),
    seq: { ...integer, description: 'the event\'s place in the hash chain (1 for the first event)' },
    hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'the chain\'s hash there' },
  }),
  ChainStatus: record({
    running: { type: 'boolean', description: 'a verification run is going on: poll this document until false' },
    run: {
      ...nullable(record({
        id: { ...integer, description: 'counts runs since the service started' },
        mode: { enum: ['full', 'incremental'], description: '`incremental` reads only the events appended since the last run; `full` reads the whole log again' },
        started_at: str,
        finished_at: nullable(str),
        checked_events: { ...integer, description: 'events this run read (set when it finished)' },
        error: { ...nullable(str), description: 'why the run could not finish (the store failed)' },
      })),
      description: 'the run going on, or the last one; null before the first',
    },
    report: {
      ...nullable(record({
        verified: { type: 'boolean' },
        events: { ...integer, description: 'events checked, from the first event of the log' },
        verified_through: { ...nullable(ref('ChainPoint')), description: 'the last event up to which everything checked' },
        signed_through: { ...nullable(ref('ChainPoint')), description: 'the last chain point a valid checkpoint signed' },
        checkpoints: integer,
        erased_events: integer,
        keys_given: { type: 'boolean', description: 'true when checkpoints were checked against a trusted key (the first checkpoint\'s key and the keys it endorsed)' },
        break: {
          ...nullable(record({
            position: ref('Position'),
            kind: { enum: ['modified', 'removed', 'inserted', 'reordered', 'unlinked', 'signature'] },
            message: str,
          })),
          description: 'the first position where the log was changed, and how; null when verified',
        },
      })),
      description: 'the last finished run\'s report over the whole log (as `rulevault audit verify --json` prints it); null before the first run',
    },
    events_read: { ...integer, description: 'events read by every run since the service started' },
    signing_key: record({ key_id: str, public_key: { type: 'string', description: 'base64 of the Ed25519 public key' }, algorithm: { const: 'ed25519' } }),
    keys: {
      type: 'array',
      description: 'the keys that signed checkpoints, first one first; a rotation\'s key names the key that endorsed it',
      items: record({ key_id: str, public_key: str, endorsed_by: nullable(str), checkpoints: integer, current: { type: 'boolean', description: 'the service signs with this key now' } }),
    },
    checkpoints: {
      type: 'array',
      description: 'the checkpoints the last run checked, newest first (at most 20)',
      items: record({
        position: ref('Position'), at: nullable(str), seq: integer, hash: str, public_key: str, key_id: str, signature: str, next_public_key: str,
      }, ['next_public_key']),
    },
  }),
  ChainVerifyRequest: adminInput({ full: { type: 'boolean', description: 'true: verify the whole log again from its first event (default: only what was appended since the last run)' } }),
  SignedCheckpoint: record({
    position: { ...ref('Position'), description: 'the checkpoint event\'s own position' },
    seq: { ...integer, description: 'the chain sequence it signs' },
    hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'the chain\'s hash at `seq`' },
    key_id: str,
    public_key: str,
    signature: { type: 'string', description: 'base64 Ed25519 signature of `rulevault-chain-checkpoint-v1\\n<seq>\\n<hash>\\n`' },
  }),
  AuditEvaluateRequest: input({
    ...evaluateMembers,
    as_of: {
      type: ['string', 'integer'],
      description: 'a log position (a whole number or its decimal string) or an ISO 8601 time with a zone',
    },
    explain: { type: 'boolean' },
    field: explainField,
    rule_ids: explainRuleIds,
  }, ['entity_type', 'fields', 'as_of']),
  AuditEvaluateResponse: record({
    ...evaluateAnswerMembers,
    as_of: record({ position: nullable(ref('Position')), at: nullable(ref('Timestamp')) }),
    explain: { type: 'array', items: ref('RuleExplanation') },
    explain_omitted_rule_ids: omittedRuleIds,
  }, ['entity_data', 'explain', 'explain_omitted_rule_ids']),
  ExplainRequest: input({ ...evaluateMembers, field: explainField, rule_ids: explainRuleIds }, ['entity_type', 'fields']),
  ExplainResponse: record({
    position: nullable(ref('Position')),
    rules: { type: 'array', items: ref('RuleExplanation') },
    omitted_rule_ids: omittedRuleIds,
  }),
  RuleExplanation: explanation(false),
  DryRunRequest: input({
    ...evaluateMembers,
    rules: {
      type: 'array',
      maxItems: MAX_DRAFTS,
      description: 'draft rules: each a rule create body (validated as one; a 400 names `rules[<index>]` and the member), ' +
        'with an optional `id` naming a live rule to put the draft in its place; without `id` the draft answers as `draft-<index>`',
      items: adminInput({ id: str, ...ruleInputMembers }, ['name', 'condition_groups']),
    },
  }, ['entity_type', 'fields']),
  DryRunResponse: record({
    ...evaluateAnswerMembers,
    position: { ...nullable(ref('Position')), description: 'the live log position the drafts were evaluated beside' },
    drafts: {
      type: 'array',
      description: 'the drafts in request order, with the rule id each answered as',
      items: record({ index: integer, rule_id: str, replaces: { type: 'boolean', description: 'true when it took a live rule\'s place' } }),
    },
    explain: { type: 'array', items: ref('DryRunExplanation') },
    explain_omitted_rule_ids: omittedRuleIds,
  }, ['entity_data']),
  DryRunExplanation: explanation(true),
};

// ---- paths --------------------------------------------------------------------

/** A step of a change request, POST /api/change-requests/{id}/<step>. */
function changeRequestStep(step: string, operationId: string, summary: string, input: string | undefined, status: 200 | 201, ifMatchRequired = false): { [path: string]: PathItem } {
  return {
    [`/api/change-requests/{id}/${step}`]: {
      post: {
        operationId,
        summary,
        tags: ['change-requests'],
        parameters: [idParameter('change request'), ...(ifMatchRequired ? [{ ...ifMatch, required: true }] : [])],
        ...(input === undefined ? {} : { requestBody: body(ref(input), false) }),
        responses: { [status]: versioned('the request', ref('ChangeRequest')), ...errors(...ADMIN_WRITE_ERRORS, 404, 409) },
      },
    },
  };
}

/** The CRUD paths of one admin resource family, which all follow one pattern. */
function resource(options: {
  base: string;
  what: string;
  tag: string;
  name: string;
  plural: string;
  list: string;
  /** The list's paging and filter parameters. */
  listParameters: readonly ParameterObject[];
  /** What a delete does beyond removing the resource (the operation's description). */
  deleteNote?: string;
  /** False for secrets: protection (and break-glass) covers rules, contexts and prompts. */
  protectable?: boolean;
}): { [path: string]: PathItem } {
  const { base, what, tag, name, plural, list, listParameters, deleteNote } = options;
  const writeParameters = [idParameter(what), ifMatch, ...(options.protectable === false ? [] : [breakGlass])];
  return {
    [base]: {
      post: {
        operationId: `create${name}`,
        summary: `Create a ${what}`,
        tags: [tag],
        requestBody: body(ref(`${name}Input`)),
        responses: { 201: versioned(`the ${what}`, ref(name)), ...errors(...ADMIN_WRITE_ERRORS) },
      },
      get: {
        operationId: `list${plural}`,
        summary: `List the ${what}s, by id: filtered, and paged with limit and cursor`,
        tags: [tag],
        parameters: listParameters,
        responses: { 200: answer(`the live ${what}s that pass the filters, by id (one page with limit)`, ref(list)), ...errors(400, ...ADMIN_READ_ERRORS) },
      },
    },
    [`${base}/{id}`]: {
      get: {
        operationId: `get${name}`,
        summary: `Read a ${what}`,
        tags: [tag],
        parameters: [idParameter(what)],
        responses: { 200: versioned(`the ${what}`, ref(name)), ...errors(400, ...ADMIN_READ_ERRORS, 404) },
      },
      patch: {
        operationId: `update${name}`,
        summary: `Change a ${what}: any subset of the create members`,
        description: 'A PATCH that changes nothing (`{}`, or members set to their current values) writes no event and answers the current state, revision unchanged.',
        tags: [tag],
        parameters: writeParameters,
        requestBody: body(ref(`${name}Patch`)),
        responses: { 200: versioned(`the ${what}`, ref(name)), ...errors(...ADMIN_WRITE_ERRORS, 404, 409) },
      },
      delete: {
        operationId: `delete${name}`,
        summary: `Delete a ${what}`,
        ...(deleteNote === undefined ? {} : { description: deleteNote }),
        tags: [tag],
        parameters: writeParameters,
        responses: { 204: { description: 'deleted' }, ...errors(400, ...ADMIN_READ_ERRORS, 404, 409) },
      },
    },
  };
}

const NO_KEY: readonly { [scheme: string]: readonly string[] }[] = [];

const rules = resource({ base: '/api/rule-engine/rules', what: 'rule', tag: 'rules', name: 'Rule', plural: 'Rules', list: 'RuleList', listParameters: LIST_PARAMETERS.rules });
const LINKED_DELETE = 'Rules (ACTIVE or INACTIVE) that link to it are unlinked first, with a RuleUpdated event each; then it is deleted.';
const contexts = resource({ base: '/api/contexts', what: 'context', tag: 'contexts', name: 'Context', plural: 'Contexts', list: 'ContextList', listParameters: LIST_PARAMETERS.contexts, deleteNote: LINKED_DELETE });
const prompts = resource({ base: '/api/prompts', what: 'prompt', tag: 'prompts', name: 'Prompt', plural: 'Prompts', list: 'PromptList', listParameters: LIST_PARAMETERS.prompts, deleteNote: LINKED_DELETE });
const SECRET_DELETE = 'Erases the secret: answered 204 once the erasure is committed (later steps that cannot run at once are finished in the background; GET /readyz reports them). ' +
  'A DELETE of a secret the log has erased already answers 204 too, whatever If-Match says; 404 is for an id that was never a secret.';
const secrets = resource({ base: '/api/vault/secrets', what: 'secret', tag: 'vault', name: 'Secret', plural: 'Secrets', list: 'SecretList', listParameters: LIST_PARAMETERS.secrets, deleteNote: SECRET_DELETE, protectable: false });
const promptById = prompts['/api/prompts/{id}']!;
const promptRef: ParameterObject = { name: 'id', in: 'path', required: true, description: 'the prompt id, or its name', schema: str };
const labelParameter: ParameterObject = { name: 'label', in: 'path', required: true, description: 'production or a custom label', schema: LABEL };
const secretById = secrets['/api/vault/secrets/{id}']!;

// ---- OFREP (docs/openfeature.md) -----------------------------------------
// Inline, not components: OFREP's shapes are the protocol's, and the client's generated record types (scripts/client-types.ts) are RuleVault's.

const OFREP_SECURITY: OperationObject['security'] = [{ bearer: [] }, { apiKey: [] }];
const FLAG_METADATA = record({
  rule_id: str,
  revision: { type: 'integer', minimum: 0, description: 'the rule\'s revision' },
  position: { type: 'string', pattern: '^[0-9]*$', description: 'the log position that answered (empty for the empty log)' },
});
const FLAG_SUCCESS: SchemaObject = {
  ...record({
    key: str,
    value: { type: ['boolean', 'string', 'object'], description: 'absent: the caller\'s code default (OFREP ADR 0006)' },
    reason: { type: 'string', enum: ['TARGETING_MATCH', 'SPLIT', 'DEFAULT', 'DISABLED'] },
    variant: str,
    metadata: FLAG_METADATA,
  }, ['value', 'variant']),
  description: 'a flag\'s answer (ADR 0057): boolean `on`/`off`, a split\'s variant name, or a linked record',
};
const flagFailure = (codes: readonly string[], keyed = true): SchemaObject => record(
  { ...(keyed ? { key: str } : {}), errorCode: { type: 'string', enum: codes }, errorDetails: str },
);
const OFREP_REQUEST = input({
  context: input({ targetingKey: str }),
});
const OFREP_REQUEST_ERRORS = ['PARSE_ERROR', 'INVALID_CONTEXT', 'TARGETING_KEY_MISSING'];
/** 401, 403, 413 and 503 as OFREP's GENERAL (their meaning: ERROR_MEANING). */
function ofrepErrors(keyed: boolean): { [status: string]: ResponseObject } {
  return Object.fromEntries(([401, 403, 413, 503] as const).map((status) => [String(status), answer(ERROR_MEANING[status], flagFailure(['GENERAL'], keyed))]));
}
const DECISION_IDS: HeaderObject = {
  description: 'the decision ids of the evaluates the answer ran, comma-separated, one per entity type its flags asked for (docs/openfeature.md#decisions)',
  schema: { type: 'string', pattern: '^[0-9a-f-]{36}(, [0-9a-f-]{36})*$' },
};

const ofrep: { [path: string]: PathItem } = {
  '/ofrep/v1/evaluate/flags/{key}': {
    post: {
      operationId: 'ofrepEvaluateFlag',
      summary: 'OFREP: evaluate one flag, a rule with a key (scope evaluate; Bearer or X-API-Key)',
      description: 'The OpenFeature Remote Evaluation Protocol\'s single evaluation (docs/openfeature.md). The context\'s nested objects are dotted field names, ' +
        'null an absent field, an array INVALID_CONTEXT, `variables` the prompts\' variables. Failures are `{key, errorCode, errorDetails}`.',
      tags: ['openfeature'],
      security: OFREP_SECURITY,
      parameters: [{ name: 'key', in: 'path', required: true, description: 'the rule\'s key, or `<key>:<entity type>` for an object flag', schema: str }],
      requestBody: body(OFREP_REQUEST),
      responses: {
        200: {
          description: 'the flag\'s answer',
          headers: {
            'RuleVault-Decision-Id': {
              description: 'the decision id of the evaluate it ran (none for DISABLED, which evaluates nothing)',
              schema: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' },
            },
          },
          content: json(FLAG_SUCCESS),
        },
        400: answer('PARSE_ERROR (the body is not JSON `{"context": {...}}`), INVALID_CONTEXT (an array, a field past a limit, a name twice) or TARGETING_KEY_MISSING (a split flag without its bucketing field)',
          flagFailure(OFREP_REQUEST_ERRORS)),
        404: answer('FLAG_NOT_FOUND: no rule has the key, or it links no entity of the type', flagFailure(['FLAG_NOT_FOUND', 'GENERAL'])),
        ...ofrepErrors(true),
      },
    },
  },
  '/ofrep/v1/evaluate/flags': {
    post: {
      operationId: 'ofrepEvaluateFlags',
      summary: 'OFREP: evaluate every flag, in key order, with an ETag (scope evaluate; Bearer or X-API-Key)',
      description: 'The bulk evaluation. A flag that fails (TARGETING_KEY_MISSING) is an item of `flags`; a bad context fails the whole request. ' +
        '`If-None-Match` naming the answer\'s ETag is a 304 with no body (ADR 0058).',
      tags: ['openfeature'],
      security: OFREP_SECURITY,
      parameters: [{ name: 'If-None-Match', in: 'header', required: false, description: 'an ETag of an earlier answer (or a list, or `*`)', schema: str }],
      requestBody: body(OFREP_REQUEST),
      responses: {
        200: {
          description: 'every flag\'s answer',
          headers: {
            ETag: { description: 'a strong entity tag of the answer\'s bytes', schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' } },
            'RuleVault-Decision-Id': DECISION_IDS,
          },
          content: json(record({
            flags: { type: 'array', items: { anyOf: [FLAG_SUCCESS, flagFailure(['TARGETING_KEY_MISSING'])] } },
            metadata: record({ position: { type: 'string', pattern: '^[0-9]*$', description: 'the log position that answered' } }),
          })),
        },
        304: { description: 'the answer is the one If-None-Match names: no body', headers: { ETag: { description: 'the same tag', schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' } } } },
        400: answer('PARSE_ERROR or INVALID_CONTEXT: the context cannot be read', flagFailure(OFREP_REQUEST_ERRORS, false)),
        ...ofrepErrors(false),
      },
    },
  },
};

const paths: { [path: string]: PathItem } = {
  '/healthz': {
    get: {
      operationId: 'health',
      summary: 'Liveness: 200 while the process serves',
      tags: ['probes'],
      security: NO_KEY,
      responses: { 200: answer('serving', ref('Health')) },
    },
  },
  '/readyz': {
    get: {
      operationId: 'ready',
      summary: 'Readiness: 200 once the read models caught up with the log',
      tags: ['probes'],
      security: NO_KEY,
      responses: { 200: answer('ready', ref('Ready')), 503: answer('still replaying the log', ref('NotReady')) },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (an admin key, or RULEVAULT_METRICS_TOKEN)',
      tags: ['probes'],
      responses: {
        200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: str } } },
        ...errors(401, 403),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'This document',
      tags: ['docs'],
      security: NO_KEY,
      responses: { 200: answer('the OpenAPI 3.1 document', {
        type: 'object',
        properties: { openapi: { const: '3.1.0' }, paths: { type: 'object' } },
        required: ['openapi', 'paths'],
      }) },
    },
  },
  '/docs': {
    get: {
      operationId: 'docs',
      summary: 'Browsable documentation (Swagger UI, served locally)',
      tags: ['docs'],
      security: NO_KEY,
      responses: {
        200: { description: 'the Swagger UI page', content: { 'text/html': { schema: str } } },
        301: { description: 'redirect from /docs to /docs/, so the page finds its assets' },
      },
    },
  },
  '/console': {
    get: {
      operationId: 'console',
      summary: 'The web console (signs in with an API key; served locally under a strict Content-Security-Policy)',
      tags: ['docs'],
      security: NO_KEY,
      responses: {
        200: { description: 'the console page', content: { 'text/html': { schema: str } } },
        301: { description: 'redirect from /console to /console/, so the page finds its assets' },
        404: answer('the console is not built (npm run build builds it)', ref('Error')),
      },
    },
  },

  '/api/rule-engine/evaluate': {
    post: {
      operationId: 'evaluate',
      summary: 'The active rules that match the fields, and the entities they link to (scope evaluate)',
      description: 'The body is read as JSON whatever the Content-Type says.',
      tags: ['public'],
      requestBody: body(ref('EvaluateRequest')),
      responses: {
        200: {
          description: 'the matches',
          headers: {
            'RuleVault-Decision-Id': {
              description: 'the answer\'s decision_id (a UUID version 7); with decision logging on and the answer sampled, GET /api/audit/decisions/{id} shows its record. Without an X-Request-Id from the caller it is the request id too, and the answer carries no X-Request-Id',
              schema: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' },
            },
          },
          content: json(ref('EvaluateResponse')),
        },
        ...errors(400, 401, 403, 413, 503),
      },
    },
  },
  '/api/vault/get-secrets': {
    post: {
      operationId: 'getSecrets',
      summary: 'Secret values by key and/or tags (scope secrets:read)',
      description: 'Always 200 past the CORS check, failures included (a missing key, a bad body, not ready): the caller checks `err`.',
      tags: ['public'],
      requestBody: body(ref('GetSecretsRequest'), false),
      responses: {
        200: answer('`{err: null, res}` or `{err, res: null}`', ref('GetSecretsAnswer')),
        403: answer('the browser Origin is not allowed (the request is not executed)', ref('Error')),
      },
    },
  },
  '/api/rule-engine/stream': {
    get: {
      operationId: 'changeStream',
      summary: 'Server-Sent Events: the active rules and the active entities they link, then every change, each with its log position as id (scope evaluate)',
      description: 'Events `snapshot`, `change`, `cutoff`, `shutdown`, `revoked` (the key was revoked: the stream ends); heartbeats are comment lines. ' +
        'Resume with `Last-Event-ID`. HEAD answers the same checks and head, with no body (docs/change-stream.md#resuming).',
      tags: ['public'],
      parameters: [
        { name: 'Last-Event-ID', in: 'header', required: false, description: 'the position to resume after', schema: { type: 'string', pattern: '^[0-9]+$' } },
        {
          name: 'changes', in: 'query', required: false,
          description: '`patch`: an entity the subscriber holds comes as a patch of what changed (`change.patch`, a prompt\'s new versions as `versions_added`); ' +
            '`records` (the default): every changed record whole',
          schema: { type: 'string', enum: ['records', 'patch'] },
        },
      ],
      responses: {
        200: { description: 'the event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        ...errors(400, 401, 403, 503),
      },
    },
  },

  '/api/prompt/get-compiled': {
    post: {
      operationId: 'getCompiledPrompt',
      summary: 'OpenLIT\'s prompt route: a prompt by name or id, at a version or label, optionally rendered (scope evaluate)',
      description: 'For OpenLIT\'s SDKs, unchanged. Always 200 past the CORS check, failures included (a missing key, an unknown prompt, a bad body, not ready): the caller checks `err`. Other members (`source`, `metaProperties`) are ignored.',
      tags: ['public'],
      requestBody: body(ref('GetCompiledRequest')),
      responses: {
        200: answer('`{err: null, res}` or `{err, res: null}`', ref('GetCompiledAnswer')),
        403: answer('the browser Origin is not allowed (the request is not executed)', ref('Error')),
      },
    },
  },

  ...ofrep,
  ...rules,
  '/api/rule-engine/rules': {
    ...rules['/api/rule-engine/rules'],
    post: {
      ...rules['/api/rule-engine/rules']!.post!,
      summary: 'Create a rule; a `key` names one flag (docs/openfeature.md): 409 when another rule holds it',
      responses: { ...rules['/api/rule-engine/rules']!.post!.responses, ...errors(409) },
    },
  },
  '/api/rule-engine/rules/{id}/history': {
    get: {
      operationId: 'ruleHistory',
      summary: 'Every event of a rule, with who, when, where in the log, and what changed',
      tags: ['rules'],
      parameters: [idParameter('rule'), ...PAGE_PARAMETERS],
      responses: { 200: answer('the history, oldest first (one page with limit)', ref('RuleHistory')), ...errors(400, ...ADMIN_READ_ERRORS, 404) },
    },
  },
  ...contexts,
  ...prompts,
  '/api/prompts': {
    ...prompts['/api/prompts'],
    post: {
      ...prompts['/api/prompts']!.post!,
      summary: 'Create a prompt (a template or a chat, and a config) at its first version; names are unique (409 when taken)',
      responses: { ...prompts['/api/prompts']!.post!.responses, ...errors(409) },
    },
  },
  '/api/prompts/{id}': {
    ...promptById,
    get: {
      ...promptById.get!,
      summary: 'Read a prompt (by id or name) at its latest version, at `?version=` or at `?label=`',
      parameters: [promptRef, { name: 'version', in: 'query', schema: VERSION }, { name: 'label', in: 'query', schema: LABEL }],
    },
    patch: { ...promptById.patch!, summary: 'Change a prompt\'s name (409 when taken), tags, meta_properties or status (a template changes by adding a version)' },
  },
  '/api/prompts/{id}/versions': {
    post: {
      operationId: 'addPromptVersion',
      summary: 'Add a version (a template or a chat, and a config); it must be greater than the latest (default: next minor)',
      tags: ['prompts'],
      parameters: [promptRef, ifMatch, breakGlass],
      requestBody: body(ref('PromptVersionInput')),
      responses: { 201: versioned('the prompt at its new version', ref('Prompt')), ...errors(...ADMIN_WRITE_ERRORS, 404, 409) },
    },
  },
  '/api/prompts/{id}/history': {
    get: {
      operationId: 'promptHistory',
      summary: 'Every event of a prompt (versions, label moves, changes) with who, when and where in the log',
      tags: ['prompts'],
      parameters: [promptRef, ...PAGE_PARAMETERS],
      responses: { 200: answer('the history, oldest first (one page with limit)', ref('PromptHistory')), ...errors(400, ...ADMIN_READ_ERRORS, 404) },
    },
  },
  '/api/prompts/{id}/labels/{label}': {
    put: {
      operationId: 'movePromptLabel',
      summary: 'Point `production` or a custom label at a version (promote, roll back); `latest` moves by itself',
      description: 'Each move is a PromptLabelMoved event in the prompt\'s history. Moving a label to the version it names already writes nothing.',
      tags: ['prompts'],
      parameters: [promptRef, labelParameter, ifMatch, breakGlass],
      requestBody: body(ref('PromptLabelMove')),
      responses: { 200: versioned('the prompt at its latest version', ref('Prompt')), ...errors(...ADMIN_WRITE_ERRORS, 404, 409) },
    },
    delete: {
      operationId: 'removePromptLabel',
      summary: 'Remove a custom label (`latest` and `production` cannot be removed)',
      tags: ['prompts'],
      parameters: [promptRef, labelParameter, ifMatch, breakGlass],
      responses: { 200: versioned('the prompt at its latest version', ref('Prompt')), ...errors(400, ...ADMIN_READ_ERRORS, 404, 409) },
    },
  },
  '/api/vault/secrets': {
    ...secrets['/api/vault/secrets'],
    post: {
      ...secrets['/api/vault/secrets']!.post!,
      summary: 'Create a secret; the answer never holds the value',
      responses: { ...secrets['/api/vault/secrets']!.post!.responses, ...errors(409) },
    },
  },
  // Secrets have no single-record GET: listings are enough and never carry values.
  '/api/vault/secrets/{id}': { patch: secretById.patch!, delete: secretById.delete! },

  '/api/api-keys': {
    post: {
      operationId: 'createApiKey',
      summary: 'Create an API key; the key itself is shown only in this answer',
      tags: ['api-keys'],
      requestBody: body(ref('ApiKeyInput')),
      responses: { 201: answer('the key record and the key', ref('ApiKeyCreated')), ...errors(...ADMIN_WRITE_ERRORS) },
    },
    get: {
      operationId: 'listApiKeys',
      summary: 'List the live API keys (never the keys themselves): filtered, and paged with limit and cursor',
      tags: ['api-keys'],
      parameters: LIST_PARAMETERS.apiKeys,
      responses: { 200: answer('every live key, by id', ref('ApiKeyList')), ...errors(400, ...ADMIN_READ_ERRORS) },
    },
  },
  '/api/api-keys/{id}': {
    delete: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key, at once',
      description: 'The last active admin key is not revoked (409): RULEVAULT_ADMIN_KEY on the node counts as one.',
      tags: ['api-keys'],
      parameters: [idParameter('API key'), ifMatch],
      responses: { 204: { description: 'revoked' }, ...errors(400, ...ADMIN_READ_ERRORS, 404, 409) },
    },
  },

  '/api/change-requests': {
    post: {
      operationId: 'openChangeRequest',
      summary: 'Open a change request (a draft): changes to rules, contexts, prompts, labels and protections, each pinned to a revision',
      description: 'Each change is checked as its direct route checks its body; one without base_revision is pinned to the resource\'s revision now (docs/change-requests.md).',
      tags: ['change-requests'],
      requestBody: body(ref('ChangeRequestInput')),
      responses: { 201: versioned('the draft', ref('ChangeRequest')), ...errors(...ADMIN_WRITE_ERRORS, 404, 409) },
    },
    get: {
      operationId: 'listChangeRequests',
      summary: 'List change requests, by id: `state` keeps one state; paged with limit and cursor (scope admin or approve)',
      tags: ['change-requests'],
      parameters: [...PAGE_PARAMETERS, query('state', 'draft, in_review, approved, applied, rejected, withdrawn or stale', { type: 'string', enum: REQUEST_STATES })],
      responses: { 200: answer('the requests', ref('ChangeRequestList')), ...errors(400, ...ADMIN_READ_ERRORS) },
    },
  },
  '/api/change-requests/{id}': {
    get: {
      operationId: 'getChangeRequest',
      summary: 'Read a change request: its state, changes, approvals and comments (scope admin or approve); with `as_of`, as it was then (scope admin, no ETag)',
      tags: ['change-requests'],
      parameters: [idParameter('change request'),
        { name: 'as_of', in: 'query', description: 'the request as it was at this log position or ISO 8601 time with a zone (as audit evaluate takes it); the answer adds `as_of: {position, at}`', schema: str }],
      responses: {
        200: versioned('the request with each change\'s `before`; its ETag is what an approval names in If-Match. With `as_of`: as it was then, without `before` and without an ETag',
          { anyOf: [ref('ChangeRequestRead'), ref('ChangeRequestAsOf')] }),
        ...errors(400, ...ADMIN_READ_ERRORS, 404),
      },
    },
    patch: {
      operationId: 'reviseChangeRequest',
      summary: 'Revise a draft or a request in review: its title, description or changes; every approval is cleared',
      tags: ['change-requests'],
      parameters: [idParameter('change request'), ifMatch],
      requestBody: body(ref('ChangeRequestPatch')),
      responses: { 200: versioned('the request', ref('ChangeRequest')), ...errors(...ADMIN_WRITE_ERRORS, 404, 409) },
    },
  },
  '/api/change-requests/{id}/history': {
    get: {
      operationId: 'changeRequestHistory',
      summary: 'Every step of a change request: who, when and why, oldest first (scope admin or approve)',
      tags: ['change-requests'],
      parameters: [idParameter('change request'), ...PAGE_PARAMETERS],
      responses: { 200: answer('its events', ref('ChangeRequestHistory')), ...errors(400, ...ADMIN_READ_ERRORS, 404) },
    },
  },
  '/api/change-requests/{id}/impact': {
    get: {
      operationId: 'changeRequestImpact',
      summary: 'Replay the recorded decisions of a window against the catalog the request would produce: which answers change (scope admin or approve)',
      description: 'docs/change-requests.md#impact-and-test-cases; a change pinned to a revision its resource has left is a 409 (applied, the request would be stale).',
      tags: ['change-requests'],
      parameters: [idParameter('change request'),
        { name: 'since', in: 'query', description: 'start of the window, an ISO 8601 time with a zone (default: 7 days before until)', schema: str },
        { name: 'until', in: 'query', description: 'end of the window, an ISO 8601 time with a zone (default: now)', schema: str }],
      responses: { 200: answer('the impact report', ref('ImpactReport')), ...errors(400, ...ADMIN_READ_ERRORS, 404, 409) },
    },
  },
  '/api/change-requests/{id}/test-results': {
    get: {
      operationId: 'changeRequestTestResults',
      summary: 'Run the test cases against the catalog the request would produce (its own, when it sets them); a failing case blocks approval (scope admin or approve)',
      tags: ['change-requests'],
      parameters: [idParameter('change request')],
      responses: { 200: answer('each case, passed or failed with its diff', ref('TestResults')), ...errors(...ADMIN_READ_ERRORS, 404, 409) },
    },
  },
  '/api/test-cases': {
    get: {
      operationId: 'getTestCases',
      summary: 'The test-case set change requests run; set only by an applied request\'s set-test-cases (scope admin or approve)',
      tags: ['change-requests'],
      responses: { 200: answer('the set (empty before the first)', ref('TestCaseSet')), ...errors(...ADMIN_READ_ERRORS) },
    },
  },
  ...changeRequestStep('submit', 'submitChangeRequest', 'Submit a draft for review', undefined, 200),
  ...changeRequestStep('approve', 'approveChangeRequest', 'Approve the revision read (If-Match required; scope approve; never the author\'s key); 409 while a test case fails, unless the body overrides with a reason', 'ApprovalInput', 200, true),
  ...changeRequestStep('reject', 'rejectChangeRequest', 'Reject a request with a reason (scope approve)', 'ReasonInput', 200),
  ...changeRequestStep('withdraw', 'withdrawChangeRequest', 'Withdraw a request', 'ReasonInput', 200),
  ...changeRequestStep('comments', 'commentChangeRequest', 'Comment on a request (scope admin or approve)', 'CommentInput', 201),
  ...changeRequestStep('apply', 'applyChangeRequest', 'Apply an approved request: every change or none; 409 stale naming a resource that moved; applying again answers the first apply', undefined, 200),
  ...changeRequestStep('revert', 'revertChangeRequest', 'Open a draft that undoes an applied request, pinned to the revisions the apply left', undefined, 201),
  '/api/protections': {
    get: {
      operationId: 'listProtections',
      summary: 'The protected resources (scope admin or approve)',
      tags: ['change-requests'],
      responses: { 200: answer('every protection, by resource', ref('ProtectionList')), ...errors(...ADMIN_READ_ERRORS) },
    },
    put: {
      operationId: 'protect',
      summary: 'Protect a resource at once: from now on it changes only through an approved change request',
      tags: ['change-requests'],
      requestBody: body(ref('ProtectionInput')),
      responses: { 200: answer('the protection', ref('Protection')), ...errors(...ADMIN_WRITE_ERRORS, 404) },
    },
    delete: {
      operationId: 'unprotect',
      summary: 'Always 409 protected: a protection is removed only by an approved change request\'s `unprotect` change',
      tags: ['change-requests'],
      responses: errors(...ADMIN_READ_ERRORS, 409),
    },
  },

  '/api/import': {
    post: {
      operationId: 'importItems',
      summary: 'Import rules, contexts and prompts: all or nothing, answered once every item is evaluable (scope admin)',
      description: 'The body is NDJSON (one ImportItem per line; blank lines skipped) or a JSON array of ImportItems, ' +
        'whatever the Content-Type, uncompressed. Every item is checked as its create route checks it before anything is written; ' +
        'the first bad one is the error, its message starting with `line <n>` (NDJSON) or `item [<i>]` (array). ' +
        'At most RULEVAULT_IMPORT_MAX_ITEMS items and RULEVAULT_IMPORT_MAX_BYTES bytes (413 above; RULEVAULT_MAX_BODY_BYTES does not apply). ' +
        'On the embedded store the batch is one transaction; on EventStoreDB one append per item, in order (docs/api.md#import).',
      tags: ['import'],
      requestBody: {
        required: true,
        content: {
          'application/x-ndjson': { schema: { type: 'string', description: 'one ImportItem per line' } },
          'application/json': { schema: { type: 'array', items: ref('ImportItem'), minItems: 1 } },
        },
      },
      responses: { 201: answer('the items created, in the order given', ref('ImportResult')), ...errors(...ADMIN_WRITE_ERRORS, 409) },
    },
  },

  '/api/whoami': {
    get: {
      operationId: 'whoami',
      summary: 'The calling key: its id, name, scopes and secret tags (any valid key)',
      tags: ['api-keys'],
      responses: { 200: answer('the key', ref('Whoami')), ...errors(400, 401, 503) },
    },
  },

  '/api/audit/events': {
    get: {
      operationId: 'auditEvents',
      summary: 'A page of the event log; secret values appear only sealed',
      tags: ['audit'],
      parameters: [
        { name: 'after', in: 'query', description: 'the `next` of the previous page', schema: ref('Position') },
        { name: 'cursor', in: 'query', description: 'the `next_cursor` of the previous page (instead of `after`)', schema: str },
        { name: 'limit', in: 'query', description: 'events per page, 1 to 1000 (default 100)', schema: { type: 'string', pattern: '^[0-9]+$' } },
        { name: 'stream', in: 'query', description: 'a stream name, or a prefix ending in `-` or `*` (`rule-`)', schema: str },
        { name: 'type', in: 'query', description: 'an event type, or several separated by commas', schema: str },
        { name: 'actor', in: 'query', description: 'exact metadata.actor', schema: str },
        { name: 'from', in: 'query', description: 'ISO 8601 time with a zone, inclusive, on metadata.at', schema: str },
        { name: 'to', in: 'query', description: 'ISO 8601 time with a zone, inclusive, on metadata.at', schema: str },
      ],
      responses: { 200: answer('the page', ref('AuditPage')), ...errors(400, ...ADMIN_READ_ERRORS) },
    },
  },
  '/api/audit/digest': {
    get: {
      operationId: 'auditDigest',
      summary: 'A digest of the live read models, comparable with an offline replay',
      tags: ['audit'],
      responses: { 200: answer('the digest', ref('Digest')), ...errors(...ADMIN_READ_ERRORS) },
    },
  },
  '/api/audit/evaluate': {
    post: {
      operationId: 'auditEvaluate',
      summary: 'What evaluate answered at a past log position or time (`as_of`), optionally explained',
      tags: ['audit'],
      requestBody: body(ref('AuditEvaluateRequest')),
      responses: { 200: answer('the answer as of that point', ref('AuditEvaluateResponse')), ...errors(...ADMIN_WRITE_ERRORS) },
    },
  },
  '/api/audit/decisions/{id}': {
    get: {
      operationId: 'auditDecision',
      summary: 'The record of an evaluate answer by its decision id (scope admin; decision logging on and the answer sampled)',
      tags: ['audit'],
      parameters: [idParameter('decision')],
      responses: {
        200: answer('the decision record, or the stand-in written for one that could not be serialized', { anyOf: [ref('DecisionRecord'), ref('DecisionStandIn')] }),
        ...errors(400, ...ADMIN_READ_ERRORS, 404),
      },
    },
  },
  '/api/audit/decisions/{id}/replay': {
    get: {
      operationId: 'auditDecisionReplay',
      summary: 'A decision record evaluated again at its position (or `as_of`) and compared with its answer (scope admin)',
      tags: ['audit'],
      parameters: [
        idParameter('decision'),
        { name: 'as_of', in: 'query', description: 'replay here instead: a log position, an ISO 8601 time with a zone, or `head` (the log now)', schema: str },
      ],
      responses: { 200: answer('the replay and the differences', ref('DecisionReplay')), ...errors(400, ...ADMIN_READ_ERRORS, 404, 409) },
    },
  },
  '/api/audit/decisions/{id}/evidence': {
    get: {
      operationId: 'auditDecisionEvidence',
      summary: 'The evidence file of a decision (scope admin), as `rulevault audit evidence` writes it: verify it offline with `rulevault audit verify-evidence`',
      tags: ['audit'],
      parameters: [idParameter('decision')],
      responses: {
        200: {
          description: 'the file, as a download (`Content-Disposition: attachment; filename=evidence-<id>.json`); the same bytes the CLI writes but `created_at`',
          headers: { 'Content-Disposition': { description: '`attachment; filename=evidence-<id>.json`', schema: str } },
          content: json(ref('EvidenceFile')),
        },
        ...errors(400, ...ADMIN_READ_ERRORS, 404, 409),
      },
    },
  },
  '/api/audit/secret-reads': {
    get: {
      operationId: 'auditSecretReads',
      summary: 'The secret-read audit: get-secrets calls, oldest first, filtered and paged (scope admin); never a value',
      tags: ['audit'],
      parameters: [
        { name: 'key_id', in: 'query', description: 'the API key id that read', schema: str },
        { name: 'secret', in: 'query', description: 'a secret\'s id or key: reads that returned it', schema: str },
        { name: 'outcome', in: 'query', description: 'ok: calls answered; error: calls refused or failed', schema: { type: 'string', enum: ['ok', 'error'] } },
        { name: 'from', in: 'query', description: 'ISO 8601 time with a zone, inclusive', schema: str },
        { name: 'to', in: 'query', description: 'ISO 8601 time with a zone, inclusive', schema: str },
        { name: 'limit', in: 'query', description: 'reads per page, 1 to 1000 (default 100)', schema: { type: 'string', pattern: '^[0-9]+$' } },
        { name: 'cursor', in: 'query', description: 'the `next_cursor` of the previous page', schema: str },
      ],
      responses: { 200: answer('the page', ref('SecretReadPage')), ...errors(400, ...ADMIN_READ_ERRORS) },
    },
  },
  '/api/audit/chain': {
    get: {
      operationId: 'auditChain',
      summary: 'The hash chain of the live store: the last verification (verified up to a position, or the first break and its kind), the signing key and its rotations, the checkpoints (scope admin)',
      tags: ['audit'],
      responses: { 200: answer('the status', ref('ChainStatus')), ...errors(400, ...ADMIN_READ_ERRORS) },
    },
  },
  '/api/audit/chain/verify': {
    post: {
      operationId: 'auditChainVerify',
      summary: 'Start verifying the hash chain (or join the run going on: never two at once); answers at once, poll GET /api/audit/chain (scope admin)',
      tags: ['audit'],
      requestBody: body(ref('ChainVerifyRequest'), false),
      responses: { 202: answer('the status, the run started or joined', ref('ChainStatus')), ...errors(...ADMIN_WRITE_ERRORS) },
    },
  },
  '/api/audit/chain/checkpoints': {
    post: {
      operationId: 'auditChainCheckpoint',
      summary: 'Verify what is new, then sign the verified head now: a checkpoint event (scope admin)',
      tags: ['audit'],
      requestBody: body(adminInput({}), false),
      responses: { 201: answer('the checkpoint', ref('SignedCheckpoint')), ...errors(...ADMIN_WRITE_ERRORS, 409) },
    },
  },
  '/api/rule-engine/dry-run': {
    post: {
      operationId: 'dryRun',
      summary: 'Evaluate over the live rules with draft rules added or in place of live ones, each rule explained; writes nothing (scope admin)',
      tags: ['rules'],
      requestBody: body(ref('DryRunRequest')),
      responses: { 200: answer('evaluate\'s answer over live rules and drafts, with explanations', ref('DryRunResponse')), ...errors(...ADMIN_WRITE_ERRORS) },
    },
  },
  '/api/rule-engine/explain': {
    post: {
      operationId: 'explain',
      summary: 'Why the matching rules and the rules named in rule_ids did or did not match, condition by condition (scope explain or admin)',
      tags: ['audit'],
      requestBody: body(ref('ExplainRequest')),
      responses: { 200: answer('the explanations, by rule id', ref('ExplainResponse')), ...errors(...ADMIN_WRITE_ERRORS) },
    },
  },
};

export const openApiDocument: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'RuleVault',
    version: '0.1.0',
    description: [
      'Rule evaluation and sealed secrets on an event-sourced log.',
      'Every body is read as JSON whatever its Content-Type; every error is `{"err": "<message>", "code": "<code>"}`',
      '(get-secrets answers 200 with `{err, code, res: null}` instead), `code` one of the Error schema\'s enum. Any /api route answers 403 to a browser',
      'Origin that is not allowed, and 503 until the read models have caught up with the log.',
      'Every route reads a request body as JSON when one is sent: a malformed body is a 400, one over',
      'RULEVAULT_MAX_BODY_BYTES a 413, whatever the route.',
    ].join(' '),
  },
  security: [{ bearer: [] }],
  tags: [
    { name: 'public', description: 'evaluate, get-secrets and get-compiled (OpenLIT\'s prompt route), called by applications' },
    { name: 'openfeature', description: 'OFREP, the OpenFeature Remote Evaluation Protocol: rules with keys as flags (docs/openfeature.md)' },
    { name: 'rules', description: 'rules (scope admin)' },
    { name: 'contexts', description: 'contexts (scope admin)' },
    { name: 'prompts', description: 'prompts, their versions and labels (scope admin)' },
    { name: 'vault', description: 'secrets, managed without ever reading values (scope admin)' },
    { name: 'api-keys', description: 'API keys (scope admin)' },
    { name: 'audit', description: 'the event log (scope admin)' },
    { name: 'import', description: 'bulk import of rules, contexts and prompts (scope admin)' },
    { name: 'change-requests', description: 'protected resources and the change requests that change them (docs/change-requests.md)' },
    { name: 'probes', description: 'health, readiness and metrics' },
    { name: 'docs', description: 'this document and its browsable form' },
  ],
  paths,
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'an API key: `Authorization: Bearer <API_KEY>`' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'an API key as OFREP sends one: `X-API-Key: <API_KEY>` (the OFREP routes only)' },
    },
    schemas,
  },
};
