/** src/firstStart.ts: the block a store's first start prints, and the address a browser opens. */
import t from 'tap';
import { DEFAULT_SERVER_URL, firstStartBlock, localUrl } from '../../src/firstStart.js';

const APP = '3f2a9c1e-7b4d-4e21-9a0c-5d8e6f1b2c34';
const KEY = `sk_service_${'a1'.repeat(20)}`;

t.test('localUrl: wildcard addresses are reached on loopback, IPv6 in brackets', async (t) => {
  t.equal(localUrl('127.0.0.1', 4318), DEFAULT_SERVER_URL);
  t.equal(localUrl('0.0.0.0', 4318), 'http://127.0.0.1:4318');
  t.equal(localUrl('::', 9000), 'http://127.0.0.1:9000');
  t.equal(localUrl('[::]', 9000), 'http://127.0.0.1:9000', 'a bracketed wildcard too');
  t.equal(localUrl('::1', 9000), 'http://[::1]:9000');
  t.equal(localUrl('[::1]', 9000), 'http://[::1]:9000', 'brackets are not doubled');
  t.equal(localUrl('tracelake.internal', 80), 'http://tracelake.internal:80');
});

t.test('a generated key: printed in the block and in every command', async (t) => {
  const block = firstStartBlock({ host: '0.0.0.0', port: 4318, appId: APP, key: KEY });
  t.equal(
    block,
    [
      'Tracelake is running. First start of this store:',
      '  UI        http://127.0.0.1:4318/   (sign in with the API key below)',
      `  app id    ${APP}`,
      `  API key   ${KEY}   (shown once: keep it)`,
      'Send OpenTelemetry traces (OTLP over HTTP, protobuf or JSON):',
      '  export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318',
      `  export OTEL_EXPORTER_OTLP_HEADERS="Authorization=${KEY},X-Service-App-Id=${APP}"`,
      'Try it with a sample agent trace:',
      `  npm run demo -- --key ${KEY}`,
      '',
    ].join('\n'),
  );
  t.notMatch(block, /Bearer/, 'OTLP ingestion takes the raw key');
});

t.test('another port: the demo is told where the server is', async (t) => {
  const block = firstStartBlock({ host: '127.0.0.1', port: 43001, appId: APP, key: KEY });
  t.match(block, '  UI        http://127.0.0.1:43001/ ');
  t.match(block, 'OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:43001\n');
  t.match(block, `npm run demo -- --key ${KEY} --url http://127.0.0.1:43001\n`);
});

t.test('a public URL is the address shown', async (t) => {
  const block = firstStartBlock({
    host: '0.0.0.0',
    port: 4318,
    publicUrl: 'https://traces.example.com/',
    appId: APP,
    key: KEY,
  });
  t.match(block, '  UI        https://traces.example.com/ ', 'one slash');
  t.match(block, 'OTEL_EXPORTER_OTLP_ENDPOINT=https://traces.example.com\n', 'the SDK appends /v1/traces');
  t.match(block, '--url https://traces.example.com\n');
});

t.test('a key the operator chose is not printed', async (t) => {
  const block = firstStartBlock({ host: '127.0.0.1', port: 4318, appId: APP, key: null });
  t.match(block, '  API key   the key you set in TRACELAKE_BOOTSTRAP_KEY (not printed)\n');
  t.match(
    block,
    `OTEL_EXPORTER_OTLP_HEADERS="Authorization=$TRACELAKE_BOOTSTRAP_KEY,X-Service-App-Id=${APP}"`,
    'the variable, expanded by the shell',
  );
  t.match(block, 'npm run demo -- --key "$TRACELAKE_BOOTSTRAP_KEY"\n');
  t.notMatch(block, /sk_service_/);
});
