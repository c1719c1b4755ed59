import t from 'tap';
import { addTrace, idsToLookUp, resolveResource, type ResourceLookup } from '../../../src/core/scores/resource.js';

const TRACE = 'a'.repeat(32);
const OTHER_TRACE = 'b'.repeat(32);
const SPAN = 'c'.repeat(16);
const ORPHAN_SPAN = 'd'.repeat(16);

const lookup: ResourceLookup = {
  traces: new Map([[TRACE, { environmentId: 'env-t', sessions: ['s1'] }]]),
  spans: new Map([
    [SPAN, { traceId: TRACE }],
    [ORPHAN_SPAN, { traceId: OTHER_TRACE }],
  ]),
  sessions: new Map([['s1', { environmentId: 'env-s' }]]),
};

t.test('ids to look up, each once', async (t) => {
  t.same(
    idsToLookUp([
      { resourceId: TRACE, resourceKind: 'trace', sessionId: null },
      { resourceId: TRACE, resourceKind: 'trace', sessionId: 's9' },
      { resourceId: SPAN, resourceKind: 'span', sessionId: null },
      { resourceId: null, resourceKind: null, sessionId: 's1' },
      { resourceId: null, resourceKind: null, sessionId: 's1' },
    ]),
    { traceIds: [TRACE], spanIds: [SPAN], sessionIds: ['s1'] },
    'a session next to a resource is checked through the trace, not looked up itself',
  );
});

t.test('traces, spans and sessions that exist resolve', async (t) => {
  t.same(resolveResource({ resourceId: TRACE, resourceKind: 'trace', sessionId: null }, lookup, null), {
    ok: true,
    value: { resourceType: 'trace', resourceId: TRACE, traceId: TRACE, sessionId: null, environmentId: 'env-t' },
  });
  t.same(resolveResource({ resourceId: SPAN, resourceKind: 'span', sessionId: 's1' }, lookup, 'pinned'), {
    ok: true,
    value: { resourceType: 'span', resourceId: SPAN, traceId: TRACE, sessionId: 's1', environmentId: 'pinned' },
  });
  t.same(resolveResource({ resourceId: null, resourceKind: null, sessionId: 's1' }, lookup, null), {
    ok: true,
    value: { resourceType: 'session', resourceId: 's1', traceId: null, sessionId: 's1', environmentId: 'env-s' },
  });
  t.same(resolveResource({ resourceId: null, resourceKind: null, sessionId: 's1' }, lookup, 'pinned'), {
    ok: true,
    value: { resourceType: 'session', resourceId: 's1', traceId: null, sessionId: 's1', environmentId: 'pinned' },
  });
});

t.test('what does not exist is not_found; a resource outside the session is refused', async (t) => {
  t.same(resolveResource({ resourceId: OTHER_TRACE, resourceKind: 'trace', sessionId: null }, lookup, null), {
    ok: false,
    error: { code: 'not_found', message: `resource_id: no trace "${OTHER_TRACE}" in this app`, field: 'resource_id' },
  });
  t.same(resolveResource({ resourceId: 'e'.repeat(16), resourceKind: 'span', sessionId: null }, lookup, null), {
    ok: false,
    error: { code: 'not_found', message: `resource_id: no span "${'e'.repeat(16)}" in this app`, field: 'resource_id' },
  });
  t.same(
    resolveResource({ resourceId: ORPHAN_SPAN, resourceKind: 'span', sessionId: null }, lookup, null).ok,
    false,
    'a span whose trace is out of scope',
  );
  t.same(resolveResource({ resourceId: null, resourceKind: null, sessionId: 's2' }, lookup, null), {
    ok: false,
    error: { code: 'not_found', message: 'session_id: no session "s2" in this app', field: 'session_id' },
  });
  t.same(resolveResource({ resourceId: TRACE, resourceKind: 'trace', sessionId: 's2' }, lookup, null), {
    ok: false,
    error: {
      code: 'invalid_request_body',
      message: `session_id: the trace ${TRACE} is not part of session "s2"`,
      field: 'session_id',
    },
  });
});

t.test("one trace id in several environments: the writer's copy, else refused", async (t) => {
  const found = (environmentId: string) => ({ environmentId, sessions: [] });
  const traces: ResourceLookup['traces'] = new Map();
  addTrace(traces, TRACE, found('env-dev'), 'env-prod');
  addTrace(traces, TRACE, found('env-prod'), 'env-prod');
  addTrace(traces, TRACE, found('env-staging'), 'env-prod');
  t.same(traces.get(TRACE), found('env-prod'), "the writer's environment wins, whatever the order");
  addTrace(traces, OTHER_TRACE, found('env-dev'), 'env-prod');
  addTrace(traces, OTHER_TRACE, found('env-dev'), 'env-prod');
  t.notOk(traces.get(OTHER_TRACE)!.ambiguous, 'two rows of one environment are one trace');
  addTrace(traces, OTHER_TRACE, found('env-staging'), 'env-prod');
  t.ok(traces.get(OTHER_TRACE)!.ambiguous, "two environments, neither the writer's");

  const within = { traces, spans: new Map(), sessions: new Map() };
  const ref = (id: string) => ({ resourceId: id, resourceKind: 'trace' as const, sessionId: null });
  t.match(resolveResource(ref(TRACE), within, null), { ok: true, value: { environmentId: 'env-prod' } });
  t.match(resolveResource(ref(OTHER_TRACE), within, null), {
    ok: false,
    error: { code: 'invalid_request_body', field: 'resource_id', message: /in several environments of this app/ },
  });
  t.match(
    resolveResource(ref(OTHER_TRACE), within, 'env-dev'),
    { ok: true, value: { environmentId: 'env-dev' } },
    'a pinned writer writes to its pin',
  );
});
