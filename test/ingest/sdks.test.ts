/**
 * Integration: LLM-tracing SDKs from the registry pointed at Tracelake as shipped, with the guide's
 * set-up (docs/guide/sending-traces.md) run verbatim. Each SDK runs a small support agent in a
 * process of its own (test/helpers/sdkApp.ts: the SDKs set process-wide OpenTelemetry globals),
 * whose `openai` client calls a fake model server; the trace is read back over the API: span kinds,
 * the parent/child tree, model, tokens, cost, input/output, session, user and metadata.
 */
import { spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import type { ModelPrice, PriceTable } from '../../src/core/cost/pricing.js';
import { FAKE_ANSWERS, fakeModelFor, type FakeModel } from '../helpers/fakeModel.js';
import { fences } from '../helpers/markdown.js';
import { instrumentedServer, type InstrumentedServer } from '../helpers/otel.js';
import { exportRequest, forProtobuf, hex } from '../helpers/otlp.js';
import { encodeExportRequest } from '../helpers/otlpProto.js';
import { SDK_APP, type SdkAppResult } from '../helpers/sdkApp.js';
import { call, tempDir } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';
import { until } from '../helpers/until.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GUIDE = readFileSync(join(ROOT, 'docs/guide/sending-traces.md'), 'utf8');
const APP = fileURLToPath(new URL('../helpers/sdkApp.js', import.meta.url));
const APP_MS = 60_000;

type ApiSpan = Record<string, any>;

/** The guide's `js` block that imports `pkg`. */
function guideBlock(pkg: string): string {
  const block = fences(GUIDE).find((f) => f.info === 'js' && f.body.includes(`from '${pkg}'`));
  if (!block) throw new Error(`docs/guide/sending-traces.md shows no js block importing ${pkg}`);
  return block.body;
}

/** The variables the guide's first `sh` block exports, for the server and `auth`. */
function guideVariables(env: Env): Record<string, string> {
  const given: Record<string, string> = { URL: env.server.url, KEY: env.sdk.key, APP: env.sdk.appId };
  const block = fences(GUIDE).find((f) => f.info === 'sh' && f.body.includes('OTEL_EXPORTER_OTLP_ENDPOINT'));
  return Object.fromEntries(
    [...(block?.body ?? '').matchAll(/^export (\w+)="?(.*?)"?(?:\s+#.*)?$/gm)].map(([, name, value]) => [
      name!,
      value!.replace(/\$(\w+)/g, (_, v: string) => given[v] ?? ''),
    ]),
  );
}

/**
 * Runs the agent with `sdk`, set up by `setup` (and for `opentelemetry`, then making the `call`):
 * guide blocks, written as modules in a folder that sees this project's packages. `vars` are the
 * process's environment beyond the server's address and key and the fake model's; the program's result.
 */
async function runApp(
  t: Test,
  sdk: 'phoenix' | 'traceloop' | 'opentelemetry',
  blocks: { setup: string; call?: string },
  env: Env,
  fake: FakeModel,
  vars: Record<string, string> = {},
): Promise<SdkAppResult> {
  const dir = tempDir();
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const files = Object.entries(blocks).map(([name, text]) => {
    const path = join(dir, `${name}.mjs`);
    writeFileSync(path, text);
    return path;
  });
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TRACELAKE_URL: env.server.url,
    TRACELAKE_API_KEY: env.sdk.key,
    TRACELAKE_APP_ID: env.sdk.appId,
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_API_KEY: 'sk-fake',
    ...vars,
  };
  const [command, args] = unhooked(process.execPath, [APP, sdk, ...files], childEnv);
  const child = spawn(command, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), APP_MS);
  const code = await new Promise<number | null>((done) => child.on('close', done));
  clearTimeout(timer);
  t.equal(code, 0, `the ${sdk} app ran`, { stderr: stderr.slice(-3000) });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as SdkAppResult;
}

/** The trace once `count` spans of it are readable (the SDK's export is durable, not yet visible). */
async function readTrace(
  t: Test,
  env: Env,
  traceId: string,
  count: number,
): Promise<{ trace: ApiSpan; spans: ApiSpan[] }> {
  let trace: ApiSpan | undefined;
  const readable = async (): Promise<boolean> => {
    const res = await call(env.server, 'GET', `/v1/traces/${traceId}`, { auth: env.reader });
    trace = res.status === 200 ? res.body.data : undefined;
    return (trace?.spans?.length ?? 0) >= count;
  };
  t.ok(await until(readable), `trace ${traceId} has its ${count} spans`);
  return { trace: trace!, spans: trace?.spans ?? [] };
}

async function readSpan(env: Env, traceId: string, spanId: string): Promise<ApiSpan> {
  const res = await call(env.server, 'GET', `/v1/traces/${traceId}/spans/${spanId}`, { auth: env.reader });
  if (res.status !== 200) throw new Error(`GET span ${spanId}: ${res.status} ${res.text}`);
  return res.body.data;
}

/** A USD amount as the server rounds it (to 1e-10). */
const usd = (n: number): number => Math.round(n * 1e10) / 1e10;

/** The cost of the fake's chat answer under the server's own price table. */
function chatCost(pricing: PriceTable): number {
  const price = pricing.models.find((m) => new RegExp(m.match, 'i').test(FAKE_ANSWERS.model)) as ModelPrice;
  const { prompt_tokens, completion_tokens } = FAKE_ANSWERS.chat.usage;
  return usd((prompt_tokens * price.input + completion_tokens * price.output) / 1e6);
}

type Env = InstrumentedServer;

/** One server for every client here: each reads back only its own trace. */
let shared: Promise<Env> | undefined;
const file = t;
const setup = (): Promise<Env> => (shared ??= instrumentedServer(file));

/** What reached the fake model: each request's path and the model it asked for. */
const requested = (fake: FakeModel) => fake.requests.map((r) => [r.path, (r.body as { model?: string }).model]);

/**
 * Runs the agent with `sdk` (see {@link runApp}), checks its answer, and reads its trace back once
 * it has `count` spans: the trace, and its spans by name.
 */
async function agentTrace(
  t: Test,
  sdk: Parameters<typeof runApp>[1],
  blocks: Parameters<typeof runApp>[2],
  count: number,
  vars?: Record<string, string>,
) {
  const env = await setup();
  const fake = await fakeModelFor(t);
  const { traceId, answer } = await runApp(t, sdk, blocks, env, fake, vars);
  t.equal(answer, FAKE_ANSWERS.chat.content, 'the agent got the fake answer');
  const { trace, spans } = await readTrace(t, env, traceId, count);
  return { env, fake, traceId, trace, spans, byName: new Map(spans.map((s) => [s.name, s])) };
}

/** The fake's chat answer as a generation: model, tokens, and its cost from the price table. */
function assertChatGeneration(t: Test, env: Env, span: ApiSpan | undefined): void {
  t.match(span, {
    type: 'GENERATION',
    span_kind: 'llm',
    model: FAKE_ANSWERS.model,
    input_tokens: FAKE_ANSWERS.chat.usage.prompt_tokens,
    output_tokens: FAKE_ANSWERS.chat.usage.completion_tokens,
    tokens: FAKE_ANSWERS.chat.usage.total_tokens,
  });
  t.equal(usd(span?.cost), chatCost(env.pricing), 'priced from the table');
}

t.test("Arize Phoenix: @arizeai/phoenix-otel's register, OpenInference spans", async (t) => {
  const { env, fake, traceId, trace, spans, byName } = await agentTrace(
    t,
    'phoenix',
    { setup: guideBlock('@arizeai/phoenix-otel') },
    4,
  );
  t.same(requested(fake), [['/v1/chat/completions', SDK_APP.model]], 'one chat call reached the fake model');
  const agent = byName.get('support-agent');
  const search = byName.get('search-docs');
  const tool = byName.get('lookup-order');
  const llm = byName.get('OpenAI Chat Completions');
  t.same(
    [agent?.span_kind, search?.span_kind, tool?.span_kind, llm?.span_kind],
    ['agent', 'retrieval', 'tool', 'llm'],
    'AGENT, RETRIEVER, TOOL and LLM',
  );
  t.equal(agent?.parent_id, null, 'the agent is the root');
  t.same(
    [search, tool, llm].map((s) => s?.parent_id),
    [agent?.id, agent?.id, agent?.id],
    'its steps are its children',
  );
  assertChatGeneration(t, env, llm);
  t.equal(usd(trace.cost), chatCost(env.pricing));
  t.equal(trace.tokens, FAKE_ANSWERS.chat.usage.total_tokens);
  for (const s of spans) {
    t.match(
      s,
      { session_id: SDK_APP.sessionId.phoenix, user_id: SDK_APP.userId, service_name: 'support-bot' },
      `${s.name}: session, user and the project as service`,
    );
  }
  t.same([trace.session_id, trace.user_id], [SDK_APP.sessionId.phoenix, SDK_APP.userId]);
  t.same(trace.metadata, SDK_APP.metadata, 'metadata from setMetadata');
  t.same(trace.tags, SDK_APP.tags, 'tags from setTags');
  t.equal(trace.input_preview, SDK_APP.question, "the trace's input is the agent's");

  const found = await readSpan(env, traceId, search!.id);
  t.equal(found.input, SDK_APP.question);
  t.same(JSON.parse(found.output), SDK_APP.documents, 'the retriever output is the documents it found');
  const looked = await readSpan(env, traceId, tool!.id);
  t.same([looked.input, JSON.parse(looked.output)], [SDK_APP.orderId, SDK_APP.order]);
  const called = await readSpan(env, traceId, llm!.id);
  t.same(JSON.parse(called.input).messages.at(-1), { role: 'user', content: SDK_APP.question });
  t.equal(JSON.parse(called.output).choices[0].message.content, FAKE_ANSWERS.chat.content);
});

t.test('OpenLLMetry: @traceloop/node-server-sdk, workflow, agent, task and tool spans', async (t) => {
  const { env, fake, traceId, trace, spans, byName } = await agentTrace(
    t,
    'traceloop',
    { setup: guideBlock('@traceloop/node-server-sdk') },
    5,
  );
  t.same(requested(fake), [['/v1/chat/completions', SDK_APP.model]], 'one chat call reached the fake model');
  const workflow = byName.get('support.workflow');
  const tool = byName.get('lookup-order.tool');
  const agent = byName.get('writer.agent');
  const task = byName.get('compose.task');
  const llm = spans.find((s) => s.type === 'GENERATION');
  t.same(
    [workflow?.span_kind, tool?.span_kind, agent?.span_kind, task?.span_kind, llm?.span_kind],
    ['function', 'tool', 'agent', 'function', 'llm'],
    'workflow, tool, agent, task and the model call',
  );
  t.equal(workflow?.parent_id, null, 'the workflow is the root');
  t.same(
    [tool?.parent_id, agent?.parent_id, task?.parent_id, llm?.parent_id],
    [workflow?.id, workflow?.id, agent?.id, task?.id],
    'the tree as the calls nest',
  );
  assertChatGeneration(t, env, llm);
  t.equal(usd(trace.cost), chatCost(env.pricing));
  for (const s of spans) {
    t.match(
      s,
      { session_id: SDK_APP.sessionId.traceloop, user_id: SDK_APP.userId, service_name: 'support-bot' },
      `${s.name}: session and user from the association properties`,
    );
  }
  t.same([trace.session_id, trace.user_id], [SDK_APP.sessionId.traceloop, SDK_APP.userId]);
  t.same(
    trace.metadata,
    { session_id: SDK_APP.sessionId.traceloop, user_id: SDK_APP.userId, ...SDK_APP.metadata },
    'the association properties, kept in metadata',
  );
  t.equal(JSON.parse(trace.output_preview), FAKE_ANSWERS.chat.content, "the workflow's output");

  const looked = await readSpan(env, traceId, tool!.id);
  t.same(JSON.parse(looked.output), SDK_APP.order, 'traceloop.entity.output');
  const called = await readSpan(env, traceId, llm!.id);
  t.match(JSON.parse(called.input).at(-1), { role: 'user', parts: [{ type: 'text', content: SDK_APP.question }] });
  t.match(JSON.parse(called.output)[0], { role: 'assistant', parts: [{ content: FAKE_ANSWERS.chat.content }] });
});

t.test("the guide's OpenTelemetry Collector config: its pipeline, and an export as otlphttp sends it", async (t) => {
  const env = await setup();
  const block = fences(GUIDE).find((f) => f.info === 'yaml' && f.body.includes('otlphttp'));
  t.ok(block, 'the guide shows a Collector config');
  const config = parse(block!.body) as {
    receivers: Record<string, { protocols?: Record<string, unknown> }>;
    exporters: Record<string, { endpoint: string; headers: Record<string, string> }>;
    service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
  };
  const pipeline = config.service.pipelines.traces;
  t.ok(pipeline, 'a traces pipeline');
  t.ok(
    pipeline!.receivers.every((r) => r in config.receivers),
    'its receivers are defined',
  );
  t.same(Object.keys(config.receivers.otlp?.protocols ?? {}).sort(), ['grpc', 'http'], 'OTLP in, both protocols');
  t.same(pipeline!.exporters, Object.keys(config.exporters), 'every exporter defined is used');
  const [name] = pipeline!.exporters;
  t.equal(name?.split('/')[0], 'otlphttp', 'the OTLP/HTTP exporter');
  const exporter = config.exporters[name!]!;

  // What the Collector fills in from its environment, then what otlphttp sends: protobuf, gzip.
  const given: Record<string, string> = {
    TRACELAKE_URL: env.server.url,
    TRACELAKE_API_KEY: env.sdk.key,
    TRACELAKE_APP_ID: env.sdk.appId,
  };
  const expand = (v: string): string => v.replace(/\$\{env:(\w+)\}/g, (_, n: string) => given[n] ?? `<unset ${n}>`);
  t.same(Object.keys(exporter.headers).sort(), ['authorization', 'x-service-app-id'], 'the two headers');
  const headers = Object.fromEntries(Object.entries(exporter.headers).map(([k, v]) => [k, expand(v)]));
  const url = new URL(`${expand(exporter.endpoint)}/v1/traces`);
  t.equal(url.origin, env.server.url, 'the endpoint is the server');
  const traceId = hex(16);
  const body = gzipSync(
    encodeExportRequest(forProtobuf(exportRequest([{ traceId, name: 'via-collector' }], 'collector'))),
  );
  const res = await call(env.server, 'POST', url.pathname, {
    headers: { ...headers, 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' },
    rawBody: body,
  });
  t.equal(res.status, 200, res.text);
  const readable = async (): Promise<boolean> =>
    (await call(env.server, 'GET', `/v1/traces/${traceId}`, { auth: env.reader })).body?.data?.name === 'via-collector';
  t.ok(await until(readable), 'the span is read back');
});

t.test(
  "OpenInference under the OpenTelemetry Node SDK, and the Vercel AI SDK, with the guide's variables",
  async (t) => {
    const vars = guideVariables(await setup());
    t.same(Object.keys(vars).sort(), [
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
    ]);
    const call = guideBlock('ai');
    const sessionId = /sessionId: '([^']+)'/.exec(call)?.[1];
    const userId = /userId: '([^']+)'/.exec(call)?.[1];
    t.ok(sessionId && userId, 'the AI SDK call names a session and a user');
    const { env, fake, trace, byName } = await agentTrace(
      t,
      'opentelemetry',
      { setup: guideBlock('@opentelemetry/sdk-node'), call },
      4,
      { ...vars, OTEL_SERVICE_NAME: 'support-bot' },
    );
    t.same(
      requested(fake),
      [
        ['/v1/chat/completions', SDK_APP.model],
        ['/v1/responses', 'gpt-4o-mini'],
      ],
      'the instrumented client, then the AI SDK',
    );
    const root = byName.get(SDK_APP.requestSpan);
    const chat = byName.get('OpenAI Chat Completions');
    const outer = byName.get('ai.generateText');
    const inner = byName.get('ai.generateText.doGenerate');
    t.same(
      [root?.parent_id, chat?.parent_id, outer?.parent_id, inner?.parent_id],
      [null, root?.id, root?.id, outer?.id],
      'one tree',
    );
    assertChatGeneration(t, env, chat);
    t.match(inner, {
      type: 'GENERATION',
      span_kind: 'llm',
      model: FAKE_ANSWERS.model,
      tokens: FAKE_ANSWERS.responses.usage.total_tokens,
    });
    t.match(outer, { type: 'SPAN', tokens: null }, 'the AI SDK wrapper counts nothing twice');
    t.equal(trace.tokens, FAKE_ANSWERS.chat.usage.total_tokens + FAKE_ANSWERS.responses.usage.total_tokens);
    t.match(inner, { session_id: sessionId, user_id: userId }, 'the AI SDK metadata as session and user');
    t.equal(root?.service_name, 'support-bot');
  },
);
