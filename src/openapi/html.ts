/**
 * The API reference as one self-contained HTML page, rendered from the OpenAPI document: no
 * scripts, no stylesheet or font fetched, so it works offline and under a strict CSP. Pure.
 */
import type { MediaType, OpenApiDocument, Operation, Parameter, Response, Schema } from './document.js';

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1d2330}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f4f5f8;padding:.6rem;overflow-x:auto}
table{border-collapse:collapse;margin:.4rem 0 1rem}td,th{border-bottom:1px solid #dde;padding:.2rem .6rem;text-align:left;vertical-align:top}
section.op{border-top:1px solid #ccd;margin-top:1.5rem}.method{font-weight:700;text-transform:uppercase;margin-right:.4rem}
.meta{color:#556}nav>ul{columns:3}nav li{break-inside:avoid}nav ul ul{padding-left:1rem;list-style:none}`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The little Markdown the document's prose uses: paragraphs, `code` and **bold**. */
export function prose(text: string): string {
  return text
    .split(/\n{2,}/)
    .map(
      (p) =>
        `<p>${escapeHtml(p)
          .replace(/`([^`]+)`/g, '<code>$1</code>')
          .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')}</p>`,
    )
    .join('\n');
}

/** One line of the document's words: escaped, with `code`. */
export function inline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const REF = '#/components/schemas/';

/** A schema in a few words: `string (date-time)`, `integer, ≥ 1, ≤ 1000`, `TraceSummary[]`, a link for a named schema. */
export function typeOf(s: Schema): string {
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace(REF, '');
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (alternatives) return alternatives.map(typeOf).join(' | ');
  if ('const' in s) return `<code>${escapeHtml(JSON.stringify(s.const))}</code>`;
  if (s.type === 'array') return `${typeOf((s.items ?? {}) as Schema)}[]${bounds(s)}`;
  if (s.type === 'object' && typeof s.additionalProperties === 'object')
    return `map of ${typeOf(s.additionalProperties as Schema)}`;
  if (typeof s.type === 'string') return `${s.type}${bounds(s)}`;
  return 'any';
}

const BOUNDS: readonly [string, string][] = [
  ['format', ''],
  ['pattern', 'pattern '],
  ['minimum', '≥ '],
  ['maximum', '≤ '],
  ['minLength', 'length ≥ '],
  ['maxLength', 'length ≤ '],
  ['minItems', 'items ≥ '],
  ['maxItems', 'items ≤ '],
];

function bounds(s: Schema): string {
  const parts = BOUNDS.filter(([key]) => s[key] !== undefined).map(
    ([key, label]) => `${label}${escapeHtml(String(s[key]))}`,
  );
  if (s.uniqueItems === true) parts.push('unique');
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  return `<table><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</table>`;
}

function media(content: Record<string, MediaType> | undefined): string {
  return Object.entries(content ?? {})
    .map(([type, m]) => {
      const examples = Object.entries(m.examples ?? {}).map(
        ([name, e]) =>
          `<p class="meta">Example <code>${escapeHtml(name)}</code></p><pre>${escapeHtml(JSON.stringify(e.value, null, 2))}</pre>`,
      );
      const described = typeof m.schema.description === 'string' ? ` — ${inline(m.schema.description)}` : '';
      return `<p><code>${escapeHtml(type)}</code>: ${typeOf(m.schema)}${described}</p>${examples.join('')}`;
    })
    .join('');
}

function parameters(list: readonly Parameter[]): string {
  return table(
    ['Parameter', 'In', 'Type', 'Required', 'Meaning'],
    list.map((p) => [
      `<code>${escapeHtml(p.name)}</code>`,
      p.in,
      typeOf(p.schema),
      p.required ? 'yes' : 'no',
      inline(p.description ?? ''),
    ]),
  );
}

function responses(list: Record<string, Response>): string {
  const rows = Object.entries(list).map(([status, r]) => [
    status,
    inline(r.description),
    r.$ref ? typeOf({ $ref: `${REF}ErrorBody` }) : media(r.content),
  ]);
  return table(['Status', 'When', 'Body'], rows);
}

function meta(op: Operation): string {
  if (op['x-tracelake-implemented'] === false) return 'Not built in this version: 501 <code>not_implemented</code>.';
  const who =
    op.security?.length === 0
      ? 'no credentials'
      : op['x-tracelake-requires'] === 'operator-token'
        ? 'the operator token (served only when <code>TRACELAKE_OPERATOR_TOKEN</code> is set)'
        : `permission <code>${escapeHtml(String(op['x-tracelake-permission']))}</code>`;
  return `Needs ${who}. Served by: ${(op['x-tracelake-surface'] ?? []).join(', ')}.`;
}

function operation(path: string, method: string, op: Operation): string {
  const body = op.requestBody
    ? `<h4>Request body${op.requestBody.required ? '' : ' (optional)'}</h4>${media(op.requestBody.content)}`
    : '';
  return `<section class="op" id="op-${op.operationId}">
<h3><span class="method">${method}</span><code>${escapeHtml(path)}</code></h3>
<p>${inline(op.summary)}</p>${op.description ? prose(op.description) : ''}
<p class="meta">${meta(op)}</p>
${parameters(op.parameters)}${body}<h4>Responses</h4>${responses(op.responses)}
</section>`;
}

function schema(name: string, s: Schema): string {
  const properties = Object.entries((s.properties ?? {}) as Record<string, Schema>);
  const required = (s.required ?? []) as string[];
  const rows = properties.map(([p, ps]) => [
    `<code>${escapeHtml(p)}</code>`,
    typeOf(ps),
    required.includes(p) ? 'yes' : 'no',
    inline(typeof ps.description === 'string' ? ps.description : ''),
  ]);
  const shape = properties.length > 0 ? table(['Field', 'Type', 'Required', 'Meaning'], rows) : `<p>${typeOf(s)}</p>`;
  const described = typeof s.description === 'string' ? `<p>${inline(s.description)}</p>` : '';
  return `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${described}${shape}</section>`;
}

export function renderReference(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );
  const byTag = doc.tags.map(({ name }) => ({
    name,
    id: `tag-${escapeHtml(name.replace(/\W+/g, '-'))}`,
    ops: operations.filter((o) => o.op.tags[0] === name),
  }));
  const sections = byTag.map(
    ({ name, id, ops }) =>
      `<h2 id="${id}">${escapeHtml(name)}</h2>${ops.map((o) => operation(o.path, o.method, o.op)).join('\n')}`,
  );
  const toc = byTag
    .map(
      ({ name, id, ops }) =>
        `<li><a href="#${id}"><strong>${escapeHtml(name)}</strong></a><ul>${ops.map((o) => `<li><a href="#op-${o.op.operationId}">${o.method.toUpperCase()} ${escapeHtml(o.path)}</a></li>`).join('')}</ul></li>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} ${escapeHtml(doc.info.version)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
${prose(doc.info.description)}
<p>The machine-readable document: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI ${escapeHtml(doc.openapi)}).</p>
<nav><ul>${toc}</ul></nav>
${sections.join('\n')}
<h2 id="schemas">Schemas</h2>
${Object.entries(doc.components.schemas)
  .map(([name, s]) => schema(name, s))
  .join('\n')}
</body></html>
`;
}
