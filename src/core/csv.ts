/**
 * CSV (RFC 4180) for the list endpoints' `format=csv`: a header row, then one line per row; fields
 * with commas, quotes or line breaks are quoted; objects and arrays are written as JSON. A field
 * starting with `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet does not run it as a formula.
 */

export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.map(field).join(',')];
  for (const row of rows) lines.push(columns.map((c) => field(row[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

function field(v: unknown): string {
  if (v === null || v === undefined) return '';
  let text = typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (typeof v === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
