/**
 * One trace: its summary, the span tree with a timeline waterfall (↑/↓ to move, → or Enter to
 * open a span, ← to fold), the opened span's input and output (chat messages, images: fetched in
 * full only when opened), metadata, tokens and cost, the trace's scores and comments, and the graph
 * view when its spans carry `graph.node.*`. `?span=` makes the opened span part of the deep link.
 */
import { useMemo, useState } from 'preact/hooks';
import {
  get,
  query,
  type Comment,
  type Page,
  type Score,
  type Span,
  type SpanDetail,
  type TraceDetail,
} from '../api.js';
import { GraphView } from '../components/graph.js';
import { Content, Json } from '../components/messages.js';
import { int, ms, time, usd } from '../format.js';
import { useLoad } from '../hooks.js';
import { href, navigate, type Location } from '../router.js';

interface Row {
  span: Span;
  depth: number;
  children: number;
}

/** Depth-first order of the span tree (children by start time); spans whose parent is absent are roots. */
function flatten(spans: Span[], folded: Set<string>): Row[] {
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string | null, Span[]>();
  for (const s of spans) {
    const parent = s.parent_id && ids.has(s.parent_id) ? s.parent_id : null;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const out: Row[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const s of children.get(parent) ?? []) {
      out.push({ span: s, depth, children: children.get(s.id)?.length ?? 0 });
      if (!folded.has(s.id)) walk(s.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

export function TraceDetailPage({ loc, params }: { loc: Location; params: Record<string, string> }) {
  const id = params.traceId!;
  const opened = loc.query.get('span');
  const tab = loc.query.get('tab') ?? 'timeline';
  const trace = useLoad(() => get<{ data: TraceDetail }>(`/v1/traces/${id}?fields=graph`).then((r) => r.data), [id]);
  const scores = useLoad(() => get<Page<Score>>(`/v1/scores${query({ trace_id: id, limit: 100 })}`), [id]);
  const comments = useLoad(
    () => get<Page<Comment>>(`/v1/comments${query({ resource_type: 'trace', resource_id: id })}`),
    [id],
  );
  const [folded, setFolded] = useState<Set<string>>(new Set());
  const rows = useMemo(() => (trace.data ? flatten(trace.data.spans, folded) : []), [trace.data, folded]);
  const open = (spanId: string | null) => navigate(`/traces/${id}`, { span: spanId, tab }, true);
  const fold = (spanId: string, on: boolean) =>
    setFolded((f) => (on ? new Set([...f, spanId]) : new Set([...f].filter((x) => x !== spanId))));

  if (trace.error)
    return (
      <div class="page">
        <p class="error" role="alert">
          {trace.error.status === 404 ? `No trace ${id} here.` : trace.error.message}
        </p>
      </div>
    );
  if (!trace.data)
    return (
      <div class="page">
        <p class="loading">Loading…</p>
      </div>
    );
  const t = trace.data;
  const t0 = Date.parse(t.start);
  const total = Math.max(1, Date.parse(t.end) - t0);
  const at = rows.findIndex((r) => r.span.id === opened);
  const onKey = (e: KeyboardEvent) => {
    const row = rows[at];
    if (e.key === 'ArrowDown' || e.key === 'j') open(rows[Math.min(rows.length - 1, at + 1)]?.span.id ?? null);
    else if (e.key === 'ArrowUp' || e.key === 'k') open(rows[Math.max(0, at - 1)]?.span.id ?? null);
    else if ((e.key === 'ArrowRight' || e.key === 'Enter') && row) fold(row.span.id, false);
    else if (e.key === 'ArrowLeft' && row) fold(row.span.id, true);
    else return;
    e.preventDefault();
  };
  const hasGraph = (t.graph?.nodes.length ?? 0) > 0;
  return (
    <div class="page trace">
      <header class="page-head">
        <h1>
          <a href={href('/traces')} class="back" aria-label="Back to traces">
            ←
          </a>{' '}
          {t.name} <span class={`status s-${t.status}`}>{t.status}</span>
        </h1>
      </header>
      <dl class="facts">
        <div>
          <dt>Trace</dt>
          <dd class="mono">{t.id}</dd>
        </div>
        <div>
          <dt>Start</dt>
          <dd>{time(t.start)}</dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd>{ms(t.latency_ms)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{int(t.tokens)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{usd(t.cost)}</dd>
        </div>
        <div>
          <dt>Spans</dt>
          <dd>{t.span_count}</dd>
        </div>
        {t.session_id ? (
          <div>
            <dt>Session</dt>
            <dd>
              <a href={href(`/sessions/${encodeURIComponent(t.session_id)}`)}>{t.session_id}</a>
            </dd>
          </div>
        ) : null}
        {t.user_id ? (
          <div>
            <dt>User</dt>
            <dd>{t.user_id}</dd>
          </div>
        ) : null}
        {t.environment ? (
          <div>
            <dt>Environment</dt>
            <dd>{t.environment}</dd>
          </div>
        ) : null}
        {t.tags.length ? (
          <div>
            <dt>Tags</dt>
            <dd>{t.tags.join(', ')}</dd>
          </div>
        ) : null}
      </dl>
      {Object.keys(t.metadata).length ? (
        <details class="metadata">
          <summary>Metadata</summary>
          <Json value={t.metadata} />
        </details>
      ) : null}
      <div class="tabs" role="tablist">
        <a
          role="tab"
          aria-selected={tab === 'timeline'}
          href={href(`/traces/${id}`, { span: opened, tab: 'timeline' })}
        >
          Timeline
        </a>
        {hasGraph ? (
          <a role="tab" aria-selected={tab === 'graph'} href={href(`/traces/${id}`, { span: opened, tab: 'graph' })}>
            Graph
          </a>
        ) : null}
      </div>
      <div class="trace-body">
        {tab === 'graph' && hasGraph ? (
          <GraphView graph={t.graph!} selected={opened} onOpen={(spanId) => open(spanId)} />
        ) : (
          <div class="tree" role="tree" tabIndex={0} onKeyDown={onKey} aria-label="Spans">
            {rows.map(({ span: s, depth, children }) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the tree's onKeyDown moves through its rows and folds them
              <div
                key={s.id}
                role="treeitem"
                tabIndex={-1}
                aria-selected={s.id === opened}
                aria-expanded={children ? !folded.has(s.id) : undefined}
                class={`span-row ${s.id === opened ? 'selected' : ''}`}
                data-span={s.id}
                onClick={() => open(s.id)}
              >
                <span class="label" style={{ paddingLeft: `${depth * 16}px` }}>
                  {children ? (
                    <button
                      type="button"
                      class="fold"
                      aria-label={folded.has(s.id) ? 'Expand' : 'Collapse'}
                      onClick={(e) => {
                        e.stopPropagation();
                        fold(s.id, !folded.has(s.id));
                      }}
                    >
                      {folded.has(s.id) ? '▸' : '▾'}
                    </button>
                  ) : (
                    <span class="fold" />
                  )}
                  <span class={`kind k-${s.span_kind}`}>{s.type === 'GENERATION' ? 'gen' : s.span_kind}</span> {s.name}
                  {s.status === 'ERROR' ? <span class="status s-ERROR">!</span> : null}
                </span>
                <span class="bar-cell">
                  <span
                    class={`bar k-${s.span_kind} ${s.status === 'ERROR' ? 'err' : ''}`}
                    style={{
                      left: `${((Date.parse(s.timestamp) - t0) / total) * 100}%`,
                      width: `${Math.max(0.5, (s.duration_ms / total) * 100)}%`,
                    }}
                  />
                </span>
                <span class="dur">{ms(s.duration_ms)}</span>
              </div>
            ))}
          </div>
        )}
        <aside class="detail">
          {opened ? (
            <SpanPanel traceId={id} spanId={opened} />
          ) : (
            <p class="hint">Open a span (click, or ↑/↓ in the tree) to read its input and output.</p>
          )}
        </aside>
      </div>
      <section class="feedback">
        <h3>Scores</h3>
        {scores.data?.data.length ? (
          <table class="grid small">
            <tbody>
              {scores.data.data.map((s) => (
                <tr key={s.id}>
                  <td>{s.name}</td>
                  <td class="num">{s.label ?? s.score}</td>
                  <td>{s.source}</td>
                  <td>{s.reason ?? ''}</td>
                  <td>{time(s.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="empty">No scores.</p>
        )}
        <h3>Comments</h3>
        {comments.data?.data.length ? (
          <ul class="comments">
            {comments.data.data.map((c) => (
              <li key={c.id}>
                <b>{c.author_user_id ?? 'someone'}</b> <span class="when">{time(c.created_at)}</span>
                <p>{c.content}</p>
              </li>
            ))}
          </ul>
        ) : (
          <p class="empty">No comments.</p>
        )}
      </section>
    </div>
  );
}

/** The opened span, fetched in full (large fields and media come only now). */
function SpanPanel({ traceId, spanId }: { traceId: string; spanId: string }) {
  const span = useLoad(
    () => get<{ data: SpanDetail }>(`/v1/traces/${traceId}/spans/${spanId}`).then((r) => r.data),
    [traceId, spanId],
  );
  if (span.error) return <p class="error">{span.error.message}</p>;
  if (!span.data) return <p class="loading">Loading span…</p>;
  const s = span.data;
  return (
    <section class="span-detail" aria-label={`Span ${s.name}`}>
      <h3>
        {s.name} <span class={`status s-${s.status}`}>{s.status}</span>
      </h3>
      {s.status_message ? <p class="error">{s.status_message}</p> : null}
      <dl class="facts">
        <div>
          <dt>Kind</dt>
          <dd>
            {s.span_kind} ({s.type})
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{ms(s.duration_ms)}</dd>
        </div>
        {s.model ? (
          <div>
            <dt>Model</dt>
            <dd>{s.model}</dd>
          </div>
        ) : null}
        {s.tokens !== null ? (
          <div>
            <dt>Tokens</dt>
            <dd>
              {int(s.input_tokens)} in · {int(s.output_tokens)} out
            </dd>
          </div>
        ) : null}
        {s.cost !== null ? (
          <div>
            <dt>Cost</dt>
            <dd>{usd(s.cost)}</dd>
          </div>
        ) : null}
        {s.prompt_name ? (
          <div>
            <dt>Prompt</dt>
            <dd>{s.prompt_name}</dd>
          </div>
        ) : null}
        {s.service_name ? (
          <div>
            <dt>Service</dt>
            <dd>{s.service_name}</dd>
          </div>
        ) : null}
      </dl>
      <Content label="Input" text={s.input} />
      <Content label="Output" text={s.output} />
      {Object.keys(s.metadata).length ? (
        <details open>
          <summary>Metadata</summary>
          <Json value={s.metadata} />
        </details>
      ) : null}
      <details>
        <summary>Attributes</summary>
        <Json value={s.attributes} />
      </details>
      <details>
        <summary>Resource</summary>
        <Json value={s.resource} />
      </details>
    </section>
  );
}
