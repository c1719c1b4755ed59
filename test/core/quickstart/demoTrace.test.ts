/**
 * The sample agent trace of `tracelake quickstart`, read by the ingest's own mapper (core/otlp) as
 * the server will read it: the span kinds, models, tokens, costs, messages, session, user, tags and
 * metadata each land in their field; and its scores pass the score rules.
 */
import t from 'tap';
import { compilePriceTable, costOf, parsePriceTable } from '../../../src/core/cost/pricing.js';
import { mapExportRequest } from '../../../src/core/otlp/index.js';
import { DEMO_MODEL, DEMO_SERVICE, demoTrace, type DemoIds } from '../../../src/core/quickstart/demoTrace.js';
import { finalizeScore } from '../../../src/core/scores/config.js';
import { prepareChecked } from '../../../src/core/scores/item.js';
import { readFileSync } from 'node:fs';

const IDS: DemoIds = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanIds: ['b7ad6b7169203331', '00f067aa0ba902b7', '53995c3f42cd8ad8', 'c2fb4f0e0f4a4b1e'],
};
const NOW = Date.parse('2026-12-01T10:00:00.000Z');
const prices = compilePriceTable(
  parsePriceTable(JSON.parse(readFileSync(new URL('../../../../data/pricing.json', import.meta.url), 'utf8'))),
);

t.test('the trace, as the ingest maps it', async (t) => {
  const demo = demoTrace(IDS, NOW);
  t.equal(demo.traceId, IDS.traceId);
  t.equal(demo.sessionId, 'demo-0af76519', 'a session of its own per run');
  const mapped = mapExportRequest(demo.request, {
    costOf: (model, usage) => {
      const p = prices.find(model);
      return p ? costOf(p, usage) : undefined;
    },
  });
  t.equal(mapped.rejected, 0, mapped.errors.join('; '));
  t.equal(mapped.droppedAttributes, 0);
  const spans = mapped.spans;
  t.same(
    spans.map((s) => [s.name, s.spanKind, s.type, s.parentId]),
    [
      [`invoke_agent ${DEMO_SERVICE}`, 'agent', 'SPAN', null],
      [`chat ${DEMO_MODEL}`, 'llm', 'GENERATION', IDS.spanIds[0]],
      ['execute_tool lookup_order', 'tool', 'SPAN', IDS.spanIds[0]],
      [`chat ${DEMO_MODEL}`, 'llm', 'GENERATION', IDS.spanIds[0]],
    ],
  );
  const [agent, first, tool, second] = spans as [
    (typeof spans)[0],
    (typeof spans)[0],
    (typeof spans)[0],
    (typeof spans)[0],
  ];
  t.same(
    spans.map((s) => s.spanId),
    IDS.spanIds,
  );
  t.ok(spans.every((s) => s.traceId === IDS.traceId && s.status === 'OK' && s.serviceName === DEMO_SERVICE));
  t.ok(
    spans.every((s) => s.sessionId === demo.sessionId && s.userId === demo.userId),
    'every span in the session, for the user',
  );
  t.ok(
    spans.every((s) => s.startNs < s.endNs && s.endNs <= BigInt(NOW) * 1_000_000n),
    'in the past',
  );
  t.ok(
    agent.startNs <= first.startNs &&
      first.endNs <= tool.startNs &&
      tool.endNs <= second.startNs &&
      second.endNs <= agent.endNs,
    'the calls one after another, inside the agent',
  );

  t.same(
    [first.model, first.inputTokens, first.outputTokens, first.tokens],
    [`${DEMO_MODEL}-2025-04-14`, 412, 38, 450],
  );
  t.same(
    [second.model, second.inputTokens, second.outputTokens, second.tokens],
    [`${DEMO_MODEL}-2025-04-14`, 538, 61, 599],
  );
  t.ok(first.cost! > 0 && second.cost! > 0, 'priced from data/pricing.json');
  t.equal(demo.summary.tokens, 450 + 599);
  t.same(demo.summary, { name: agent.name, spans: 4, modelCalls: 2, toolCalls: 1, model: DEMO_MODEL, tokens: 1049 });
  t.equal(agent.model, null, 'the agent itself calls no model');

  const messages = (text: string | null) => (JSON.parse(text!) as { role: string }[]).map((m) => m.role);
  t.same(messages(first.input), ['system', 'user'], 'input messages');
  t.same(messages(first.output), ['assistant']);
  t.match(first.output, /"type":"tool_call".*"lookup_order"/, 'the first call asks for the tool');
  t.same(messages(second.input), ['system', 'user', 'assistant', 'tool'], 'the second sees the tool result');
  t.match(second.output, /UPS/);
  t.equal(tool.input, '{"order_id":"4417"}', "the tool's arguments");
  t.match(tool.output, /"status":"shipped"/, 'and its result');
  t.match(agent.input, /order #4417/, "the trace's input and output, for the list");
  t.match(agent.output, /Thursday/);
  t.same(agent.tags, ['quickstart', 'support']);
  t.same(agent.metadata, { channel: 'web-chat', customer_plan: 'pro', sent_by: 'tracelake quickstart' });
  t.same(agent.resource, { 'service.name': DEMO_SERVICE, 'deployment.environment.name': 'quickstart' });
  t.same(agent.scope, { name: 'tracelake-quickstart', version: '1' });
});

t.test('its scores: a NUMERIC, a BOOLEAN and a CATEGORICAL one on the trace', async (t) => {
  const { scores } = demoTrace(IDS, NOW);
  t.same(
    scores.map((s) => [s.name, s.data_type, s.resource_id]),
    [
      ['helpfulness', 'NUMERIC', IDS.traceId],
      ['resolved', 'BOOLEAN', IDS.traceId],
      ['tone', 'CATEGORICAL', IDS.traceId],
    ],
  );
  scores.forEach((score, i) => {
    const prepared = prepareChecked(score, i);
    t.ok(prepared.ok && prepared.item.resourceKind === 'trace', `${score.name} is a trace score`);
    if (prepared.ok)
      t.ok(finalizeScore(prepared.item, null).ok, `${score.name} passes the rules of its type without a config`);
  });
});

t.test('the same ids and clock give the same request', async (t) => {
  t.same(demoTrace(IDS, NOW), demoTrace(IDS, NOW));
  t.not(JSON.stringify(demoTrace(IDS, NOW).request), JSON.stringify(demoTrace(IDS, NOW + 1).request));
});
