/**
 * The span row, column by column: one list that the row builder (ingest workers), the segment
 * buffer, the segment format (docs/segments.md) and the empty `span_schema` table all follow, so
 * their orders cannot drift apart.
 *
 * The row is narrow on purpose (native-bench/ingest measures the cost of each value a worker hands
 * to DuckDB): `type`, `span_kind` and `status` go in as enums (an index per row, no string), the
 * previews only exist when the full text is out of line (else they are its first 500 characters,
 * derived when read), and resource attributes with the instrumentation scope are stored once per
 * distinct resource in the `resources` table, the row keeping a 64-bit `resource_id`.
 */

export type ColumnKind =
  | 'uuid'
  | 'text'
  | 'bigint'
  | 'ubigint'
  | 'int'
  | 'double'
  | 'text_list'
  | 'type_enum'
  | 'kind_enum'
  | 'status_enum';

export const ENUM_VALUES = {
  type_enum: ['SPAN', 'GENERATION', 'EVENT'],
  kind_enum: ['function', 'llm', 'tool', 'agent', 'retrieval', 'embedding', 'guardrail'],
  status_enum: ['UNSET', 'OK', 'ERROR'],
} as const;

export const SPAN_COLUMNS = [
  ['tenant_id', 'uuid'],
  ['app_id', 'uuid'],
  ['environment_id', 'uuid'],
  ['trace_id', 'text'],
  ['span_id', 'text'],
  ['parent_id', 'text'],
  ['name', 'text'],
  ['type', 'type_enum'],
  ['span_kind', 'kind_enum'],
  ['status', 'status_enum'],
  ['status_message', 'text'],
  ['start_ns', 'bigint'],
  ['end_ns', 'bigint'],
  ['model', 'text'],
  ['prompt_name', 'text'],
  ['service_name', 'text'],
  ['input_tokens', 'int'],
  ['output_tokens', 'int'],
  ['cached_input_tokens', 'int'],
  ['tokens', 'int'],
  ['cost', 'double'],
  /** Only when the full text is out of line (a blob); else null, and the preview is derived. */
  ['input_preview', 'text'],
  ['output_preview', 'text'],
  /** Full text when at most the inline threshold, else null and `input_ref` names the blob. */
  ['input', 'text'],
  ['output', 'text'],
  ['input_ref', 'text'],
  ['output_ref', 'text'],
  ['session_id', 'text'],
  ['user_id', 'text'],
  ['run_id', 'text'],
  ['tags', 'text_list'],
  /** JSON text. */
  ['metadata', 'text'],
  ['graph', 'text'],
  /** JSON text: the span's attributes but those `attributes_in_columns` names (attributeColumns.ts). */
  ['attributes', 'text'],
  /** The row of `resources` (resource attributes, scope name and version) this span came with. */
  ['resource_id', 'ubigint'],
  /** Bits of the attribute keys left out of `attributes` because a column holds their value (format 2). */
  ['attributes_in_columns', 'int'],
] as const satisfies readonly (readonly [string, ColumnKind])[];

export type SpanColumn = (typeof SPAN_COLUMNS)[number][0];

/** One span row, values in SPAN_COLUMNS order (bigint for `bigint`/`ubigint` columns, string[] for lists). */
export type SpanRow = (string | number | bigint | string[] | null)[];

const enumSql = (values: readonly string[]) => `ENUM(${values.map((v) => `'${v}'`).join(', ')})`;

/** Column types as stored (in Parquet the enums are plain strings). */
export const SQL_TYPE: Record<ColumnKind, string> = {
  uuid: 'UUID',
  text: 'VARCHAR',
  bigint: 'BIGINT',
  ubigint: 'UBIGINT',
  int: 'INTEGER',
  double: 'DOUBLE',
  text_list: 'VARCHAR[]',
  type_enum: 'VARCHAR',
  kind_enum: 'VARCHAR',
  status_enum: 'VARCHAR',
};

/** Column types in a worker's segment buffer (enums as enums). */
export const BUFFER_SQL_TYPE: Record<ColumnKind, string> = {
  ...SQL_TYPE,
  type_enum: enumSql(ENUM_VALUES.type_enum),
  kind_enum: enumSql(ENUM_VALUES.kind_enum),
  status_enum: enumSql(ENUM_VALUES.status_enum),
};

export const COLUMN_INDEX: Record<SpanColumn, number> = Object.fromEntries(
  SPAN_COLUMNS.map(([name], i) => [name, i]),
) as Record<SpanColumn, number>;

/** Characters (code points, as SQL's `left()` counts them; JS cuts with core/text.ts `leadingChars`) of a preview. */
export const PREVIEW_CHARS = 500;

/**
 * An instant in nanoseconds as the whole milliseconds an answer shows it at: divided as a double,
 * some fall a hair under their millisecond and would be shown (and asked back) one too early.
 */
export const MS_SQL = (ns: string) => `(${ns} // 1000000)::DOUBLE`;

/** The previews of a span row `a` as SQL: stored for out-of-line texts, else derived from the text. */
export const PREVIEW_SQL = (a: string) =>
  `coalesce(${a}.input_preview, left(${a}.input, ${PREVIEW_CHARS})) AS input_preview, coalesce(${a}.output_preview, left(${a}.output, ${PREVIEW_CHARS})) AS output_preview`;
