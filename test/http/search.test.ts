/**
 * Integration: the filter language and search over ingested data — each operator on each field
 * type, OR-groups, metadata keys, windows, pagination, sorting, CSV, limits and errors, and a filter
 * never reaching another app's data.
 */
import t from 'tap';
import { exportRequest, hex, type SpanSpec } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

const HOUR = 3_600_000;

interface Fixture {
  traceId: string;
  ageMs: number;
  spans: Omit<SpanSpec, 'traceId'>[];
}

/** An export request whose spans start `ageMs` ago. */
function aged(f: Fixture) {
  const req = exportRequest(f.spans.map((s) => ({ ...s, traceId: f.traceId })));
  const start = BigInt(Date.now() - f.ageMs) * 1_000_000n;
  req.resourceSpans[0]!.scopeSpans[0]!.spans.forEach((s, i) => {
    s.startTimeUnixNano = String(start + BigInt(i) * 1_000_000n);
    s.endTimeUnixNano = String(start + BigInt(i) * 1_000_000n + BigInt((i + 1) * 250) * 1_000_000n);
  });
  return req;
}

async function ingest(server: TestServer, auth: Credentials, fixtures: Fixture[]) {
  for (const f of fixtures) {
    const r = await call(server, 'POST', '/v1/traces', {
      rawBody: JSON.stringify(aged(f)),
      headers: { authorization: auth.key, 'x-service-app-id': auth.appId, 'content-type': 'application/json' },
    });
    if (r.status !== 200 || Object.keys(r.body).length > 0) throw new Error(`ingest failed: ${r.status} ${r.text}`);
  }
}

t.test('filters and search', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const sdk = await createKey(server, root, { name: 'sdk', role: 'SDK' });

  const A = hex(16),
    B = hex(16),
    C = hex(16),
    D = hex(16),
    OLD = hex(16);
  const llm = (
    model: string,
    input: number,
    output: number,
    extra: Record<string, string | number | boolean> = {},
  ) => ({
    name: `chat ${model}`,
    attributes: {
      'gen_ai.request.model': model,
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output,
      'gen_ai.operation.name': 'chat',
      ...extra,
    },
  });
  await ingest(server, sdk, [
    {
      traceId: A,
      ageMs: 1 * HOUR,
      spans: [
        {
          name: 'checkout',
          attributes: {
            'session.id': 's-1',
            'user.id': 'alice',
            'tracelake.metadata.customer': 'acme',
            'tracelake.metadata.plan': 'gold',
            'tracelake.tags': 'x',
          },
        },
        llm('gpt-4o-mini', 1000, 100, { 'tracelake.prompt.name': 'checkout-v2', 'tracelake.metadata.step': 'pay' }),
      ],
    },
    {
      traceId: B,
      ageMs: 2 * HOUR,
      spans: [
        {
          name: 'search',
          attributes: {
            'session.id': 's-1',
            'user.id': 'bob',
            'tracelake.metadata.customer': "o'brien; DROP TABLE spans; --",
          },
        },
        llm('gpt-4o', 2000, 500),
        { name: 'lookup', attributes: { 'openinference.span.kind': 'TOOL' } },
      ],
    },
    {
      traceId: C,
      ageMs: 3 * HOUR,
      spans: [{ name: 'search', attributes: { 'user.id': 'carol' } }, llm('claude-3-5-sonnet-20241022', 300, 30)],
    },
    { traceId: D, ageMs: 4 * HOUR, spans: [{ name: 'healthcheck' }] },
    { traceId: OLD, ageMs: 10 * 24 * HOUR, spans: [{ name: 'search', attributes: { 'user.id': 'alice' } }] },
  ]);

  const list = async (filter: string, extra = '') => {
    const r = await call(server, 'GET', `/v1/traces?filter=${encodeURIComponent(filter)}${extra}`, { auth: root });
    t.equal(r.status, 200, `${filter}: ${r.text.slice(0, 200)}`);
    return (r.body.data as { id: string }[]).map((x) => x.id).sort();
  };
  const ids = (...xs: string[]) => xs.sort();

  t.test('string fields', async (t) => {
    t.same(await list('name = search'), ids(B, C), 'bare value; OLD is outside the default 7-day window');
    t.same(await list('name != search'), ids(A, D));
    t.same(await list("name contains 'eck'"), ids(A, D));
    t.same(await list('name not contains ch'), ids());
    t.same(await list('name starts with "che"'), ids(A));
    t.same(await list("name ends with 'heck'"), ids(D));
    t.same(await list('name in (checkout, healthcheck)'), ids(A, D));
    t.same(await list('name not in (checkout, healthcheck)'), ids(B, C));
    t.same(await list('user_id = alice'), ids(A));
    t.same(await list('session_id exists'), ids(A, B));
    t.same(await list('session_id does not exist'), ids(C, D));
  });

  t.test('numbers, enums, dates, tags', async (t) => {
    t.same(await list('tokens > 1100'), ids(B));
    t.same(await list('tokens >= 1100'), ids(A, B));
    t.same(await list('tokens < 1100 and tokens > 0'), ids(C));
    t.same(await list('span_count = 3'), ids(B));
    t.same(await list('cost > 0.0001'), ids(A, B, C));
    t.same(await list('status = OK'), ids(A, B, C, D));
    t.same(await list('status = error'), ids(), 'enum values in any case');
    t.same(await list(`start > "${new Date(Date.now() - 2.5 * HOUR).toISOString()}"`), ids(A, B));
    t.same(await list('tags contains x'), ids(A));
    t.same(await list('latency_ms >= 0'), ids(A, B, C, D));
    // Numbers past the 64-bit integer range compare like any other number (they were a 500).
    t.same(await list('cost < 1e300'), ids(A, B, C, D));
    t.same(await list('cost > 1e300'), ids());
    t.same(await list('latency_ms < 99999999999999999999'), ids(A, B, C, D));
    t.same(await list('latency_ms > -99999999999999999999 and latency_ms > 99999999999999999999'), ids());
  });

  t.test('span-level fields match a trace when any span matches', async (t) => {
    t.same(await list('model = gpt-4o'), ids(B));
    t.same(await list('model starts with gpt'), ids(A, B));
    t.same(await list('span_kind = tool'), ids(B));
    t.same(await list('prompt_name = checkout-v2'), ids(A));
    t.same(await list('service_name = hand-made'), ids(A, B, C, D));
  });

  t.test('metadata keys', async (t) => {
    t.same(await list('metadata.customer = acme'), ids(A));
    // A trace's metadata is its root span's (the first span of each fixture): `step` is on a child.
    t.same(await list('metadata.step exists'), [], "a child's key is not the trace's");
    t.same(await list('any_span.metadata.step exists'), ids(A), 'the "any span" form finds it');
    t.same(await list('metadata.customer does not exist'), ids(C, D), 'negations test the trace-level metadata too');
    t.same(
      await list('any_span.metadata.customer does not exist'),
      ids(A, B, C, D),
      'any span: some span of each trace lacks the key',
    );
    t.same(await list('metadata.customer exists'), ids(A, B));
    const opened = await call(server, 'GET', `/v1/traces/${A}`, { auth: root });
    t.same(
      opened.body.data.metadata,
      { customer: 'acme', plan: 'gold' },
      'the metadata a trace read answers is the one trace filters test',
    );
    t.same(
      await list(`metadata.customer = "o'brien; DROP TABLE spans; --"`),
      ids(B),
      'SQL in a value matches literally',
    );
    t.same(await list('metadata.plan contains ol'), ids(A));
    t.same(await list('name = checkout'), ids(A), 'and the table is still there');
  });

  t.test('OR-groups and AND', async (t) => {
    t.same(await list('(name = checkout or name = healthcheck)'), ids(A, D));
    t.same(await list('(model = gpt-4o or user_id = carol) and name = search'), ids(B, C));
    t.same(
      await list('(MODEL = gpt-4o OR user_id = carol) AND name = search'.replace('MODEL', 'model')),
      ids(B, C),
      'keywords are case-insensitive',
    );
  });

  t.test('windows, pagination and sorting', async (t) => {
    const week = `&start_date=${new Date(Date.now() - 30 * 24 * HOUR).toISOString()}`;
    t.same(await list('name = search', week), ids(B, C, OLD), 'a wider window finds the old trace');
    const page1 = await call(server, 'GET', '/v1/traces?limit=2&sort_by=tokens&sort_order=desc', { auth: root });
    t.same(page1.body.pagination, { total: 4, limit: 2, offset: 0 });
    t.same(
      page1.body.data.map((x: { id: string }) => x.id),
      [B, A],
    );
    const page2 = await call(server, 'GET', '/v1/traces?limit=2&offset=2&sort_by=tokens&sort_order=desc', {
      auth: root,
    });
    t.same(
      page2.body.data.map((x: { id: string }) => x.id),
      [C, D],
    );
    const past = await call(server, 'GET', '/v1/traces?limit=2&offset=10', { auth: root });
    t.same(
      past.body,
      { data: [], pagination: { total: 4, limit: 2, offset: 10 } },
      'a page past the end still knows the total',
    );
    const pastSpans = await call(server, 'GET', '/v1/spans?type=GENERATION&offset=100', { auth: root });
    t.same(pastSpans.body, { data: [], pagination: { total: 3, limit: 50, offset: 100 } });
    const asc = await call(server, 'GET', '/v1/traces?sort_by=start&sort_order=asc', { auth: root });
    t.same(
      asc.body.data.map((x: { id: string }) => x.id),
      [D, C, B, A],
    );
    const tie1 = await call(server, 'GET', '/v1/traces?sort_by=status', { auth: root });
    const tie2 = await call(server, 'GET', '/v1/traces?sort_by=status', { auth: root });
    t.same(tie1.body.data, tie2.body.data, 'ties sort the same every time');
    const bad = await call(
      server,
      'GET',
      `/v1/traces?start_date=${new Date(Date.now() - 91 * 24 * HOUR).toISOString()}`,
      { auth: root },
    );
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'invalid_time_window');
    const reversed = await call(
      server,
      'GET',
      `/v1/traces?start_date=${new Date().toISOString()}&end_date=${new Date(Date.now() - HOUR).toISOString()}`,
      { auth: root },
    );
    t.equal(reversed.body.error.code, 'invalid_time_window');
    t.equal((await call(server, 'GET', '/v1/traces?limit=1001', { auth: root })).status, 400);
    t.equal((await call(server, 'GET', '/v1/traces?limit=0', { auth: root })).status, 400);
  });

  t.test('malformed filters are 400 invalid_filter with a position', async (t) => {
    for (const [filter, pattern] of [
      ['name =', /position \d+/],
      ['name = a or name = b', /./],
      ['(name = a and name = b)', /./],
      ['((name = a))', /./],
      ['nonsense = 1', /nonsense/],
      ['tokens > many', /tokens/],
      ['status = BROKEN', /status/],
      ['[{"field":"name","operator":"equals","value":"a"}]', /JSON/i],
      [Array.from({ length: 21 }, (_, i) => `name != n${i}`).join(' and '), /20/],
    ] as const) {
      const r = await call(server, 'GET', `/v1/traces?filter=${encodeURIComponent(filter)}`, { auth: root });
      t.equal(r.status, 400, filter.slice(0, 40));
      t.equal(r.body.error.code, 'invalid_filter');
      t.match(r.body.error.message, pattern);
    }
  });

  t.test('POST /v1/traces/search with JSON filters', async (t) => {
    const search = (body: unknown) => call(server, 'POST', '/v1/traces/search', { auth: root, body });
    const r = await search({
      filters: [{ field: 'tokens', operator: 'between', value: [1000, 2000] }],
      sort_by: 'tokens',
      sort_order: 'asc',
    });
    t.equal(r.status, 200, r.text);
    t.same(
      r.body.data.map((x: { id: string }) => x.id),
      [A],
    );
    const or = await search({
      filters: [
        {
          or: [
            { field: 'model', operator: 'equals', value: 'gpt-4o' },
            { field: 'user_id', operator: 'in', value: ['carol'] },
          ],
        },
      ],
    });
    t.same(or.body.data.map((x: { id: string }) => x.id).sort(), ids(B, C));
    t.same(or.body.pagination, { total: 2, limit: 50, offset: 0 });
    const meta = await search({ filters: [{ field: 'metadata.customer', operator: 'exists' }] });
    t.same(meta.body.data.map((x: { id: string }) => x.id).sort(), ids(A, B));
    for (const [bad, code] of [
      [{ filters: [{ field: 'name', operator: 'equals', value: 'a', extra: 1 }] }, 'invalid_filter'],
      [{ filters: Array.from({ length: 21 }, () => ({ field: 'name', operator: 'exists' })) }, 'invalid_filter'],
      [{ filters: [{ field: '', operator: 'exists' }] }, 'invalid_filter'],
      [{ filters: [{ field: 'name', operator: 'equals', value: 'x'.repeat(501) }] }, 'invalid_filter'],
      [
        { filters: [{ field: 'name', operator: 'in', value: Array.from({ length: 51 }, (_, i) => `v${i}`) }] },
        'invalid_filter',
      ],
      [{ filters: [{ or: [] }] }, 'invalid_filter'],
      [{ filters: [{ or: [{ or: [{ field: 'name', operator: 'exists' }] }] }] }, 'invalid_filter'],
      [{ limit: 1001 }, 'invalid_request_body'],
      [{ unknown: true }, 'invalid_request_body'],
    ] as const) {
      const res = await search(bad);
      t.equal(res.status, 400, JSON.stringify(bad).slice(0, 80));
      t.equal(res.body.error.code, code, `${JSON.stringify(bad).slice(0, 60)}: ${code}`);
    }
    const long = await call(server, 'GET', `/v1/traces?filter=${'x'.repeat(8193)}`, { auth: root });
    t.equal(long.status, 400);
    t.equal(long.body.error.code, 'invalid_filter', 'a filter string over its length cap');
    const huge = await search({
      filters: [
        { field: 'cost', operator: 'lt', value: 1e300 },
        { field: 'latency_ms', operator: 'between', value: [-1e20, 1e20] },
      ],
    });
    t.equal(huge.status, 200, huge.text);
    t.same(huge.body.data.map((x: { id: string }) => x.id).sort(), ids(A, B, C, D), 'JSON numbers past 64 bits');
    const semantic = await search({ filters: [{ field: 'tokens', operator: 'contains', value: 'x' }] });
    t.equal(semantic.body.error.code, 'invalid_filter');
  });

  t.test('spans: list parameters, filters and search', async (t) => {
    const spans = async (qs: string) => {
      const r = await call(server, 'GET', `/v1/spans?${qs}`, { auth: root });
      t.equal(r.status, 200, qs);
      return r.body;
    };
    const gens = await spans('type=GENERATION');
    t.equal(gens.pagination.total, 3);
    t.ok(gens.data.every((s: { type: string }) => s.type === 'GENERATION'));
    t.equal((await spans('model=gpt-4o')).data.length, 1);
    t.equal((await spans(`trace_id=${B}`)).data.length, 3);
    t.equal((await spans('name=search')).pagination.total, 2);
    t.equal(
      (await spans('min_duration_ms=400')).data.every((s: { duration_ms: number }) => s.duration_ms >= 400),
      true,
    );
    t.equal(
      (await spans('max_duration_ms=99999999999999999999')).pagination.total,
      (await spans('')).pagination.total,
      'a bound past 64 bits',
    );
    t.equal((await spans('min_duration_ms=99999999999999999999')).pagination.total, 0);
    t.equal(
      (await spans(`filter=${encodeURIComponent('duration_ms < 1e300')}`)).pagination.total,
      (await spans('')).pagination.total,
    );
    const priced = (await spans(`filter=${encodeURIComponent('cost >= 0')}`)).pagination.total;
    t.ok(priced > 0);
    t.equal((await spans(`filter=${encodeURIComponent('cost < 1e300')}`)).pagination.total, priced);
    t.equal((await spans(`filter=${encodeURIComponent('metadata.step = pay')}`)).data[0].metadata.step, 'pay');
    t.equal(
      (await call(server, 'GET', '/v1/spans?limit=501', { auth: root })).status,
      400,
      'over the span limit is refused',
    );
    const s = await call(server, 'POST', '/v1/spans/search', {
      auth: root,
      body: {
        filters: [
          { field: 'duration_ms', operator: 'gte', value: 0 },
          { field: 'span_kind', operator: 'equals', value: 'llm' },
        ],
      },
    });
    t.equal(s.status, 200);
    t.equal(s.body.pagination.total, 3);
  });

  t.test('CSV', async (t) => {
    const r = await fetch(`${server.url}/v1/traces?format=csv&sort_by=start&sort_order=asc`, {
      headers: { authorization: root.key, 'x-service-app-id': root.appId },
    });
    t.equal(r.status, 200);
    t.match(r.headers.get('content-type'), /text\/csv/);
    const lines = (await r.text()).trim().split('\r\n');
    t.match(lines[0], /^id,name,status,start,end,latency_ms,cost,tokens,span_count/);
    t.equal(lines.length, 5, 'header and four traces');
    t.ok(lines[1]!.startsWith(`${D},healthcheck,`));
    const sp = await fetch(`${server.url}/v1/spans?format=csv&type=GENERATION`, {
      headers: { authorization: root.key, 'x-service-app-id': root.appId },
    });
    t.equal((await sp.text()).trim().split('\r\n').length, 4);
  });

  t.test('filter schema', async (t) => {
    const r = await call(server, 'GET', '/v1/filter-schema', { auth: root });
    t.equal(r.status, 200);
    const traceFields = r.body.data.resources.traces.fields.map((f: { name: string }) => f.name);
    for (const f of ['name', 'status', 'latency_ms', 'cost', 'tokens', 'tags', 'model', 'metadata.<key>'])
      t.ok(
        traceFields.some((x: string) => x.startsWith(f.replace('<key>', ''))),
        f,
      );
    t.equal(r.body.data.limits.max_predicates, 20);
  });

  t.test('a trace that arrives in parts lists the same summary as its own read', async (t) => {
    const E = hex(16);
    const rootId = hex(8);
    const start = BigInt(Date.now() - 30 * 60_000) * 1_000_000n;
    const at = (ms: number) => String(start + BigInt(ms) * 1_000_000n);
    const span = (
      spanId: string,
      parent: string | null,
      name: string,
      from: number,
      to: number,
      attributes: Record<string, string | number>,
      code = 1,
    ) => ({
      traceId: E,
      spanId,
      ...(parent ? { parentSpanId: parent } : {}),
      name,
      kind: 1,
      startTimeUnixNano: at(from),
      endTimeUnixNano: at(to),
      status: { code },
      attributes: Object.entries(attributes).map(([key, value]) => ({
        key,
        value: typeof value === 'string' ? { stringValue: value } : { intValue: value },
      })),
    });
    const send = async (spans: unknown[]) => {
      const body = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] };
      const r = await call(server, 'POST', '/v1/traces', {
        rawBody: JSON.stringify(body),
        headers: { authorization: sdk.key, 'x-service-app-id': sdk.appId, 'content-type': 'application/json' },
      });
      t.equal(r.status, 200);
    };
    const late = span(hex(8), rootId, 'late-tool', 900, 1500, { 'tracelake.tags': 'late' }, 2);
    await send([
      span(hex(8), rootId, 'early-llm', 100, 400, {
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 50,
        'gen_ai.usage.output_tokens': 5,
        'input.value': 'child input',
      }),
    ]);
    await send([
      span(rootId, null, 'parted-root', 50, 1000, {
        'session.id': 's-parts',
        'input.value': 'root input',
        'tracelake.tags': 'first',
      }),
    ]);
    await send([late]);
    await send([late]);
    const listed = await call(server, 'POST', '/v1/traces/search', {
      auth: root,
      body: { filters: [{ field: 'session_id', operator: 'equals', value: 's-parts' }] },
    });
    const own = await call(server, 'GET', `/v1/traces/${E}`, { auth: root });
    t.equal(listed.body.data.length, 1);
    const fields = [
      'id',
      'name',
      'status',
      'start',
      'end',
      'latency_ms',
      'cost',
      'tokens',
      'span_count',
      'input_preview',
      'output_preview',
      'tags',
      'session_id',
      'user_id',
    ];
    const pick = (o: Record<string, unknown>) => Object.fromEntries(fields.map((f) => [f, o[f]]));
    t.same(pick(listed.body.data[0]), pick(own.body.data), 'merged parts = the summary computed from the spans');
    t.equal(own.body.data.name, 'parted-root', 'the root names the trace although it came second');
    t.equal(own.body.data.status, 'ERROR');
    t.equal(own.body.data.span_count, 3, 'the replayed span counts once');
    t.equal(own.body.data.input_preview, 'root input');
  });

  t.test('a start is answered to its millisecond, so a window ending a millisecond later holds it', async (t) => {
    // A millisecond whose nanoseconds, divided as a double, fall a hair under it.
    let ms = Date.now() - 5 * HOUR;
    while (Number(BigInt(ms) * 1_000_000n) / 1e6 >= ms) ms--;
    const F = hex(16);
    const req = exportRequest([{ traceId: F, name: 'on the millisecond' }]);
    const span = req.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    span.startTimeUnixNano = String(BigInt(ms) * 1_000_000n);
    span.endTimeUnixNano = String(BigInt(ms + 20) * 1_000_000n);
    const sent = await call(server, 'POST', '/v1/traces', {
      rawBody: JSON.stringify(req),
      headers: { authorization: sdk.key, 'x-service-app-id': sdk.appId, 'content-type': 'application/json' },
    });
    t.equal(sent.status, 200, sent.text);
    const window = `start_date=${new Date(ms - HOUR).toISOString()}&end_date=${new Date(ms + 1).toISOString()}`;
    const traces = await call(server, 'GET', `/v1/traces?${window}`, { auth: root });
    t.same(
      traces.body.data.map((x: { id: string; start: string }) => [x.id, x.start]),
      [[F, new Date(ms).toISOString()]],
      'the trace, started on its millisecond',
    );
    const spans = await call(server, 'GET', `/v1/spans?${window}`, { auth: root });
    t.same(
      spans.body.data.map((x: { timestamp: string }) => x.timestamp),
      [new Date(ms).toISOString()],
      'its span likewise',
    );
  });

  t.test('another app never sees this data', async (t) => {
    const app = await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'isolated' } });
    const other = await createKey(server, root, { name: 'o', role: 'Full Access', app_id: app.body.data.id });
    const auth = { key: other.key, appId: app.body.data.id };
    const r = await call(server, 'GET', `/v1/traces?filter=${encodeURIComponent('name exists')}`, { auth });
    t.same(r.body.data, []);
    t.equal(r.body.pagination.total, 0);
    const s = await call(server, 'POST', '/v1/spans/search', { auth, body: {} });
    t.same(s.body.data, []);
  });
});

t.test('searches are cloud-only; lists and the schema are local too', async (t) => {
  const server = await serverFor(t, { args: ['--mode', 'local'] });
  t.equal((await call(server, 'POST', '/v1/traces/search', { body: {} })).body.error.code, 'not_available_locally');
  t.equal((await call(server, 'POST', '/v1/spans/search', { body: {} })).body.error.code, 'not_available_locally');
  t.equal((await call(server, 'GET', '/v1/traces')).status, 200);
  t.equal((await call(server, 'GET', '/v1/spans')).status, 200);
  t.equal((await call(server, 'GET', '/v1/filter-schema')).status, 200);
});

t.test(
  'a bad filter beside a bad environment or window is answered once, without an unhandled rejection',
  async (t) => {
    const server = await serverFor(t);
    const root = rootCredentials(server);
    const bad = [{ field: 'no_such_field', operator: 'equals', value: 1 }];
    for (const path of ['/v1/traces/search', '/v1/spans/search']) {
      for (const extra of [
        { environment: 'nowhere' },
        { start_date: '2026-01-01T00:00:00Z', end_date: '2025-01-01T00:00:00Z' },
      ]) {
        const r = await call(server, 'POST', path, { auth: root, body: { filters: bad, ...extra } });
        t.equal(r.body.error.code, 'invalid_filter', `${path} ${Object.keys(extra)[0]}: the filter's error`);
      }
    }
    const listed = await call(
      server,
      'GET',
      `/v1/spans?environment=nowhere&filter=${encodeURIComponent('no_such_field = 1')}`,
      { auth: root },
    );
    t.equal(listed.body.error.code, 'invalid_filter');
    // A refused export is logged after the store has answered the lookups above (its key is looked
    // up there too): by then an orphaned lookup's rejection would have been logged.
    await call(server, 'POST', '/v1/traces', {
      headers: { authorization: 'sk_service_' + 'x'.repeat(40), 'x-service-app-id': root.appId },
      body: {},
    });
    await server.waitForLog((l) => l.msg === 'ingestion refused');
    t.same(
      server.logs.filter((l) => l.msg === 'unhandled rejection'),
      [],
      'no unhandled rejection was logged',
    );
  },
);
