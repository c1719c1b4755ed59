/**
 * One session as a conversation: its traces oldest first, each turn's input and output as chat
 * bubbles (the last user message of a message list, and the answer), each turn linking to its trace.
 */
import { get, query, type Page, type TraceSummary } from '../api.js';
import { ms, time, usd } from '../format.js';
import { useLoad } from '../hooks.js';
import { href, type Location } from '../router.js';

/** The words of a preview: the last user message when it is a message list, else the text. */
function said(preview: string | null, role: 'user' | 'assistant'): string | null {
  if (!preview) return null;
  try {
    const v = JSON.parse(preview) as unknown;
    const list = Array.isArray(v) ? v : (v as { messages?: unknown[] })?.messages;
    if (Array.isArray(list)) {
      const mine = list.filter((m) => (m as { role?: string }).role === role || role === 'assistant');
      const last = mine[mine.length - 1] as { content?: unknown } | undefined;
      if (typeof last?.content === 'string') return last.content;
    }
    if (typeof v === 'string') return v;
  } catch {
    // A preview is often plain text, or cut off in the middle of its JSON.
  }
  return preview;
}

export function SessionPage({ params }: { loc: Location; params: Record<string, string> }) {
  const id = params.sessionId!;
  const page = useLoad(
    () => get<Page<TraceSummary>>(`/v1/sessions/${encodeURIComponent(id)}/traces${query({ limit: 200 })}`),
    [id],
  );
  if (page.error)
    return (
      <div class="page">
        <p class="error" role="alert">
          {page.error.status === 404 ? `No session ${id} here.` : page.error.message}
        </p>
      </div>
    );
  if (!page.data)
    return (
      <div class="page">
        <p class="loading">Loading…</p>
      </div>
    );
  const turns = [...page.data.data].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  const cost = turns.reduce((n, t) => n + t.cost, 0);
  return (
    <div class="page session">
      <header class="page-head">
        <h1>
          <a href={href('/sessions')} class="back" aria-label="Back to sessions">
            ←
          </a>{' '}
          Session {id}
        </h1>
        <span class="summary">
          {page.data.pagination.total} traces · {usd(cost)}
        </span>
      </header>
      <section class="conversation" aria-label="Conversation">
        {turns.map((t) => (
          <article key={t.id} class="turn">
            <header>
              <a href={href(`/traces/${t.id}`)}>{t.name}</a> <span class="when">{time(t.start)}</span>{' '}
              <span class={`status s-${t.status}`}>{t.status}</span> <span class="when">{ms(t.latency_ms)}</span>
            </header>
            {said(t.input_preview, 'user') ? (
              <div class="bubble role-user">
                <span class="role">user</span>
                <p>{said(t.input_preview, 'user')}</p>
              </div>
            ) : null}
            {said(t.output_preview, 'assistant') ? (
              <div class="bubble role-assistant">
                <span class="role">assistant</span>
                <p>{said(t.output_preview, 'assistant')}</p>
              </div>
            ) : null}
          </article>
        ))}
      </section>
    </div>
  );
}
