/**
 * One sample of a server's operations metrics (`--metrics-listen api` serves them on the API port):
 * `series` is the sample's name with its labels as the exposition writes them, e.g.
 * `tracelake_queue_rejections_total{pool="compute"}`. Throws when the exposition has no such
 * sample, unless `absent` says what that means (a labelled counter has no sample before its first
 * increment).
 */
import type { TestServer } from './server.js';

export async function opsMetric(server: TestServer, series: string, absent?: number): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) {
    if (absent !== undefined) return absent;
    throw new Error(`no ${series} in the metrics`);
  }
  return Number(line.slice(series.length + 1));
}
