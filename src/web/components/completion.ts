/**
 * Completion for the string filter grammar, from `/v1/filter-schema`: where the caret is, what may
 * come next — a field, an operator the field takes, one of an enum's values (or of the values the
 * field was seen with, when the caller has them), or `and`/`or`.
 */
import type { FilterSchema, SchemaField } from '../api.js';

export interface Suggestion {
  label: string;
  /** Replaces the word being typed. */
  insert: string;
  detail: string;
}

/** A value as the grammar reads it: bare when it is one word (lexer.ts), else quoted. */
export function written(value: string): string {
  return /^[\p{L}\p{N}\p{M}_.\-+:/@]+$/u.test(value) ? value : `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** Words of the text, quoted values kept whole, parentheses and commas on their own. */
function words(text: string): string[] {
  const out: string[] = [];
  const re = /"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[(),]|[!<>=]=?|[^\s(),!<>=]+/g;
  for (const m of text.matchAll(re)) out.push(m[0]);
  return out;
}

function fieldOf(name: string, fields: SchemaField[]): SchemaField | undefined {
  return (
    fields.find((f) => f.name === name) ??
    fields.find(
      (f) => f.name.endsWith('<key>') && name.startsWith(f.name.slice(0, -5)) && name.length > f.name.length - 5,
    )
  );
}

/**
 * The suggestions at `caret` in `text` for a resource's fields; `seen` holds values fields were seen
 * with, by field name. Where a value comes next, `valueField` names its field.
 */
export function suggest(
  text: string,
  caret: number,
  schema: FilterSchema,
  resource: 'traces' | 'spans' | 'scores',
  seen: Record<string, string[]> = {},
): { from: number; items: Suggestion[]; valueField?: SchemaField } {
  const fields = schema.resources[resource].fields;
  const before = text.slice(0, caret);
  const partialMatch = /[^\s(),]*$/.exec(before)!;
  const partial = partialMatch[0];
  const from = caret - partial.length;
  const done = words(before.slice(0, from));
  let state: 'field' | 'op' | 'value' | 'list' | 'conj' = 'field';
  let field: SchemaField | undefined;
  let opWords: string[] = [];
  const spellings = (f: SchemaField | undefined) =>
    (f?.operators ?? []).map((o) => schema.operators[o]?.string).filter((s): s is string => !!s);
  for (const w of done) {
    const lw = w.toLowerCase();
    if (state === 'field') {
      if (w === '(') continue;
      field = fieldOf(w, fields);
      state = 'op';
      opWords = [];
    } else if (state === 'op') {
      opWords.push(lw);
      const spelled = opWords.join(' ');
      if (
        spellings(field).includes(spelled) &&
        !spellings(field).some((s) => s !== spelled && s.startsWith(`${spelled} `))
      ) {
        state =
          spelled === 'exists' || spelled === 'does not exist' ? 'conj' : spelled.endsWith('in') ? 'list' : 'value';
      }
    } else if (state === 'list') {
      if (w === ')') state = 'conj';
    } else if (state === 'value') {
      state = 'conj';
    } else if (lw === 'and' || lw === 'or') state = 'field';
  }
  const starts = (s: string) => s.toLowerCase().startsWith(partial.toLowerCase());
  let items: Suggestion[] = [];
  if (state === 'field') {
    items = fields
      .filter((f) => starts(f.name))
      .map((f) => ({
        label: f.name,
        insert: f.name.endsWith('<key>') ? f.name.slice(0, -5) : `${f.name} `,
        detail: `${f.type} — ${f.description}`,
      }));
  } else if (state === 'op') {
    const typed = [...opWords, partial.toLowerCase()].join(' ').trimStart();
    items = spellings(field)
      .filter((s) => s.startsWith(typed))
      .map((s) => ({
        label: s,
        insert: `${s.slice(opWords.join(' ').length).trimStart()} `,
        detail: `operator for ${field?.name ?? 'this field'}`,
      }));
  } else if (state === 'value' || state === 'list') {
    const enumerated = field?.values !== undefined;
    items = (field?.values ?? (field ? seen[field.name] : undefined) ?? []).filter(starts).map((v) => ({
      label: v,
      insert: state === 'list' ? written(v) : `${written(v)} `,
      detail: enumerated ? `a value of ${field!.name}` : `seen in this window`,
    }));
    if (field) return { from, items: items.slice(0, 12), valueField: field };
  } else {
    items = ['and', 'or']
      .filter(starts)
      .map((k) => ({ label: k, insert: `${k} `, detail: k === 'or' ? 'inside parentheses only' : 'joins clauses' }));
  }
  return { from, items: items.slice(0, 12) };
}

/** The 0-based position an `invalid_filter` message names (`at position 4: …`), if any. */
export function errorPosition(message: string): number | null {
  const m = /at position (\d+)/.exec(message);
  return m ? Number(m[1]) : null;
}
