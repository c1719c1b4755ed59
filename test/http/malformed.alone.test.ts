/**
 * Integration: every documented route, fed malformed input, answers it as the spec's Errors section
 * says — never a 5xx other than 501 (not available in this mode) or 503 (overloaded), every `/v1`
 * error in the `{error: {code, message}}` shape as JSON, and validation errors with the generic
 * summary and a `details` map of strings. The routes come from docs/openapi.json, so a new route is
 * swept without a change here: odd path values (percent-encoded NUL and slashes, bad escapes, a
 * 3,000-character id, emoji), odd values of every query parameter it documents (empty, negative,
 * exponents, numbers past 64 bits, bad escapes, 5,000 characters) and twice the same parameter, and
 * for bodies: empty, not an object, deeply nested, a 70,000-character value, a lone surrogate and
 * the wrong media type. None of it changes what is stored: the listings of every kind of thing read
 * the same before and after.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor, type Answer } from '../helpers/server.js';
import { storedListing } from '../helpers/sweep.js';
import { exportSpans } from '../helpers/exportSpans.js';

interface Operation {
  parameters?: { name: string; in: string }[];
}
const DOC = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const OPERATOR_TOKEN = `op-${hex(24)}`;

const PATH_VALUES = [
  '%00',
  'a'.repeat(3000),
  '%F0%9F%98%80',
  '..%2F..',
  '%ZZ',
  '00000000-0000-0000-0000-000000000000',
  'ABCDEF0123456789ABCDEF0123456789',
  '%20',
  '-1',
];
const QUERY_VALUES = [
  '',
  '-1',
  '1e3',
  '99999999999999999999',
  '-99999999999999999999',
  '%00',
  'a'.repeat(5000),
  'null',
  '[]',
  '%ZZ',
  '%F0%9F',
  '0.5',
  'NaN',
  '%201',
  '2026-13-45',
];
const BODIES = [
  '',
  'null',
  '[]',
  '"x"',
  '{"a":1}',
  '['.repeat(40) + ']'.repeat(40),
  `{"name":"${'a'.repeat(70_000)}"}`,
  '{"limit":1e308,"value":1e300}',
  '\u0000',
  '{"a":"\\ud800"}',
];
/** Listings of what the sweep could change, read before and after it. */
const LISTINGS = [
  '/v1/apps',
  '/v1/api-keys',
  '/v1/environments',
  '/v1/traces',
  '/v1/spans',
  '/v1/sessions',
  '/v1/scores',
  '/v1/score-configs',
  '/v1/prompts',
  '/v1/evals/runs',
  '/v1/experiments',
  '/v1/workers/runs',
];
const VALIDATION: Record<string, string> = {
  invalid_query_parameters: 'Invalid query parameters',
  invalid_request_body: 'Invalid request body',
  invalid_path_parameters: 'Invalid path parameters',
};

/** What is wrong with an answer, in words (empty: nothing). */
function problems(path: string, a: Answer): string[] {
  const out: string[] = [];
  if (a.status >= 500 && a.status !== 501 && a.status !== 503) out.push(`${a.status}: ${a.text.slice(0, 200)}`);
  if (a.status < 400 || !path.startsWith('/v1')) return out;
  const e = a.body?.error;
  if (typeof e?.code !== 'string' || typeof e?.message !== 'string')
    out.push(`${a.status} not in the error shape: ${a.text.slice(0, 200)}`);
  if (!a.headers.get('content-type')?.startsWith('application/json'))
    out.push(`${a.status} answered as ${a.headers.get('content-type')}`);
  if (e && VALIDATION[e.code] !== undefined) {
    const details = e.details as Record<string, unknown> | undefined;
    if (
      e.message !== VALIDATION[e.code] ||
      typeof details !== 'object' ||
      details === null ||
      Object.values(details).some((v) => typeof v !== 'string')
    ) {
      out.push(`validation error without its summary and details: ${a.text.slice(0, 200)}`);
    }
  }
  return out;
}

t.test('malformed input on every documented route', async (t) => {
  const server = await serverFor(t, {
    args: ['--metrics-listen', 'api'],
    env: { TRACELAKE_OPERATOR_TOKEN: OPERATOR_TOKEN },
  });
  const root = rootCredentials(server);
  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const traceId = hex(16);
  const ingested = await exportSpans(server, root, [{ traceId, name: 'kept' }]);
  t.equal(ingested.status, 200, ingested.text);
  const scored = await call(server, 'POST', '/v1/scores', {
    auth: root,
    body: { name: 'kept', score: 1, resource_id: traceId },
  });
  t.equal(scored.status, 201, scored.text);
  const commented = await call(server, 'POST', '/v1/comments', {
    auth: root,
    body: { resource_type: 'trace', resource_id: traceId, content: 'kept' },
  });
  t.equal(commented.status, 201, commented.text);
  const snapshot = async () => {
    const read: Record<string, unknown> = {};
    for (const path of [...LISTINGS, `/v1/comments?resource_type=trace&resource_id=${traceId}`]) {
      const a = await call(server, 'GET', path, { auth: root });
      read[path] = storedListing(a);
    }
    read['/v1/operator/tenants'] = (await call(server, 'GET', '/v1/operator/tenants', { headers: operator })).body;
    return read;
  };
  const before = await snapshot();
  t.equal((before['/v1/traces'] as { data: unknown[] }).data.length, 1, 'the snapshot sees stored data');
  t.equal((before['/v1/scores'] as { data: unknown[] }).data.length, 1);
  t.equal((before[`/v1/comments?resource_type=trace&resource_id=${traceId}`] as { data: unknown[] }).data.length, 1);
  t.same(
    Object.entries(before).filter(([, v]) => typeof v === 'number'),
    [],
    'every listing answers 200',
  );
  let calls = 0;
  let refused = 0;
  for (const [template, operations] of Object.entries(DOC.paths)) {
    for (const [m, op] of Object.entries(operations)) {
      const method = m.toUpperCase();
      // A stream stays open by design; its parameters are those of the events list beside it.
      if (template.endsWith('/stream')) continue;
      const send = async (path: string, options: { rawBody?: string; headers?: Record<string, string> } = {}) => {
        const a = template.startsWith('/v1/operator/')
          ? await call(server, method, path, { ...options, headers: { ...options.headers, ...operator } })
          : await call(server, method, path, { ...options, auth: root });
        calls++;
        if (a.status >= 400) refused++;
        return problems(path, a).map(
          (p) =>
            `${method} ${path.slice(0, 120)}${options.rawBody !== undefined ? ` body ${JSON.stringify(options.rawBody.slice(0, 24))}` : ''}: ${p}`,
        );
      };
      const found: string[] = [];
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      for (const value of template.includes('{') ? PATH_VALUES : [null]) {
        const path = value === null ? template : template.replace(/\{[^}]+\}/g, value);
        if (method === 'GET' || method === 'DELETE') {
          found.push(...(await send(path)));
          if (value !== null && value !== '%00') continue;
          for (const name of query) {
            // Encoded as a client would, except the escapes meant to be malformed.
            for (const v of QUERY_VALUES)
              found.push(...(await send(`${path}?${name}=${v.startsWith('%') ? v : encodeURIComponent(v)}`)));
            found.push(...(await send(`${path}?${name}=1&${name}=2`)));
          }
        } else {
          for (const body of BODIES)
            found.push(...(await send(path, { rawBody: body, headers: { 'content-type': 'application/json' } })));
          found.push(...(await send(path, { rawBody: '{}', headers: { 'content-type': 'text/plain' } })));
        }
      }
      t.same(found, [], `${method} ${template}`);
    }
  }
  t.ok(calls > 3000, `${calls} calls`);
  t.ok(
    refused > calls * 0.8,
    `most are refused (${refused} of ${calls}): the sweep reaches validation, not only the router`,
  );
  t.same(await snapshot(), before, 'nothing stored changed');
  t.equal((await call(server, 'GET', '/health')).status, 200, 'and the server still serves');
});
