/**
 * One prompt: every version with the labels on it and what the spans naming it used over the window
 * (spans, traces, tokens, cost, latency, average scores of the spans and of their traces), and the
 * opened version (`?version=`, the latest by default): its template with the variables marked, model
 * configuration, origin, and a form that renders it with values through the API.
 */
import { useState } from 'preact/hooks';
import {
  type ApiFailure,
  get,
  post,
  query,
  type ChatMessage,
  type Page,
  type PromptSummary,
  type PromptVersion,
  type PromptVersionMetrics,
  type ScoreAverage,
} from '../api.js';
import { Json } from '../components/messages.js';
import { Table, WindowSelect, type Column } from '../components/table.js';
import { int, ms, time, usd, windowFrom } from '../format.js';
import { useLoadOf } from '../hooks.js';
import { href, navigate, type Location } from '../router.js';
import { LabelChips, promptPath } from './prompts.js';

interface VersionRow {
  version: number | null;
  labels: Record<string, number>;
  usage: PromptVersionMetrics | undefined;
}

function averages(list: ScoreAverage[] | undefined) {
  if (!list?.length) return '';
  return list.map((s) => `${s.name} ${s.avg_score.toFixed(2)} (${s.count})`).join(', ');
}

function columns(opened: number): Column<VersionRow>[] {
  return [
    {
      key: 'version',
      title: 'Version',
      render: (r) =>
        r.version === null ? (
          <span class="hint">no version</span>
        ) : (
          <span class="name" aria-current={r.version === opened ? 'true' : undefined}>
            v{r.version}
            {r.version === opened ? ' ◂' : ''}
          </span>
        ),
    },
    { key: 'labels', title: 'Labels', render: (r) => <LabelChips labels={r.labels} /> },
    { key: 'spans', title: 'Spans', numeric: true, render: (r) => int(r.usage?.spans ?? 0) },
    { key: 'traces', title: 'Traces', numeric: true, render: (r) => int(r.usage?.traces ?? 0) },
    {
      key: 'tokens',
      title: 'Tokens in / out',
      numeric: true,
      render: (r) => (r.usage ? `${int(r.usage.input_tokens)} / ${int(r.usage.output_tokens)}` : '–'),
    },
    { key: 'cost', title: 'Cost', numeric: true, render: (r) => (r.usage ? usd(r.usage.cost) : '–') },
    {
      key: 'latency',
      title: 'Latency avg · p50 · p95',
      numeric: true,
      render: (r) =>
        r.usage ? `${ms(r.usage.latency_ms.avg)} · ${ms(r.usage.latency_ms.p50)} · ${ms(r.usage.latency_ms.p95)}` : '–',
    },
    { key: 'scores', title: 'Span scores', render: (r) => averages(r.usage?.scores) },
    { key: 'trace_scores', title: 'Trace scores', render: (r) => averages(r.usage?.trace_scores) },
  ];
}

/** A template with its `{{…}}` expressions marked. */
function Marked({ text }: { text: string }) {
  return (
    <>
      {text.split(/(\{\{[^}]*\}\})/).map((part, i) =>
        i % 2 ? (
          <mark key={i} class="var">
            {part}
          </mark>
        ) : (
          part
        ),
      )}
    </>
  );
}

function Template({ prompt, label }: { prompt: string | ChatMessage[]; label: string }) {
  return (
    <section class="content" aria-label={label}>
      <h4>{label}</h4>
      {typeof prompt === 'string' ? (
        <pre class="template">
          <Marked text={prompt} />
        </pre>
      ) : (
        <div class="chat">
          {prompt.map((m, i) => (
            <div key={i} class={`bubble role-${m.role}`}>
              <span class="role">{m.role}</span>
              <p>
                <Marked text={m.content} />
              </p>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** Values for the variables, rendered by the server (its strict rules: a missing variable is refused). */
function RenderForm({ version }: { version: PromptVersion }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<{ prompt: string | ChatMessage[] } | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await post<{ data: { prompt: string | ChatMessage[] } }>(
        `/v1/prompts/${encodeURIComponent(version.name)}/render`,
        { version: version.version, variables: values },
      );
      setAnswer(r.data);
    } catch (err) {
      setAnswer(null);
      setError(err as ApiFailure);
    }
  };
  return (
    <form class="render" onSubmit={submit} aria-label="Render">
      <h4>Render</h4>
      {version.variables.map((v) => (
        <label key={v}>
          <span class="mono">{v}</span>
          <input
            name={v}
            value={values[v] ?? ''}
            onInput={(e) => setValues({ ...values, [v]: (e.target as HTMLInputElement).value })}
          />
        </label>
      ))}
      <button type="submit">Render v{version.version}</button>
      {error ? (
        <p class="error" role="alert">
          {error.message}
          {error.details
            ? `: ${Object.entries(error.details)
                .map(([k, m]) => `${k} ${m}`)
                .join('; ')}`
            : ''}
        </p>
      ) : null}
      {answer ? <Template prompt={answer.prompt} label="Rendered" /> : null}
    </form>
  );
}

function VersionDetail({ version }: { version: PromptVersion }) {
  return (
    <section class="detail prompt-version" aria-label={`Version ${version.version}`}>
      <h3>
        v{version.version}{' '}
        <span class="labels">
          {version.labels.map((l) => (
            <span key={l} class={`label l-${l}`}>
              {l}
            </span>
          ))}
        </span>
      </h3>
      <dl class="facts">
        <div>
          <dt>Created</dt>
          <dd>{time(version.created_at)}</dd>
        </div>
        {version.created_by ? (
          <div>
            <dt>By</dt>
            <dd>{version.created_by}</dd>
          </div>
        ) : null}
        <div>
          <dt>Source</dt>
          <dd>
            {version.source === 'git'
              ? `${version.source_path ?? 'git'} @ ${version.commit_sha?.slice(0, 10) ?? ''}`
              : 'API'}
          </dd>
        </div>
        {version.commit_message ? (
          <div>
            <dt>Message</dt>
            <dd>{version.commit_message}</dd>
          </div>
        ) : null}
        <div>
          <dt>Variables</dt>
          <dd class="mono">{version.variables.length ? version.variables.join(', ') : 'none'}</dd>
        </div>
      </dl>
      <Template prompt={version.prompt} label="Template" />
      {Object.keys(version.config).length ? (
        <section class="content" aria-label="Configuration">
          <h4>Configuration</h4>
          <Json value={version.config} />
        </section>
      ) : null}
      <RenderForm key={`${version.name}@${version.version}`} version={version} />
    </section>
  );
}

export function PromptPage({ loc, params }: { loc: Location; params: Record<string, string> }) {
  const name = params.name!;
  const window = loc.query.get('window') ?? '7d';
  const wanted = loc.query.get('version');
  const summary = useLoadOf(name, () =>
    get<Page<PromptSummary>>(`/v1/prompts${query({ name, limit: 1 })}`).then((r) => r.data[0] ?? null),
  );
  const latest = summary.data?.latest_version;
  const opened = wanted ? Number(wanted) : latest;
  const version = useLoadOf(`${name}\n${opened}`, () =>
    opened === undefined
      ? Promise.resolve(null)
      : get<{ data: PromptVersion }>(`/v1/prompts/${encodeURIComponent(name)}${query({ version: opened })}`).then(
          (r) => r.data,
        ),
  );
  const usage = useLoadOf(`${name}\n${window}`, () =>
    get<{ data: PromptVersionMetrics[] }>(
      `/v1/prompts/${encodeURIComponent(name)}/metrics${query({ start_date: windowFrom(window) })}`,
    ).then((r) => r.data),
  );
  const go = (patch: Record<string, string | number | null>) =>
    navigate(promptPath(name), { window, version: wanted, ...patch });

  if (summary.error)
    return (
      <div class="page">
        <p class="error" role="alert">
          {summary.error.message}
        </p>
      </div>
    );
  if (summary.loading)
    return (
      <div class="page">
        <p class="loading">Loading…</p>
      </div>
    );
  const p = summary.data;
  if (!p)
    return (
      <div class="page">
        <p class="error" role="alert">
          No prompt {name} here.
        </p>
      </div>
    );
  const byVersion = new Map((usage.data ?? []).map((u) => [u.version, u]));
  const labelsOf = (v: number) => Object.fromEntries(Object.entries(p.labels).filter(([, at]) => at === v));
  const rows: VersionRow[] = [...p.versions]
    .sort((a, b) => b - a)
    .map((v) => ({ version: v, labels: labelsOf(v), usage: byVersion.get(v) }));
  if (byVersion.has(null)) rows.push({ version: null, labels: {}, usage: byVersion.get(null) });
  return (
    <div class="page prompt">
      <header class="page-head">
        <h1>
          <a href={href('/prompts')} class="back" aria-label="Back to prompts">
            ←
          </a>{' '}
          {p.name} <span class="kind">{p.type}</span>
        </h1>
        <WindowSelect value={window} onChange={(w) => go({ window: w })} />
      </header>
      <h2 class="section">Versions and their use</h2>
      {usage.error ? <p class="error">Usage: {usage.error.message}</p> : null}
      <Table
        label="Versions"
        columns={columns(opened ?? -1)}
        rows={rows}
        rowKey={(r) => String(r.version ?? 'none')}
        onOpen={(r) => r.version !== null && go({ version: r.version })}
      />
      <p class="hint">
        Usage counts spans naming the prompt (tracelake.prompt.name / .version, or Langfuse's) that started in the
        window.
      </p>
      {version.error ? (
        <p class="error" role="alert">
          {version.error.message}
        </p>
      ) : version.data ? (
        <VersionDetail version={version.data} />
      ) : (
        <p class="loading">Loading…</p>
      )}
    </div>
  );
}
