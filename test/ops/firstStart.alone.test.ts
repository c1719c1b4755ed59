/**
 * Integration: the first start of a fresh store prints, on stderr, a block with the UI's address,
 * the app id, the key and the OpenTelemetry variables (stdout stays JSON lines); a restart prints
 * nothing; a key the operator chose is not printed. And the variables work as printed: a real
 * OpenTelemetry exporter configured by them alone — no URL or header in code — exports a span that
 * the API then serves.
 */
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import t from 'tap';
import { call, rootCredentials, startServer, tempDir, type LogLine, type TestServer } from '../helpers/server.js';

const HEADING = 'Tracelake is running. First start of this store:';
/** The block's last line: once it is on stderr, the whole block is. */
const BLOCK_END = /npm run demo -- --key .*\n/;

/** The variables of the block's `export NAME=value` lines, as a shell would set them. */
function exportsOf(block: string): Record<string, string> {
  return Object.fromEntries(
    [...block.matchAll(/^ {2}export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!.replace(/^"(.*)"$/, '$1')]),
  );
}

function everyLineIsJson(server: TestServer): boolean {
  return server.logs.length > 0 && server.logs.every((l: LogLine) => typeof l.msg === 'string');
}

/** Exports one span with an exporter configured by the environment alone; resolves with its trace id. */
async function exportWithEnvironment(env: Record<string, string>, protocol: 'json' | 'proto'): Promise<string> {
  const saved = new Map(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    // The exporters read the variables when they are made.
    const exporter = protocol === 'json' ? new JsonExporter() : new ProtoExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': `first-start-${protocol}` }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const span = provider.getTracer('first-start').startSpan(`hello ${protocol}`, {
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1-mini' },
    });
    span.end();
    await provider.forceFlush();
    await provider.shutdown();
    return span.spanContext().traceId;
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

t.test('the first start prints the block once, with what works; a restart prints nothing', async (t) => {
  const dataDir = tempDir();
  const first = await startServer({ dataDir });
  t.teardown(() => first.stop('SIGKILL'));
  const root = rootCredentials(first);
  const stderr = await first.waitForStderr(BLOCK_END);
  t.ok(stderr.includes(HEADING), 'the block is on stderr');
  const block = stderr.slice(stderr.indexOf(HEADING));
  t.ok(everyLineIsJson(first), 'stdout stays JSON lines');
  t.ok(
    first.logs.some((l) => l.msg === 'bootstrap' && l.api_key === root.key),
    'beside the bootstrap log line',
  );
  t.match(block, `  UI        http://127.0.0.1:${first.port}/ `, 'the UI at the real port');
  t.match(block, `  app id    ${root.appId}\n`, 'the app id of the bootstrap line');
  t.match(block, `  API key   ${root.key}   (shown once: keep it)\n`, 'and its key');
  t.match(block, `npm run demo -- --key ${root.key} --url http://127.0.0.1:${first.port}\n`);

  const variables = exportsOf(block);
  t.same(variables, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${first.port}`,
    OTEL_EXPORTER_OTLP_HEADERS: `Authorization=${root.key},X-Service-App-Id=${root.appId}`,
  });
  for (const protocol of ['json', 'proto'] as const) {
    // The traces-only header variable adds the wait for visibility, so the read below needs no
    // polling; the endpoint and the credentials come from the printed variables alone.
    const traceId = await exportWithEnvironment(
      { ...variables, OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'X-Tracelake-Wait=visible' },
      protocol,
    );
    const read = await call(first, 'GET', `/v1/traces/${traceId}`, { auth: root });
    t.equal(read.status, 200, `the ${protocol} exporter's span was stored: ${read.text.slice(0, 200)}`);
    t.equal(read.body?.data?.spans?.[0]?.model, 'gpt-4.1-mini');
    t.equal(read.body?.data?.spans?.[0]?.service_name, `first-start-${protocol}`);
  }

  t.equal(await first.stop(), 0);
  t.equal(first.stderr().split(HEADING).length - 1, 1, 'printed once');

  const again = await startServer({ dataDir });
  t.teardown(() => again.stop('SIGKILL'));
  t.equal(again.bootstrap, undefined, 'the store exists: no bootstrap');
  t.equal(await again.stop(), 0);
  t.notMatch(again.stderr(), HEADING, 'a later start prints no block');
  t.notMatch(again.stderr(), root.key, 'nor the key');
});

t.test('a key the operator chose is not printed', async (t) => {
  const key = `sk_service_${'Op3rat0r'.repeat(5)}`;
  const server = await startServer({ env: { TRACELAKE_BOOTSTRAP_KEY: key } });
  t.teardown(() => server.stop('SIGKILL'));
  const block = await server.waitForStderr(BLOCK_END);
  t.match(block, '  API key   the key you set in TRACELAKE_BOOTSTRAP_KEY (not printed)\n');
  t.match(block, `Authorization=$TRACELAKE_BOOTSTRAP_KEY,X-Service-App-Id=${server.bootstrap!.app_id as string}`);
  t.notMatch(block, key, 'the key is not in the block');
  t.equal(server.bootstrap!.api_key, undefined, 'nor in the log');
  const works = await call(server, 'GET', '/v1/auth/app', { headers: { authorization: `Bearer ${key}` } });
  t.equal(works.body?.data?.app_id, server.bootstrap!.app_id, "the chosen key is the app's");
});
