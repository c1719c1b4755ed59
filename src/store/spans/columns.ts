/**
 * The span table, column by column: one list that the migration, the row builder (ingest worker)
 * and the appender (store thread) all follow, so their orders cannot drift apart.
 */

export type ColumnKind = 'uuid' | 'text' | 'bigint' | 'int' | 'double' | 'text_list';

export const SPAN_COLUMNS = [
  ['tenant_id', 'uuid'],
  ['app_id', 'uuid'],
  ['environment_id', 'uuid'],
  ['trace_id', 'text'],
  ['span_id', 'text'],
  ['parent_id', 'text'],
  ['name', 'text'],
  ['type', 'text'],
  ['span_kind', 'text'],
  ['status', 'text'],
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
  ['attributes', 'text'],
  ['resource', 'text'],
  ['scope_name', 'text'],
  ['scope_version', 'text'],
] as const satisfies readonly (readonly [string, ColumnKind])[];

export type SpanColumn = (typeof SPAN_COLUMNS)[number][0];

/** One span row, values in SPAN_COLUMNS order (bigint for `bigint` columns, string[] for lists). */
export type SpanRow = (string | number | bigint | string[] | null)[];

export const SQL_TYPE: Record<ColumnKind, string> = {
  uuid: 'UUID',
  text: 'VARCHAR',
  bigint: 'BIGINT',
  int: 'INTEGER',
  double: 'DOUBLE',
  text_list: 'VARCHAR[]',
};

export const COLUMN_INDEX: Record<SpanColumn, number> = Object.fromEntries(SPAN_COLUMNS.map(([name], i) => [name, i])) as Record<SpanColumn, number>;
