/**
 * The metrics dashboard (cloud servers: `GET /v1/metrics`): cost and tokens of generations by
 * model, trace latency percentiles and error rate, over a window.
 */
import { get, query, type MetricsAnswer } from '../api.js';
import { Chart, type Series, type TimeRange } from '../components/chart.js';
import { WindowSelect } from '../components/table.js';
import { int, ms, usd, windowFrom } from '../format.js';
import { useLoad } from '../hooks.js';
import { navigate, type Location } from '../router.js';

const BUCKET_MS: Record<MetricsAnswer['meta']['bucket'], number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};

/**
 * One series per group (or per measure when ungrouped) over every bucket of the answer's window:
 * rows are sparse, so a bucket without a row is null (a gap in the line). The first bucket starts
 * at or before the window's start; it is drawn at the start, inside the window.
 */
function seriesOf(answer: MetricsAnswer, measures: string[]): { xs: number[]; series: Series[]; range: TimeRange } {
  const range = { from: Date.parse(answer.meta.from), to: Date.parse(answer.meta.to) };
  if (answer.data.length === 0) return { xs: [], series: [], range };
  const step = BUCKET_MS[answer.meta.bucket];
  // Buckets are aligned from an origin the rows show: step back from one to the window's start.
  const anchor = Date.parse(answer.data[0]!.bucket);
  const first = anchor - Math.ceil((anchor - range.from) / step) * step;
  const starts = Array.from({ length: answer.meta.buckets }, (_, i) => first + i * step);
  const at = new Map(starts.map((x, i) => [x, i]));
  const dims = answer.meta.group_by;
  const series = new Map<string, (number | null)[]>();
  for (const r of answer.data) {
    for (const m of measures) {
      const label = dims.length ? dims.map((d) => r[d] ?? '(none)').join(' · ') : m;
      if (!series.has(label))
        series.set(
          label,
          starts.map(() => null),
        );
      const i = at.get(Date.parse(r.bucket));
      if (i !== undefined) series.get(label)![i] = r[m] as number | null;
    }
  }
  return {
    xs: starts.map((x) => Math.max(x, range.from)),
    series: [...series].map(([label, values]) => ({ label, values })),
    range,
  };
}

function useMetrics(window: string, params: Record<string, string>) {
  return useLoad(() => get<MetricsAnswer>(`/v1/metrics${query({ from: windowFrom(window), ...params })}`), [window]);
}

export function MetricsPage({ loc }: { loc: Location }) {
  const window = loc.query.get('window') ?? '24h';
  const cost = useMetrics(window, { view: 'spans', measures: 'cost', group_by: 'model', filter: 'type = GENERATION' });
  const tokens = useMetrics(window, {
    view: 'spans',
    measures: 'total_tokens',
    group_by: 'model',
    filter: 'type = GENERATION',
  });
  const latency = useMetrics(window, { view: 'traces', measures: 'latency_p50,latency_p95,latency_p99' });
  const errors = useMetrics(window, { view: 'traces', measures: 'error_rate,count' });
  const charts: [string, typeof cost, string[], (v: number) => string][] = [
    ['Cost by model', cost, ['cost'], usd],
    ['Tokens by model', tokens, ['total_tokens'], int],
    ['Trace latency (p50, p95, p99)', latency, ['latency_p50', 'latency_p95', 'latency_p99'], ms],
    ['Error rate of traces', errors, ['error_rate'], (v) => `${(v * 100).toFixed(1)}%`],
  ];
  return (
    <div class="page">
      <header class="page-head">
        <h1>Dashboard</h1>
        <WindowSelect value={window} onChange={(w) => navigate('/metrics', { window: w })} />
      </header>
      <div class="charts">
        {charts.map(([title, state, measures, format]) =>
          state.error ? (
            <p key={title} class="error">
              {title}: {state.error.message}
            </p>
          ) : state.data ? (
            <Chart key={title} title={title} format={format} {...seriesOf(state.data, measures)} />
          ) : (
            <p key={title} class="loading">
              Loading {title}…
            </p>
          ),
        )}
      </div>
    </div>
  );
}
