/**
 * Readings of a server's operations metrics (`--metrics-listen api` serves them on the API port),
 * for the scenarios that report where the server's time went.
 */
import type { TestServer } from '../test/helpers/server.js';

/**
 * A histogram of the server's operations metrics (`--metrics-listen api`) by its one label: count,
 * sum (s), and the observations up to the bucket `le`.
 */
export async function histograms(
  server: TestServer,
  name: string,
  label: string,
  le: string,
): Promise<Map<string, { count: number; sum: number; upTo: number }>> {
  return histogramsIn(await metricsText(server), name, label, le);
}

/** The server's operations metrics, as text: one scrape for several readings. */
export async function metricsText(server: TestServer): Promise<string> {
  return (await fetch(`${server.url}/metrics`)).text();
}

/** `histograms` from a scrape's `text`. */
export function histogramsIn(
  text: string,
  name: string,
  label: string,
  le: string,
): Map<string, { count: number; sum: number; upTo: number }> {
  const out = new Map<string, { count: number; sum: number; upTo: number }>();
  for (const m of text.matchAll(new RegExp(`^${name}_(count|sum|bucket)\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const [, kind, labelText, value] = m;
    const labels = Object.fromEntries([...labelText!.matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!]));
    const key = labels[label];
    if (key === undefined || (labels.outcome !== undefined && labels.outcome !== 'ok')) continue;
    const h = out.get(key) ?? { count: 0, sum: 0, upTo: 0 };
    if (kind === 'count') h.count = Number(value);
    else if (kind === 'sum') h.sum = Number(value);
    else if (labels.le === le) h.upTo = Number(value);
    out.set(key, h);
  }
  return out;
}

/** The cumulative bucket counts of a histogram without labels, by upper bound. */
export async function buckets(server: TestServer, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm')))
    out.set(m[1]!, Number(m[2]));
  return out;
}

/** The smallest bucket bound holding the quantile `q` of the observations between two reads. */
export function quantileBound(before: Map<string, number>, after: Map<string, number>, q: number): string {
  const counts = [...after].map(([le, n]) => [le, n - (before.get(le) ?? 0)] as const);
  const total = counts.find(([le]) => le === '+Inf')?.[1] ?? 0;
  return counts.find(([, n]) => n >= q * total)?.[0] ?? 'n/a';
}

/** The series of a counter or gauge in a scrape's `text`: each one's labels and value. */
export function seriesIn(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return [...text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))].map((m) => ({
    labels: Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!])),
    value: Number(m[2]),
  }));
}

/**
 * Waits until the store thread's background has made its first pass since the start (segment
 * footers verified, the settled trace keys built, replaced files purged): reads timed before it
 * measure the start beside them, not the reads. `prune` is a pass's last job; its seconds count
 * once it has run.
 */
export async function firstPassDone(server: TestServer, pollMs: number): Promise<void> {
  for (;;) {
    const jobs = seriesIn(await metricsText(server), 'tracelake_background_seconds_total');
    if (jobs.some((s) => s.labels.job === 'prune' && s.value > 0)) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
