/**
 * The sample agent trace `tracelake quickstart` sends, as an OTLP/JSON export request (the CLI runs
 * where the OpenTelemetry exporters, dev dependencies, are absent), and the scores it posts on it.
 * A support agent's turn in the OpenTelemetry GenAI conventions: an
 * `invoke_agent` root, a `chat` call that asks for a tool, the `execute_tool` call, and a second
 * `chat` call that answers — with models, token usage, input and output messages, a session, a
 * user, tags and metadata. Pure: the ids and the clock are given.
 */
import type { AnyValue, ExportTraceServiceRequest, KeyValue, Span } from '../otlp/wire.js';
import type { ScoreItemInput } from '../scores/item.js';

export interface DemoIds {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** Four span ids of 16 lowercase hex digits: the agent, the first model call, the tool, the second model call. */
  spanIds: readonly [string, string, string, string];
}

export interface DemoTrace {
  request: ExportTraceServiceRequest;
  traceId: string;
  sessionId: string;
  userId: string;
  /** What was sent, for the command to print. */
  summary: { name: string; spans: number; modelCalls: number; toolCalls: number; model: string; tokens: number };
  scores: ScoreItemInput[];
}

export const DEMO_SERVICE = 'support-agent';
export const DEMO_MODEL = 'gpt-4.1-mini';
/** What the provider reports it ran: priced as DEMO_MODEL (data/pricing.json). */
const RESPONSE_MODEL = `${DEMO_MODEL}-2025-04-14`;
const USER_ID = 'user-ada';
const QUESTION = 'My order #4417 has not arrived yet. Where is it?';
const ANSWER =
  'Your order #4417 left our warehouse on Monday and is with UPS (tracking 1Z999AA10123456784). It should arrive by Thursday; I can notify you when it is out for delivery.';
const SYSTEM =
  'You are the support agent of an online shop. Look orders up before answering; never guess a delivery date.';
const TOOL_ARGS = '{"order_id":"4417"}';
const TOOL_RESULT =
  '{"order_id":"4417","status":"shipped","carrier":"UPS","tracking":"1Z999AA10123456784","eta":"Thursday"}';
const USAGE = { first: { input: 412, output: 38 }, second: { input: 538, output: 61 } };

/** OTel SpanKind: what the SDKs set for these spans. */
const INTERNAL = 1;
const CLIENT = 3;
const STATUS_OK = 1;

function value(v: string | number | readonly string[]): AnyValue {
  if (typeof v === 'number') return { intValue: String(v) };
  if (typeof v === 'string') return { stringValue: v };
  return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
}

function attributes(record: Record<string, string | number | readonly string[]>): KeyValue[] {
  return Object.entries(record).map(([key, v]) => ({ key, value: value(v) }));
}

/** Milliseconds since the epoch as OTLP/JSON's decimal nanoseconds. */
function nanos(ms: number): string {
  return (BigInt(Math.round(ms)) * 1_000_000n).toString();
}

const text = (content: string) => [{ type: 'text', content }];

/** The trace, ending `nowMs` minus a little, and its scores. */
export function demoTrace(ids: DemoIds, nowMs: number): DemoTrace {
  const [agentId, firstId, toolId, secondId] = ids.spanIds;
  const sessionId = `demo-${ids.traceId.slice(0, 8)}`;
  const t0 = nowMs - 3200;
  const span = (
    spanId: string,
    parentSpanId: string | null,
    name: string,
    kind: number,
    from: number,
    to: number,
    attrs: Record<string, string | number | readonly string[]>,
  ): Span => ({
    traceId: ids.traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name,
    kind,
    startTimeUnixNano: nanos(t0 + from),
    endTimeUnixNano: nanos(t0 + to),
    attributes: attributes(attrs),
    status: { code: STATUS_OK },
  });
  const common = { 'session.id': sessionId, 'user.id': USER_ID };
  const chat = (usage: { input: number; output: number }, input: unknown[], output: unknown[], finish: string) => ({
    ...common,
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': DEMO_MODEL,
    'gen_ai.response.model': RESPONSE_MODEL,
    'gen_ai.usage.input_tokens': usage.input,
    'gen_ai.usage.output_tokens': usage.output,
    'gen_ai.response.finish_reasons': [finish],
    'gen_ai.input.messages': JSON.stringify(input),
    'gen_ai.output.messages': JSON.stringify(output),
  });
  const toolCall = {
    type: 'tool_call',
    id: 'call_1',
    name: 'lookup_order',
    arguments: JSON.parse(TOOL_ARGS) as unknown,
  };
  const asked = [
    { role: 'system', parts: text(SYSTEM) },
    { role: 'user', parts: text(QUESTION) },
  ];
  const spans = [
    span(agentId, null, `invoke_agent ${DEMO_SERVICE}`, INTERNAL, 0, 3100, {
      ...common,
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': DEMO_SERVICE,
      'input.value': QUESTION,
      'output.value': ANSWER,
      'tracelake.tags': ['quickstart', 'support'],
      'tracelake.metadata.channel': 'web-chat',
      'tracelake.metadata.customer_plan': 'pro',
      'tracelake.metadata.sent_by': 'tracelake quickstart',
    }),
    span(
      firstId,
      agentId,
      `chat ${DEMO_MODEL}`,
      CLIENT,
      50,
      1150,
      chat(USAGE.first, asked, [{ role: 'assistant', parts: [toolCall] }], 'tool_calls'),
    ),
    span(toolId, agentId, 'execute_tool lookup_order', INTERNAL, 1200, 1500, {
      ...common,
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': TOOL_ARGS,
      'gen_ai.tool.call.result': TOOL_RESULT,
    }),
    span(
      secondId,
      agentId,
      `chat ${DEMO_MODEL}`,
      CLIENT,
      1550,
      3050,
      chat(
        USAGE.second,
        [
          ...asked,
          { role: 'assistant', parts: [toolCall] },
          {
            role: 'tool',
            parts: [{ type: 'tool_call_response', id: 'call_1', response: JSON.parse(TOOL_RESULT) as unknown }],
          },
        ],
        [{ role: 'assistant', parts: text(ANSWER) }],
        'stop',
      ),
    ),
  ];
  const request: ExportTraceServiceRequest = {
    resourceSpans: [
      {
        resource: {
          attributes: attributes({ 'service.name': DEMO_SERVICE, 'deployment.environment.name': 'quickstart' }),
        },
        scopeSpans: [{ scope: { name: 'tracelake-quickstart', version: '1' }, spans }],
      },
    ],
  };
  const scores: ScoreItemInput[] = [
    {
      name: 'helpfulness',
      resource_id: ids.traceId,
      data_type: 'NUMERIC',
      score: 0.9,
      reason: 'Looked the order up and gave the carrier, tracking number and date.',
    },
    { name: 'resolved', resource_id: ids.traceId, data_type: 'BOOLEAN', score: 1 },
    { name: 'tone', resource_id: ids.traceId, data_type: 'CATEGORICAL', label: 'friendly', score: 1 },
  ];
  const tokens = USAGE.first.input + USAGE.first.output + USAGE.second.input + USAGE.second.output;
  return {
    request,
    traceId: ids.traceId,
    sessionId,
    userId: USER_ID,
    summary: {
      name: `invoke_agent ${DEMO_SERVICE}`,
      spans: spans.length,
      modelCalls: 2,
      toolCalls: 1,
      model: DEMO_MODEL,
      tokens,
    },
    scores,
  };
}
