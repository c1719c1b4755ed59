/**
 * Span input and output as people read them: chat messages when the text is a message list (OpenAI,
 * GenAI semantic conventions, Vercel AI SDK shapes), images for media objects (`{mimeType, base64}`),
 * otherwise the JSON or the text itself.
 */
import type { ComponentChildren } from 'preact';

interface Message {
  role: string;
  parts: ComponentChildren[];
}

function parse(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isMedia(v: unknown): v is { mimeType?: string; mediaType?: string; base64?: string; sha256?: string } {
  return !!v && typeof v === 'object' && ('mimeType' in v || 'mediaType' in v) && ('base64' in v || 'sha256' in v);
}

function media(
  v: { mimeType?: string; mediaType?: string; base64?: string; sha256?: string },
  key: string,
): ComponentChildren {
  const type = v.mimeType ?? v.mediaType ?? 'application/octet-stream';
  if (v.base64 && type.startsWith('image/'))
    return <img key={key} class="media" src={`data:${type};base64,${v.base64}`} alt={`${type} output`} />;
  return (
    <span key={key} class="media-ref">
      {type} {v.sha256 ? `sha256:${v.sha256.slice(0, 12)}…` : ''}
    </span>
  );
}

/** The parts of a message's content: text, images, anything else as JSON. */
function partsOf(content: unknown): ComponentChildren[] {
  if (typeof content === 'string') return [<p key="t">{content}</p>];
  if (isMedia(content)) return [media(content, 'm')];
  if (Array.isArray(content)) {
    return content.map((c, i) => {
      if (typeof c === 'string') return <p key={i}>{c}</p>;
      if (isMedia(c)) return media(c, String(i));
      const o = c as Record<string, unknown>;
      if (typeof o.text === 'string') return <p key={i}>{o.text}</p>;
      if (typeof o.content === 'string') return <p key={i}>{o.content}</p>;
      if (isMedia(o.image) || isMedia(o.data)) return media((o.image ?? o.data) as never, String(i));
      return <Json key={i} value={c} />;
    });
  }
  if (content && typeof content === 'object') {
    const o = content as Record<string, unknown>;
    if (typeof o.text === 'string') return [<p key="t">{o.text}</p>];
  }
  return content === undefined || content === null ? [] : [<Json key="j" value={content} />];
}

function asMessages(v: unknown): Message[] | null {
  const list = Array.isArray(v)
    ? v
    : v && typeof v === 'object' && Array.isArray((v as { messages?: unknown }).messages)
      ? (v as { messages: unknown[] }).messages
      : null;
  if (!list || list.length === 0) return null;
  if (!list.every((m) => m && typeof m === 'object' && typeof (m as { role?: unknown }).role === 'string')) return null;
  return list.map((m) => {
    const o = m as { role: string; content?: unknown; parts?: unknown; tool_calls?: unknown };
    const parts = partsOf(o.content ?? o.parts);
    if (o.tool_calls) parts.push(<Json key="calls" value={o.tool_calls} />);
    return { role: o.role, parts };
  });
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** One side of a span (input or output). */
export function Content({ text, label }: { text: string | null; label: string }) {
  if (text === null || text === '') return null;
  const v = parse(text);
  const messages = asMessages(v);
  return (
    <section class="content" aria-label={label}>
      <h4>{label}</h4>
      {messages ? (
        <div class="chat">
          {messages.map((m, i) => (
            <div key={i} class={`bubble role-${m.role}`}>
              <span class="role">{m.role}</span>
              {m.parts}
            </div>
          ))}
        </div>
      ) : typeof v === 'string' ? (
        <p class="text">{v}</p>
      ) : isMedia(v) || (v && typeof v === 'object' && Object.values(v as object).some(isMedia)) ? (
        <div class="chat">{partsOf(isMedia(v) ? v : Object.values(v as object))}</div>
      ) : (
        <Json value={v} />
      )}
    </section>
  );
}
