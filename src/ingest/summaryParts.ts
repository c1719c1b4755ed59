/**
 * Trace summary parts computed while spans are taken in (store/spans/traceParts.ts explains parts):
 * a compute thread folds each request's rows into the parts of its current generation, so the
 * store thread only appends them when the generation is committed. The rules are those of the
 * SQL `partsOfSpans`, which a test holds this to.
 */
import { leadingChars } from '../core/text.js';
import { COLUMN_INDEX as C, PREVIEW_CHARS, type SpanRow } from '../store/spans/columns.js';

import type { PartRow } from '../store/spans/traceParts.js';

export type { PartRow };

interface Building {
  part: PartRow;
  tags: Set<string>;
}

export class SummaryParts {
  private readonly parts = new Map<string, Building>();

  get size(): number {
    return this.parts.size;
  }

  add(rows: readonly SpanRow[]): void {
    for (const row of rows) {
      // One part per trace and environment: a trace id reused in another environment is another trace.
      const key = `${row[C.tenant_id]}/${row[C.app_id]}/${row[C.environment_id]}/${row[C.trace_id]}`;
      const start = row[C.start_ns] as bigint;
      const end = row[C.end_ns] as bigint;
      const r = row[C.parent_id] === null ? 0 : 1;
      let b = this.parts.get(key);
      if (!b) {
        b = {
          part: [
            row[C.tenant_id] as string,
            row[C.app_id] as string,
            row[C.environment_id] as string,
            row[C.trace_id] as string,
            start,
            end,
            r,
            start,
            row[C.name] as string,
            preview(row, 'input'),
            preview(row, 'output'),
            0,
            0,
            0,
            0,
            0,
            [],
            null,
            null,
            null,
            row[C.metadata] as string | null,
            null,
            null,
            null,
          ],
          tags: new Set(),
        };
        this.parts.set(key, b);
      } else {
        const p = b.part;
        if (start < p[4]) p[4] = start;
        if (end > p[5]) p[5] = end;
        if (r < p[6] || (r === p[6] && start < p[7])) {
          p[6] = r;
          p[7] = start;
          p[8] = row[C.name] as string;
          p[9] = preview(row, 'input');
          p[10] = preview(row, 'output');
          p[20] = row[C.metadata] as string | null;
        }
      }
      const p = b.part;
      if (row[C.type] === 'GENERATION' && (p[21] === null || start < p[21])) {
        p[21] = start;
        p[22] = preview(row, 'input');
        p[23] = preview(row, 'output');
      }
      if (row[C.cost] !== null) p[11] += row[C.cost] as number;
      if (row[C.tokens] !== null) p[12] += row[C.tokens] as number;
      if (row[C.type] !== 'EVENT') p[13]++;
      if (row[C.status] === 'ERROR') p[14] = 1;
      if (row[C.status] === 'OK') p[15] = 1;
      for (const tag of (row[C.tags] as string[] | null) ?? []) b.tags.add(tag);
      p[17] = least(p[17], row[C.session_id] as string | null);
      p[18] = least(p[18], row[C.user_id] as string | null);
      p[19] = least(p[19], row[C.run_id] as string | null);
    }
  }

  rows(): PartRow[] {
    return [...this.parts.values()].map(({ part, tags }) => {
      part[16] = [...tags].sort();
      return part;
    });
  }
}

/** The smaller of two ids, nulls last: the same choice as SQL's `min()`. */
function least(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return b < a ? b : a;
}

/** The span's preview: stored for an out-of-line text, else the text's first characters (as reads derive it). */
function preview(row: SpanRow, which: 'input' | 'output'): string | null {
  const stored = row[which === 'input' ? C.input_preview : C.output_preview] as string | null;
  if (stored !== null) return stored;
  const text = row[which === 'input' ? C.input : C.output] as string | null;
  return text === null ? null : leadingChars(text, PREVIEW_CHARS);
}
