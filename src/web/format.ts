/** How numbers, times and money read on screen. */

export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v < 1) return `${v.toFixed(2)} ms`;
  if (v < 1000) return `${Math.round(v)} ms`;
  return `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`;
}

export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (v === 0) return '$0';
  return v < 0.01 ? `$${v.toPrecision(3)}` : `$${v.toFixed(4)}`;
}

export function int(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : Math.round(v).toLocaleString('en-US');
}

/** A share (0–1) as a percentage. */
export function pct(v: number | null | undefined): string {
  return v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)}%`;
}

/** A change with its sign always shown (`+2.0 pts`, `−$0.0100`), in the unit `unit` writes. */
export function signed(v: number | null | undefined, unit: (v: number) => string): string {
  if (v === null || v === undefined) return '–';
  if (v === 0) return `±${unit(0)}`;
  return `${v > 0 ? '+' : '−'}${unit(Math.abs(v))}`;
}

/** A change in a share, in percentage points. */
export function points(v: number): string {
  return `${(v * 100).toFixed(1)} pts`;
}

export function time(iso: string): string {
  const d = new Date(iso);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)}`;
}

export function short(text: string | null | undefined, n = 120): string {
  if (!text) return '';
  return text.length > n ? `${text.slice(0, n)}…` : text;
}

/** Windows the pages offer, as `from` offsets from now. */
export const WINDOWS: Record<string, number> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
  '90d': 90 * 86_400_000,
};

export function windowFrom(w: string | null): string {
  return new Date(Date.now() - (WINDOWS[w ?? '7d'] ?? WINDOWS['7d']!)).toISOString();
}
