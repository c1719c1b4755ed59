/** src/openapi/html.ts: the reference page rendered from the document. */
import t from 'tap';
import type { OpenApiDocument } from '../../../src/openapi/document.js';
import { escapeHtml, inline, prose, renderReference, typeOf } from '../../../src/openapi/html.js';

t.test('escaping and prose', async (t) => {
  t.equal(escapeHtml(`<a href="x">'&'</a>`), '&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  t.equal(inline('Use `a<b` twice: `x`.'), 'Use <code>a&#60;b</code> twice: <code>x</code>.');
  t.equal(
    prose('**Auth.** Send `key`.\n\nSecond <p>.'),
    '<p><strong>Auth.</strong> Send <code>key</code>.</p>\n<p>Second &#60;p&#62;.</p>',
  );
});

t.test('types in a few words', async (t) => {
  t.equal(typeOf({ $ref: '#/components/schemas/TraceSummary' }), '<a href="#schema-TraceSummary">TraceSummary</a>');
  t.equal(typeOf({ oneOf: [{ type: 'null' }, { type: 'string' }] }), 'null | string');
  t.equal(
    typeOf({ anyOf: [{ const: 'asc' }, { const: 'desc' }] }),
    '<code>&#34;asc&#34;</code> | <code>&#34;desc&#34;</code>',
  );
  t.equal(
    typeOf({ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 11, uniqueItems: true }),
    'string[] (items ≥ 1, items ≤ 11, unique)',
  );
  t.equal(typeOf({ type: 'array' }), 'any[]', 'an array of anything');
  t.equal(typeOf({ type: 'object', additionalProperties: { type: 'string' } }), 'map of string');
  t.equal(typeOf({ type: 'object', additionalProperties: {} }), 'map of any');
  t.equal(typeOf({ type: 'object' }), 'object');
  t.equal(typeOf({ type: 'string', format: 'date-time' }), 'string (date-time)');
  t.equal(
    typeOf({ type: 'string', pattern: '^[0-9a-f]{16}$', minLength: 1, maxLength: 64 }),
    'string (pattern ^[0-9a-f]{16}$, length ≥ 1, length ≤ 64)',
  );
  t.equal(typeOf({ type: 'integer', minimum: 1, maximum: 1000 }), 'integer (≥ 1, ≤ 1000)');
  t.equal(typeOf({}), 'any');
  t.equal(typeOf({ description: 'words only' }), 'any');
});

const DOC: OpenApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'T <api>',
    version: '1.2.3',
    description: 'About `this`.',
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  },
  servers: [],
  tags: [{ name: 'Things & more' }, { name: 'Later' }],
  paths: {
    '/v1/things/{id}': {
      get: {
        tags: ['Things & more'],
        summary: 'One thing',
        description: 'By `id`.',
        operationId: 'getThingsById',
        'x-tracelake-permission': 'trace.read',
        'x-tracelake-surface': ['cloud', 'local'],
        security: [{ apiKey: [], appId: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, description: 'The <id>.', schema: { type: 'string' } },
          { name: 'q', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'The thing.',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Thing' },
                examples: { one: { value: { name: '<b>' } } },
              },
              'text/csv': { schema: { description: 'As CSV.' } },
            },
          },
          '404': { $ref: '#/components/responses/Error404', description: 'Not Found: `not_found`.' },
        },
      },
      delete: {
        tags: ['Things & more'],
        summary: 'Delete it',
        operationId: 'deleteThingsById',
        'x-tracelake-permission': 'admin',
        'x-tracelake-surface': ['cloud'],
        security: [{ apiKey: [], appId: [] }],
        parameters: [],
        requestBody: {
          required: false,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
        },
        responses: { '200': { description: 'Gone.' } },
      },
    },
    '/health': {
      post: {
        tags: ['Things & more'],
        summary: 'Poke',
        operationId: 'postHealth',
        'x-tracelake-permission': 'none',
        security: [],
        parameters: [],
        requestBody: { required: true, content: { 'application/json': { schema: {} } } },
        responses: {},
      },
    },
    '/v1/operator/tenants': {
      get: {
        tags: ['Things & more'],
        summary: 'List tenants',
        operationId: 'getOperatorTenants',
        'x-tracelake-permission': 'operator',
        'x-tracelake-requires': 'operator-token',
        'x-tracelake-surface': ['cloud', 'local'],
        security: [{ operatorToken: [] }],
        parameters: [],
        responses: {},
      },
    },
    '/v1/later': {
      get: {
        tags: ['Later'],
        summary: 'Not built in this version',
        operationId: 'getLater',
        'x-tracelake-implemented': false,
        parameters: [],
        responses: { '501': { $ref: '#/components/responses/Error501', description: 'Always.' } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        description: 'A <thing>.',
        properties: { name: { type: 'string', description: 'Its name.' }, size: { type: 'integer' } },
        required: ['name'],
      },
      Id: { type: 'string', format: 'uuid' },
    },
    responses: {},
    securitySchemes: {},
  },
};

t.test('the page', async (t) => {
  const html = renderReference(DOC);
  t.match(html, /^<!doctype html>/);
  t.match(html, '<title>T &#60;api&#62; 1.2.3</title>');
  t.match(html, '<p>About <code>this</code>.</p>');
  t.notMatch(html, /<script|<link|src=/, 'nothing loaded, nothing run');
  for (const path of ['/v1/things/{id}', '/health', '/v1/later'])
    t.match(html, `<code>${path}</code>`, `names ${path}`);
  t.match(html, '<h2 id="tag-Things-more">Things &#38; more</h2>');
  t.match(html, '<a href="#op-getThingsById">GET /v1/things/{id}</a>', 'the table of contents links each operation');
  t.match(html, 'Needs permission <code>trace.read</code>. Served by: cloud, local.');
  t.match(html, 'Needs no credentials. Served by: .', 'an operation without a surface list');
  t.match(
    html,
    'Needs the operator token (served only when <code>TRACELAKE_OPERATOR_TOKEN</code> is set). Served by: cloud, local.',
    'an operation of the operator API',
  );
  t.match(html, 'Not built in this version: 501 <code>not_implemented</code>.');
  t.match(html, '<td><code>id</code></td><td>path</td><td>string</td><td>yes</td><td>The &#60;id&#62;.</td>');
  t.match(html, '<td><code>q</code></td><td>query</td><td>string</td><td>no</td><td></td>');
  t.match(html, 'Example <code>one</code></p><pre>{\n  &#34;name&#34;: &#34;&#60;b&#62;&#34;\n}</pre>');
  t.match(html, '<p><code>text/csv</code>: any — As CSV.</p>');
  t.match(
    html,
    '<td>404</td><td>Not Found: <code>not_found</code>.</td><td><a href="#schema-ErrorBody">ErrorBody</a></td>',
    'an error answer shows the error shape',
  );
  t.match(
    html,
    '<li><a href="#tag-Later"><strong>Later</strong></a><ul><li><a href="#op-getLater">GET /v1/later</a></li></ul></li>',
    'the contents group operations by tag',
  );
  t.match(html, '<h4>Request body (optional)</h4>');
  t.match(html, '<h4>Request body</h4><p><code>application/json</code>: any</p>');
  t.match(html, '<section id="schema-Thing"><h3>Thing</h3><p>A &#60;thing&#62;.</p><table>');
  t.match(html, '<td><code>name</code></td><td>string</td><td>yes</td><td>Its name.</td>');
  t.match(html, '<td><code>size</code></td><td>integer</td><td>no</td><td></td>');
  t.match(html, '<section id="schema-Id"><h3>Id</h3><p>string (uuid)</p></section>');
});
