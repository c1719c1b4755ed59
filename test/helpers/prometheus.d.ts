/** Types of parse-prometheus-text-format (the package ships none), as far as the tests read it. */
declare module 'parse-prometheus-text-format' {
  export interface PromSample {
    labels?: Record<string, string>;
    value?: string;
    /** Histograms: upper bound → cumulative count. */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface PromFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: PromSample[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
