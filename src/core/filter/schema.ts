/**
 * The filterable fields of each resource: the single source of truth for the string grammar, the
 * JSON filters, the SQL compiler and `GET /v1/filter-schema`. SQL expressions are written over the
 * row alias of the compiler's contract (`x` a span row, `t` a trace summary row, `s` a score row);
 * they are the only SQL text a field name can select.
 */
import { ApiError } from '../errors.js';
import { PROMPT_VERSION_KEYS } from '../otlp/conventions.js';
import { LIMITS, OPS, STRING_SPELLING, type Op, type Resource } from './ast.js';

export type FieldType = 'string' | 'number' | 'integer' | 'datetime' | 'enum' | 'string_list' | 'metadata';

/** traces only: `trace` tests the summary row, `span` matches when any span of the trace matches. */
export type Level = 'trace' | 'span';

export interface FieldDef {
  name: string;
  type: FieldType;
  /** enum only: the allowed values, in their canonical spelling. */
  values?: readonly string[];
  level?: Level;
  /** The SQL expression of the field over the row alias (`x` for span-level fields of traces). */
  sql: string;
  /** datetime only: nanoseconds in a BIGINT, or a TIMESTAMP column. */
  time?: 'ns' | 'timestamp';
  description: string;
}

const ALLOWED: Record<FieldType, ReadonlySet<Op>> = {
  string: new Set([
    'equals',
    'notEquals',
    'contains',
    'notContains',
    'startsWith',
    'endsWith',
    'in',
    'notIn',
    'exists',
    'doesNotExist',
  ]),
  number: new Set([
    'equals',
    'notEquals',
    'gt',
    'gte',
    'lt',
    'lte',
    'between',
    'in',
    'notIn',
    'exists',
    'doesNotExist',
  ]),
  integer: new Set([
    'equals',
    'notEquals',
    'gt',
    'gte',
    'lt',
    'lte',
    'between',
    'in',
    'notIn',
    'exists',
    'doesNotExist',
  ]),
  datetime: new Set(['gt', 'gte', 'lt', 'lte', 'between']),
  enum: new Set(['equals', 'notEquals', 'in', 'notIn']),
  string_list: new Set(['equals', 'notEquals', 'contains', 'notContains', 'in', 'notIn', 'exists', 'doesNotExist']),
  // Spec rule 4: exists, does not exist, = and the string operators.
  metadata: new Set(['equals', 'contains', 'notContains', 'startsWith', 'endsWith', 'exists', 'doesNotExist']),
};

/** The operators a type accepts, in the spec's order. */
export function operatorsFor(type: FieldType): Op[] {
  return OPS.filter((op) => ALLOWED[type].has(op));
}

const STATUS = ['UNSET', 'OK', 'ERROR'] as const;
const SPAN_KINDS = ['function', 'llm', 'tool', 'agent', 'retrieval', 'embedding', 'guardrail'] as const;
const SPAN_TYPES = ['SPAN', 'GENERATION', 'EVENT'] as const;

export const METADATA_PREFIX = 'metadata.';
/** Traces: the "any span" form of a metadata field, named so it is never taken for the trace's own. */
export const ANY_SPAN_METADATA_PREFIX = 'any_span.metadata.';
export const METADATA_KEY = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

const KEY_RULE = 'key matches [a-zA-Z_][a-zA-Z0-9_]{0,63}';

/** A `<prefix><key>` field: the metadata object at `sql` (a JSON text), compared as text. */
const metadata = (prefix: string, sql: string, description: string, level?: Level): FieldDef => ({
  name: `${prefix}<key>`,
  type: 'metadata',
  ...(level ? { level } : {}),
  sql,
  description: `${description}, compared as text; ${KEY_RULE}`,
});

/**
 * The resource a score row `s` names. Only a span score stores its resource id: a trace score's is
 * its `trace_id` and a session score's its `session_id`, so the column would repeat them (rows
 * stored by earlier builds do, and read the same).
 */
export const SCORE_RESOURCE_ID_SQL = 'coalesce(s.resource_id, s.trace_id, s.session_id)';

/** A span row's prompt version (see PROMPT_VERSION_KEYS), read from its kept attributes. */
export const PROMPT_VERSION_SQL = `TRY_CAST(coalesce(${PROMPT_VERSION_KEYS.map((k) => `json_extract_string(x.attributes, '$."${k}"')`).join(', ')}) AS INTEGER)`;

const FIELDS: Record<Resource, readonly FieldDef[]> = {
  traces: [
    { name: 'name', type: 'string', level: 'trace', sql: 't.name', description: "The root span's name" },
    {
      name: 'status',
      type: 'enum',
      values: STATUS,
      level: 'trace',
      sql: 't.status',
      description: 'ERROR if any span errored, else OK if any is OK, else UNSET',
    },
    {
      name: 'latency_ms',
      type: 'number',
      level: 'trace',
      sql: 't.latency_ms',
      description: 'Last span end minus first span start, in milliseconds',
    },
    { name: 'cost', type: 'number', level: 'trace', sql: 't.cost', description: 'Sum of span costs' },
    { name: 'tokens', type: 'integer', level: 'trace', sql: 't.tokens', description: 'Sum of span tokens' },
    {
      name: 'span_count',
      type: 'integer',
      level: 'trace',
      sql: 't.span_count',
      description: 'Number of spans, events excluded',
    },
    {
      name: 'tags',
      type: 'string_list',
      level: 'trace',
      sql: 't.tags',
      description: 'Union of span tags; contains/equals = has the tag, in = has any, not in/not contains = has none',
    },
    { name: 'session_id', type: 'string', level: 'trace', sql: 't.session_id', description: 'Session of the trace' },
    { name: 'user_id', type: 'string', level: 'trace', sql: 't.user_id', description: 'User of the trace' },
    {
      name: 'environment',
      type: 'string',
      level: 'trace',
      sql: 't.environment',
      description: 'Name of the environment the trace landed in',
    },
    {
      name: 'start',
      type: 'datetime',
      level: 'trace',
      sql: 't.start_ns',
      time: 'ns',
      description: 'Start of the first span (ISO 8601)',
    },
    { name: 'model', type: 'string', level: 'span', sql: 'x.model', description: 'Model of any span of the trace' },
    {
      name: 'span_kind',
      type: 'enum',
      values: SPAN_KINDS,
      level: 'span',
      sql: 'x.span_kind',
      description: 'Kind of any span of the trace',
    },
    {
      name: 'prompt_name',
      type: 'string',
      level: 'span',
      sql: 'x.prompt_name',
      description: 'Prompt name of any span of the trace',
    },
    {
      name: 'prompt_version',
      type: 'integer',
      level: 'span',
      sql: PROMPT_VERSION_SQL,
      description:
        'Prompt version of any span of the trace (tracelake.prompt.version, langfuse.observation.prompt.version)',
    },
    {
      name: 'service_name',
      type: 'string',
      level: 'span',
      sql: 'x.service_name',
      description: 'Service name of any span of the trace',
    },
    metadata(
      METADATA_PREFIX,
      't.metadata',
      "A custom metadata key of the trace (the root span's metadata, as GET /v1/traces/{traceId} answers it)",
      'trace',
    ),
    metadata(
      ANY_SPAN_METADATA_PREFIX,
      'x.metadata',
      'A custom metadata key of any span of the trace (negations: some span lacks it or differs)',
      'span',
    ),
  ],
  spans: [
    { name: 'name', type: 'string', sql: 'x.name', description: 'Span name' },
    {
      name: 'type',
      type: 'enum',
      values: SPAN_TYPES,
      sql: 'x.type',
      description: 'GENERATION when a model is present, EVENT for span events, else SPAN',
    },
    {
      name: 'span_kind',
      type: 'enum',
      values: SPAN_KINDS,
      sql: 'x.span_kind',
      description: 'Kind of work the span did',
    },
    { name: 'status', type: 'enum', values: STATUS, sql: 'x.status', description: 'Span status' },
    { name: 'model', type: 'string', sql: 'x.model', description: 'Model name' },
    { name: 'prompt_name', type: 'string', sql: 'x.prompt_name', description: 'Prompt template name' },
    {
      name: 'prompt_version',
      type: 'integer',
      sql: PROMPT_VERSION_SQL,
      description: 'Prompt version (tracelake.prompt.version, langfuse.observation.prompt.version)',
    },
    { name: 'service_name', type: 'string', sql: 'x.service_name', description: 'service.name of the resource' },
    { name: 'session_id', type: 'string', sql: 'x.session_id', description: 'Session id' },
    { name: 'user_id', type: 'string', sql: 'x.user_id', description: 'User id' },
    { name: 'trace_id', type: 'string', sql: 'x.trace_id', description: 'Trace id (lowercase hex)' },
    {
      name: 'environment',
      type: 'string',
      sql: '(SELECT e.name FROM environments e WHERE e.id = x.environment_id)',
      description: 'Name of the environment the span landed in',
    },
    {
      name: 'duration_ms',
      type: 'number',
      sql: '((x.end_ns - x.start_ns) / 1e6)',
      description: 'Duration in milliseconds',
    },
    { name: 'cost', type: 'number', sql: 'x.cost', description: 'Cost' },
    { name: 'tokens', type: 'integer', sql: 'x.tokens', description: 'Total tokens' },
    { name: 'input_tokens', type: 'integer', sql: 'x.input_tokens', description: 'Input tokens' },
    { name: 'output_tokens', type: 'integer', sql: 'x.output_tokens', description: 'Output tokens' },
    { name: 'start', type: 'datetime', sql: 'x.start_ns', time: 'ns', description: 'Span start (ISO 8601)' },
    metadata(METADATA_PREFIX, 'x.metadata', 'A custom metadata key of the span'),
  ],
  scores: [
    { name: 'name', type: 'string', sql: 's.name', description: 'Score name' },
    { name: 'score', type: 'number', sql: 's.score', description: 'Score value' },
    {
      name: 'source',
      type: 'string',
      sql: 's.source',
      description: 'Where the score came from (api, annotation, eval, sdk)',
    },
    { name: 'user_id', type: 'string', sql: 's.user_id', description: 'User who gave the score' },
    {
      name: 'resource_id',
      type: 'string',
      sql: SCORE_RESOURCE_ID_SQL,
      description: 'Id of the scored trace, span or session',
    },
    { name: 'label', type: 'string', sql: 's.label', description: 'Categorical label' },
    {
      name: 'created_at',
      type: 'datetime',
      sql: 's.created_at',
      time: 'timestamp',
      description: 'Creation time (ISO 8601)',
    },
  ],
};

export interface FieldRef {
  def: FieldDef;
  /** The metadata key of a `metadata.<key>` field. */
  key?: string;
}

/** The definition of `name` for `resource`, or why there is none. */
export function lookupField(resource: Resource, name: string): FieldRef | { error: string } {
  const fields = FIELDS[resource];
  // The longest prefix first: `any_span.metadata.k` is not `metadata.` anything.
  for (const def of fields.filter((f) => f.type === 'metadata').sort((a, b) => b.name.length - a.name.length)) {
    const prefix = def.name.slice(0, -'<key>'.length);
    if (!name.startsWith(prefix)) continue;
    const key = name.slice(prefix.length);
    return METADATA_KEY.test(key) ? { def, key } : { error: `invalid metadata key "${key}": a ${KEY_RULE}` };
  }
  const def = fields.find((f) => f.name === name);
  return def
    ? { def }
    : { error: `unknown field "${name}" for ${resource}; expected one of ${fields.map((f) => f.name).join(', ')}` };
}

export interface SchemaField {
  name: string;
  type: FieldType;
  operators: Op[];
  values?: string[];
  level?: Level;
  description: string;
}

/** Each operator's spelling in the string filter (null: JSON only) and in JSON filters. */
export interface OperatorSpelling {
  string: string | null;
  json: Op;
}

/**
 * Named, so that the API reference's schema of it is named for it: typia would name a bare
 * `Record<Op, …>` after the union's members, in the compiler's order, which changes between builds.
 */
export interface OperatorSpellings extends Record<Op, OperatorSpelling> {}

/** The fields of one resource. Named: the API reference names its types. */
export interface ResourceFields {
  fields: SchemaField[];
}

/** Resource → its fields, an interface for the reason OperatorSpellings is one. */
export interface ResourceSchemas extends Record<Resource, ResourceFields> {}

export interface FilterSchema {
  resources: ResourceSchemas;
  operators: OperatorSpellings;
  limits: typeof LIMITS;
}

/** The machine-readable description served by `GET /v1/filter-schema`. */
export function filterSchema(): FilterSchema {
  const describe = (f: FieldDef): SchemaField => ({
    name: f.name,
    type: f.type,
    operators: operatorsFor(f.type),
    ...(f.values ? { values: [...f.values] } : {}),
    ...(f.level ? { level: f.level } : {}),
    description: f.description,
  });
  const resource = (r: Resource) => ({ fields: FIELDS[r].map(describe) });
  return {
    resources: { traces: resource('traces'), spans: resource('spans'), scores: resource('scores') },
    operators: Object.fromEntries(
      OPS.map((op) => [op, { string: STRING_SPELLING[op], json: op }]),
    ) as FilterSchema['operators'],
    limits: { ...LIMITS, field_length: { ...LIMITS.field_length } },
  };
}

/** The definition of a field already checked; throws `invalid_filter` for any other. */
export function resolveField(resource: Resource, name: string): FieldRef {
  const ref = lookupField(resource, name);
  if ('error' in ref) throw new ApiError('invalid_filter', ref.error);
  return ref;
}
