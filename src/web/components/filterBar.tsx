/**
 * The filter bar: the string grammar of the lists, with completion of fields, operators and enum
 * values from `/v1/filter-schema` and of the values a field was seen with in the window (↑/↓ to
 * choose, Tab or Enter to take, Escape to close), and a refused filter shown with a mark at the
 * position the server names.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, type FilterSchema } from '../api.js';
import { windowFrom } from '../format.js';
import { errorPosition, suggest, type Suggestion } from './completion.js';
import { hasValuesSeen, valuesSeen } from './valuesSeen.js';

/** How many times a field's values are asked for again after a failed ask, and the first pause. */
const RETRIES = 3;
const RETRY_MS = 1000;

let schemaOnce: Promise<FilterSchema> | null = null;
function schema(): Promise<FilterSchema> {
  schemaOnce ??= get<{ data: FilterSchema }>('/v1/filter-schema').then((r) => r.data);
  schemaOnce.catch(() => (schemaOnce = null));
  return schemaOnce;
}

interface Props {
  value: string;
  resource: 'traces' | 'spans' | 'scores';
  /** The list's time window (`24h`, `7d`…): values are suggested as seen in it. */
  window: string;
  /** Whether the server offers `/v1/metrics`, where the values seen come from. */
  metrics: boolean;
  /** The server's refusal of the applied filter, if any. */
  error: string | null;
  onApply: (filter: string) => void;
}

export function FilterBar({ value, resource, window, metrics, error, onApply }: Props) {
  const [text, setText] = useState(value);
  const [items, setItems] = useState<Suggestion[]>([]);
  const [from, setFrom] = useState(0);
  const [active, setActive] = useState(0);
  const [loaded, setLoaded] = useState<FilterSchema | null>(null);
  // Values seen by field name, for the current window; a field being asked for maps to [].
  const [seen, setSeen] = useState<Record<string, string[]>>({});
  const input = useRef<HTMLInputElement>(null);
  // Failed asks for a field's values, by field name, since the window last changed.
  const failures = useRef<Record<string, number>>({});
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    schema().then(setLoaded, () => undefined);
  }, []);
  useEffect(() => {
    setSeen({});
    failures.current = {};
  }, [window, resource]);

  const refresh = (t: string) => {
    const caret = input.current?.selectionStart ?? t.length;
    if (!loaded) return setItems([]);
    const s = suggest(t, caret, loaded, resource, seen);
    setFrom(s.from);
    setItems(s.items);
    setActive(0);
    const field = s.valueField;
    if (metrics && resource !== 'scores' && field && !(field.name in seen) && hasValuesSeen(resource, field)) {
      setSeen((known) => ({ ...known, [field.name]: [] }));
      valuesSeen(resource, field, windowFrom(window)).then(
        (values) => setSeen((known) => ({ ...known, [field.name]: values })),
        // A failed ask (the server busy a moment) is forgotten after a pause, so the caret still
        // waiting there, or the next key, asks again; a few times, not forever.
        () => {
          const failed = (failures.current[field.name] ?? 0) + 1;
          failures.current[field.name] = failed;
          if (failed <= RETRIES) setTimeout(() => setSeen(({ [field.name]: _, ...rest }) => rest), RETRY_MS * failed);
        },
      );
    }
  };
  // Values that arrive while the caret waits after an operator are offered there and then.
  useEffect(() => {
    if (document.activeElement === input.current) refresh(text);
  }, [seen]);
  const take = (s: Suggestion) => {
    const caret = input.current?.selectionStart ?? text.length;
    const next = text.slice(0, from) + s.insert + text.slice(caret);
    setText(next);
    setItems([]);
    requestAnimationFrame(() => {
      const at = from + s.insert.length;
      input.current?.setSelectionRange(at, at);
      input.current?.focus();
      // What may follow what was just taken (an operator after a field, a value after an operator).
      refresh(next);
    });
  };
  const onKey = (e: KeyboardEvent) => {
    if (items.length > 0 && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
      e.preventDefault();
    } else if (items.length > 0 && (e.key === 'Tab' || (e.key === 'Enter' && !e.ctrlKey))) {
      take(items[active]!);
      e.preventDefault();
    } else if (e.key === 'Escape') {
      setItems([]);
    } else if (e.key === 'Enter') {
      setItems([]);
      onApply(text.trim());
      e.preventDefault();
    }
  };
  const position = error ? errorPosition(error) : null;
  return (
    <div class="filter">
      <form
        class="filter-row"
        onSubmit={(e) => {
          e.preventDefault();
          setItems([]);
          onApply(text.trim());
        }}
      >
        <input
          ref={input}
          class={error ? 'invalid' : ''}
          value={text}
          placeholder={
            resource === 'spans'
              ? 'e.g. model starts with gpt and tokens > 1000'
              : 'e.g. status = ERROR and (model = gpt-4o or cost > 0.01)'
          }
          aria-label="Filter"
          aria-invalid={error ? 'true' : 'false'}
          spellcheck={false}
          autocomplete="off"
          onInput={(e) => {
            const t = (e.target as HTMLInputElement).value;
            setText(t);
            refresh(t);
          }}
          onFocus={() => refresh(text)}
          onBlur={() => setTimeout(() => setItems([]), 150)}
          onKeyDown={onKey}
        />
        <button type="submit">Apply</button>
        {value ? (
          <button type="button" onClick={() => onApply('')}>
            Clear
          </button>
        ) : null}
      </form>
      {items.length > 0 ? (
        <div class="completions" role="listbox" aria-label="Completions">
          {items.map((s, i) => (
            <div
              key={s.label}
              role="option"
              tabIndex={-1}
              aria-selected={i === active}
              class={i === active ? 'active' : ''}
              onMouseDown={(e) => {
                e.preventDefault();
                take(s);
              }}
            >
              <b>{s.label}</b> <span>{s.detail}</span>
            </div>
          ))}
        </div>
      ) : null}
      {error ? (
        <div class="filter-error" role="alert">
          {position !== null ? (
            <pre class="filter-echo">
              {value.slice(0, position)}
              <mark>
                {value.slice(position, position + Math.max(1, /^\S*/.exec(value.slice(position))![0].length)) || ' '}
              </mark>
              {value.slice(position + Math.max(1, /^\S*/.exec(value.slice(position))![0].length))}
              {'\n'}
              {' '.repeat(position)}^
            </pre>
          ) : null}
          <span class="message">{error}</span>
        </div>
      ) : null}
    </div>
  );
}
