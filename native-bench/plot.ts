/**
 * Line charts for the benchmarks, without a plotting library: panels of series drawn as SVG in
 * code, and a PNG of them taken by the machine's Chromium (Debian's, driven by playwright-core as
 * the web UI's tests drive it; nothing is downloaded).
 */
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../test/helpers/chromium.js';

export interface Series {
  name: string;
  /** One value an x step (null: none that step). */
  values: readonly (number | null)[];
}

export interface Panel {
  title: string;
  series: readonly Series[];
}

const WIDTH = 560;
const HEIGHT = 280;
const MARGIN = { left: 64, right: 16, top: 44, bottom: 36 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** 1, 2 or 5 × a power of ten: a tick step giving about `count` ticks up to `max`. */
function tickStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
}

const label = (v: number) =>
  v >= 1e6 ? `${+(v / 1e6).toFixed(1)}M` : v >= 1e4 ? `${+(v / 1e3).toFixed(1)}k` : `${+v.toFixed(2)}`;

/** One panel at (x, y): axes from 0, x labelled from `firstX`, a legend above. */
function panelSvg(panel: Panel, x: number, y: number, firstX: number, xName: string): string {
  const steps = Math.max(1, ...panel.series.map((s) => s.values.length));
  const seen = panel.series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const step = tickStep(Math.max(1e-9, ...seen) * 1.05, 5);
  const top = step * Math.ceil((Math.max(1e-9, ...seen) * 1.05) / step);
  const w = WIDTH - MARGIN.left - MARGIN.right;
  const h = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (i: number) => x + MARGIN.left + (steps === 1 ? w / 2 : (i * w) / (steps - 1));
  const py = (v: number) => y + MARGIN.top + h - (v / top) * h;
  const parts = [
    `<text x="${x + MARGIN.left}" y="${y + 18}" font-size="15" font-weight="bold">${xmlText(panel.title)}</text>`,
    `<rect x="${x + MARGIN.left}" y="${y + MARGIN.top}" width="${w}" height="${h}" fill="none" stroke="#999"/>`,
  ];
  for (let v = 0; v <= top + step / 2; v += step) {
    parts.push(
      `<line x1="${x + MARGIN.left}" x2="${x + MARGIN.left + w}" y1="${py(v)}" y2="${py(v)}" stroke="#e4e4e4"/>`,
      `<text x="${x + MARGIN.left - 6}" y="${py(v) + 4}" font-size="11" text-anchor="end">${label(v)}</text>`,
    );
  }
  const xEvery = Math.max(1, tickStep(steps, 10));
  for (let i = 0; i < steps; i++)
    if (i === 0 || (firstX + i) % xEvery === 0)
      parts.push(
        `<text x="${px(i)}" y="${y + MARGIN.top + h + 16}" font-size="11" text-anchor="middle">${firstX + i}</text>`,
      );
  parts.push(
    `<text x="${x + MARGIN.left + w / 2}" y="${y + HEIGHT - 4}" font-size="11" text-anchor="middle">${xmlText(xName)}</text>`,
  );
  panel.series.forEach((s, k) => {
    const colour = COLOURS[k % COLOURS.length]!;
    const points = s.values.flatMap((v, i) => (v === null || !Number.isFinite(v) ? [] : [[px(i), py(v)] as const]));
    if (points.length > 1)
      parts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map(([a, b]) => `${a},${b}`).join(' ')}"/>`,
      );
    for (const [a, b] of points) parts.push(`<circle cx="${a}" cy="${b}" r="2.5" fill="${colour}"/>`);
    const lx = x + MARGIN.left + 4 + k * 130;
    parts.push(
      `<rect x="${lx}" y="${y + 28}" width="10" height="10" fill="${colour}"/>`,
      `<text x="${lx + 14}" y="${y + 37}" font-size="12">${xmlText(s.name)}</text>`,
    );
  });
  return parts.join('\n');
}

/** The panels in a grid of `columns`, under a caption; x steps are numbered from `firstX`. */
export function panelsSvg(
  panels: readonly Panel[],
  options: { caption: string; columns?: number; firstX?: number; xName?: string },
): { svg: string; width: number; height: number } {
  const columns = options.columns ?? 2;
  const rows = Math.ceil(panels.length / columns);
  const width = columns * WIDTH;
  const height = 32 + rows * HEIGHT;
  const body = panels
    .map((p, i) =>
      panelSvg(
        p,
        (i % columns) * WIDTH,
        32 + Math.floor(i / columns) * HEIGHT,
        options.firstX ?? 1,
        options.xName ?? '',
      ),
    )
    .join('\n');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="${width}" height="${height}" fill="white"/>
<text x="12" y="21" font-size="14">${xmlText(options.caption)}</text>
${body}
</svg>`;
  return { svg, width, height };
}

/** Writes a PNG of `svg` (its size in CSS pixels) to `path`. */
export async function writePng(svg: { svg: string; width: number; height: number }, path: string): Promise<void> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    timeout: 60_000,
  });
  try {
    const page = await browser.newPage({ viewport: { width: svg.width, height: svg.height } });
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg.svg}</body></html>`);
    await page.screenshot({ path, clip: { x: 0, y: 0, width: svg.width, height: svg.height } });
  } finally {
    await browser.close();
  }
}
