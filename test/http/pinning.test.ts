/** Integration: a key pinned to one environment writes there and sees only that environment's data. */
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, createKey, rootCredentials, serverFor, type Credentials } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

t.test('pinning isolates environments both ways', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  t.equal(
    (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'staging', kind: 'preview' } })).status,
    201,
  );
  const permissions = ['trace.write', 'trace.read', 'span.read', 'session.read'];
  const prod = await createKey(server, root, { name: 'prod', permissions, environment_name: 'production' });
  const staging = await createKey(server, root, { name: 'staging', permissions, environment_name: 'staging' });

  const ingest = async (auth: Credentials) => {
    const traceId = hex(16);
    const r = await exportSpans(server, auth, [{ traceId, attributes: { 'session.id': `s-${traceId.slice(0, 6)}` } }]);
    t.equal(r.status, 200);
    return traceId;
  };
  const p = await ingest(prod);
  const s = await ingest(staging);

  for (const [key, own, other, env] of [
    [prod, p, s, 'production'],
    [staging, s, p, 'staging'],
  ] as const) {
    t.equal((await call(server, 'GET', `/v1/traces/${own}`, { auth: key })).status, 200, `${env} sees its trace`);
    t.equal(
      (await call(server, 'GET', `/v1/traces/${other}`, { auth: key })).status,
      404,
      `${env} does not see the other's`,
    );
    const list = await call(server, 'GET', '/v1/traces', { auth: key });
    t.same(
      list.body.data.map((x: { id: string }) => x.id),
      [own],
    );
    t.equal(list.body.data[0].environment, env, 'the trace landed in the key’s environment');
    const sessions = await call(server, 'GET', '/v1/sessions', { auth: key });
    t.equal(sessions.body.data.length, 1);
  }
  const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((x) => x.id).sort();
  // The bootstrap key (Full Access, a tenant admin) reads every environment and narrows at will.
  t.same(
    ids(await call(server, 'GET', '/v1/traces', { auth: root })),
    [p, s].sort(),
    "the tenant admin's key reads every environment",
  );
  t.equal((await call(server, 'GET', `/v1/traces/${s}`, { auth: root })).status, 200);
  t.same(ids(await call(server, 'GET', '/v1/traces?environment=staging', { auth: root })), [s], '?environment narrows');
  t.same(
    ids(await call(server, 'GET', `/v1/traces?filter=${encodeURIComponent('environment = staging')}`, { auth: root })),
    [s],
    'so does the filter field',
  );
  t.same(
    ids(await call(server, 'POST', '/v1/traces/search', { auth: root, body: { environment: 'production' } })),
    [p],
    'and the search body',
  );
  t.same(
    (await call(server, 'GET', '/v1/spans?environment=staging', { auth: root })).body.data.map(
      (x: { trace_id: string }) => x.trace_id,
    ),
    [s],
    'span lists too',
  );
  t.same(
    (
      await call(server, 'GET', `/v1/spans?filter=${encodeURIComponent('environment = production')}`, { auth: root })
    ).body.data.map((x: { trace_id: string }) => x.trace_id),
    [p],
    'span filters name environments as well',
  );
  const sessions = await call(server, 'GET', '/v1/sessions', { auth: root });
  t.equal(sessions.body.data.length, 2, 'sessions of every environment');

  // Names the app lacks are mistakes, answered as such.
  const unknownFilter = await call(
    server,
    'GET',
    `/v1/traces?filter=${encodeURIComponent('environment in (staging, stagign)')}`,
    { auth: root },
  );
  t.equal(unknownFilter.status, 400);
  t.equal(unknownFilter.body.error.code, 'invalid_filter');
  t.match(unknownFilter.body.error.message, /unknown environment "stagign"; this app has production, staging/);
  const unknownParam = await call(server, 'GET', '/v1/traces?environment=stagign', { auth: root });
  t.equal(unknownParam.status, 400);
  t.same(unknownParam.body.error.details, { environment: 'no environment "stagign" in this app' });
  t.equal(
    (await call(server, 'POST', '/v1/spans/search', { auth: root, body: { environment: 'stagign' } })).body.error.code,
    'invalid_request_body',
  );

  // A pinned key stays in its environment: naming another is 403, however it is named.
  const other = await call(server, 'GET', '/v1/traces?environment=production', { auth: staging });
  t.equal(other.status, 403);
  t.match(other.body.error.message, /reads its own environment only/);
  t.same(
    ids(await call(server, 'GET', '/v1/traces?environment=staging', { auth: staging })),
    [s],
    'its own name is fine',
  );
  t.same(
    ids(
      await call(server, 'GET', `/v1/traces?filter=${encodeURIComponent('environment = production')}`, {
        auth: staging,
      }),
    ),
    [],
    'a filter on another environment matches nothing of its own',
  );
  const header = await call(server, 'GET', '/v1/traces', {
    auth: staging,
    headers: { 'x-service-environment': 'production' },
  });
  t.equal(header.status, 403, 'a header contradicting the pin is refused, not ignored');
  t.match(header.body.error.message, /pinned to another environment than "production"/);
  const write = await exportSpans(server, staging, [{ traceId: hex(16) }], { 'x-service-environment': 'production' });
  t.equal(write.status, 403, 'on ingestion too');
  t.same(ids(await call(server, 'GET', '/v1/traces', { auth: root })), [p, s].sort(), 'and nothing was stored');
});

t.test(
  'one trace id in several environments: a reader of all gets production, else the one that started last',
  async (t) => {
    const server = await serverFor(t);
    const root = rootCredentials(server);
    for (const name of ['staging', 'qa'])
      t.equal(
        (await call(server, 'POST', '/v1/environments', { auth: root, body: { name, kind: 'preview' } })).status,
        201,
      );
    const permissions = ['trace.write', 'trace.read', 'span.read'];
    const prod = await createKey(server, root, { name: 'prod', permissions, environment_name: 'production' });
    const staging = await createKey(server, root, { name: 'staging', permissions, environment_name: 'staging' });
    const qa = await createKey(server, root, { name: 'qa', permissions, environment_name: 'qa' });
    const traceId = hex(16);
    // Start times of 18 and 19 digits of nanoseconds: the latest must be found by number, not by text.
    const ingest = async (auth: Credentials, name: string, startNs: bigint, id = traceId) => {
      const request = exportRequest([{ traceId: id, name }]);
      const span = request.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
      span.startTimeUnixNano = String(startNs);
      span.endTimeUnixNano = String(startNs + 1_000_000n);
      const r = await call(server, 'POST', '/v1/traces', {
        rawBody: JSON.stringify(request),
        headers: {
          authorization: auth.key,
          'x-service-app-id': auth.appId,
          'content-type': 'application/json',
          'x-tracelake-wait': 'visible',
        },
      });
      t.equal(r.status, 200);
    };
    const nsOf = (iso: string) => BigInt(Date.parse(iso)) * 1_000_000n;
    await ingest(staging, 'recent', nsOf('2026-01-01T00:00:00Z'));
    await ingest(qa, 'old', nsOf('1999-01-01T00:00:00Z'));
    const both = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: root });
    t.equal(both.status, 200);
    t.equal(both.body.data.environment, 'staging', 'no production copy: the trace that started last');
    t.same(
      both.body.data.spans.map((s: { name: string }) => s.name),
      ['recent'],
    );
    const old = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: qa });
    t.same(
      [old.body.data.environment, old.body.data.spans.map((s: { name: string }) => s.name)],
      ['qa', ['old']],
      'each environment keeps its own',
    );
    // The trace's spans alone are found by the same rule (through its range, not its summary).
    const names = async (auth: Credentials, query = '') =>
      (await call(server, 'GET', `/v1/traces/${traceId}/spans${query}`, { auth })).body.data.map(
        (s: { name: string }) => s.name,
      );
    t.same(await names(root), ['recent'], 'its spans: the trace that started last');
    t.same(await names(qa), ['old'], 'its spans, pinned');

    // A production copy, however old, is the one a reader of every environment gets (issue 53, item 9).
    await ingest(prod, 'production', nsOf('1998-01-01T00:00:00Z'));
    const preferred = await call(server, 'GET', `/v1/traces/${traceId}`, { auth: root });
    t.equal(preferred.body.data.environment, 'production', 'production first');
    t.same(await names(root), ['production'], 'its spans likewise');
    t.same(await names(root, '?environment=staging'), ['recent'], 'the others by name');

    // The very same start in two environments but production: the one whose id comes first wins, for
    // the trace and for its spans alike (store/spans/reads.ts, `latestFirst`), whichever was stored first.
    const tiedId = hex(16);
    // An hour ago: inside the trace list's default window.
    const startNs = BigInt(Date.now() - 3_600_000) * 1_000_000n;
    await ingest(staging, 'tied-staging', startNs, tiedId);
    await ingest(qa, 'tied-qa', startNs, tiedId);
    const environments: { id: string; name: string }[] = (await call(server, 'GET', '/v1/environments', { auth: root }))
      .body.data;
    const first = environments.filter((e) => e.name !== 'production').sort((a, b) => (a.id < b.id ? -1 : 1))[0]!.name;
    const tied = await call(server, 'GET', `/v1/traces/${tiedId}`, { auth: root });
    t.equal(tied.body.data.environment, first, 'equal starts: the environment whose id comes first');
    t.same(
      tied.body.data.spans.map((s: { name: string }) => s.name),
      [`tied-${first}`],
      'with its own spans only',
    );
    const tiedSpans = await call(server, 'GET', `/v1/traces/${tiedId}/spans`, { auth: root });
    t.same(
      tiedSpans.body.data.map((s: { name: string }) => s.name),
      [`tied-${first}`],
      'its spans alone by the same rule',
    );
    const listed: { id: string; environment: string }[] = (await call(server, 'GET', '/v1/traces', { auth: root })).body
      .data;
    t.same(
      listed
        .filter((x) => x.id === tiedId)
        .map((x) => x.environment)
        .sort(),
      ['qa', 'staging'],
      'a list shows both',
    );
  },
);
