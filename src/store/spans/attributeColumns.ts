/**
 * Span attributes whose value a column of the same row already holds (segment format 2,
 * docs/segments.md): instrumentations repeat `session.id`, `user.id`, the model and the token counts
 * on span after span, and the mapper reads each into a column, so the `attributes` JSON stored them
 * twice, the largest column of the segments (docs/decisions.md, "Store conventions"). A key is left out of the stored JSON only when its value is exactly the column's
 * (the same string, or the same integer as a JSON number), and the row's `attributes_in_columns`
 * records which keys were left out, one bit each. A span's answer puts them back
 * (`restoredAttributes`), so the API gives the attributes as sent (the restored keys first).
 *
 * Segment reads see the stored JSON: putting the keys back in SQL for every read
 * (`restoredAttributesSql`, the reference for other engines) cost DuckDB's binder time in every
 * statement, even where no read used the column (native-bench/RESULTS.md, "Figures behind the
 * code"). So SQL over the stored `attributes` may only look up keys this list does not name (as
 * the prompt version's does, `PROMPT_VERSION_SQL`; a test holds it to that).
 *
 * The list is part of the format: a key's bit is its position, so keys are only ever appended.
 */
import { emptyMap } from '../../core/otlp/attributes.js';
import type { JsonValue } from '../../core/span.js';
import { COLUMN_INDEX, type SpanColumn, type SpanRow } from './columns.js';

/** Attribute key → the column that holds its value, in bit order (append only). */
export const ATTRIBUTE_COLUMNS: readonly (readonly [string, SpanColumn])[] = [
  ['session.id', 'session_id'],
  ['gen_ai.conversation.id', 'session_id'],
  ['tracelake.session.id', 'session_id'],
  ['user.id', 'user_id'],
  ['enduser.id', 'user_id'],
  ['tracelake.user.id', 'user_id'],
  ['tracelake.run.id', 'run_id'],
  ['gen_ai.response.model', 'model'],
  ['gen_ai.request.model', 'model'],
  ['llm.model_name', 'model'],
  ['embedding.model_name', 'model'],
  ['ai.model.id', 'model'],
  ['gen_ai.usage.input_tokens', 'input_tokens'],
  ['gen_ai.usage.prompt_tokens', 'input_tokens'],
  ['llm.token_count.prompt', 'input_tokens'],
  ['ai.usage.promptTokens', 'input_tokens'],
  ['ai.usage.inputTokens', 'input_tokens'],
  ['gen_ai.usage.output_tokens', 'output_tokens'],
  ['gen_ai.usage.completion_tokens', 'output_tokens'],
  ['llm.token_count.completion', 'output_tokens'],
  ['ai.usage.completionTokens', 'output_tokens'],
  ['ai.usage.outputTokens', 'output_tokens'],
  ['gen_ai.usage.cache_read_input_tokens', 'cached_input_tokens'],
  ['llm.token_count.prompt_details.cache_read', 'cached_input_tokens'],
  ['ai.usage.cachedInputTokens', 'cached_input_tokens'],
  ['tracelake.prompt.name', 'prompt_name'],
  ['langfuse.observation.prompt.name', 'prompt_name'],
  ['langfuse.prompt.name', 'prompt_name'],
];

/** Key → [its bit, the index of its column in a row]. */
const BY_KEY = new Map(ATTRIBUTE_COLUMNS.map(([key, column], bit) => [key, [2 ** bit, COLUMN_INDEX[column]] as const]));

export interface StoredAttributes {
  /** JSON text of the attributes no column holds; null when none is left. */
  json: string | null;
  /** The bits of the keys left out; null when none was. */
  inColumns: number | null;
}

/**
 * The attributes to store with `row` (whose columns are already filled): every key except those
 * whose value its column holds exactly.
 */
export function storedAttributes(attributes: Readonly<Record<string, JsonValue>>, row: SpanRow): StoredAttributes {
  // Prototype-less, as the mapper's maps are: a key such as `__proto__` stays plain data.
  let kept: Record<string, JsonValue> | null = null;
  let bits = 0;
  for (const key in attributes) {
    const value = attributes[key]!;
    const slot = BY_KEY.get(key);
    if (slot !== undefined && (typeof value === 'string' || typeof value === 'number') && value === row[slot[1]]) {
      bits += slot[0];
      continue;
    }
    (kept ??= emptyMap())[key] = value;
  }
  return { json: kept === null ? null : JSON.stringify(kept), inColumns: bits === 0 ? null : bits };
}

/**
 * The whole attributes of a stored row: `stored` (its parsed `attributes`) with the keys `bits`
 * names put back first, each with the value of its column in `row` (by column name).
 */
export function restoredAttributes(
  stored: Record<string, unknown>,
  bits: number | null,
  row: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (bits === null || bits === 0) return stored;
  const whole: Record<string, unknown> = {};
  for (let bit = 0; bit < ATTRIBUTE_COLUMNS.length; bit++) {
    if (((bits >> bit) & 1) === 0) continue;
    const [key, column] = ATTRIBUTE_COLUMNS[bit]!;
    whole[key] = row[column];
  }
  // Spread defines the stored keys as data (assignment would run a `__proto__` setter).
  return { ...whole, ...stored };
}

/**
 * SQL of a stored row's whole `attributes` JSON text (for a select list over the format's columns,
 * unqualified): the left-out keys as JSON members, then the stored ones.
 */
export function restoredAttributesSql(): string {
  const members = ATTRIBUTE_COLUMNS.map(
    ([key, column], bit) =>
      `CASE WHEN attributes_in_columns & ${2 ** bit} <> 0 THEN '${JSON.stringify(key)}:' || to_json(${column})::VARCHAR END`,
  );
  return `CASE WHEN attributes_in_columns IS NULL THEN attributes
               ELSE '{' || concat_ws(',', ${members.join(', ')}, nullif(substr(attributes, 2, length(attributes) - 2), '')) || '}' END`;
}
