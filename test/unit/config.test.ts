/** src/config.ts: options from the environment and flags, and the guide that documents them. */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { loadConfig, OPTIONS, settingsHelp } from '../../src/config.js';
import { UsageError } from '../../src/core/cliArgs.js';

t.test('defaults', async (t) => {
  const c = loadConfig({}, []);
  t.equal(c.host, '127.0.0.1');
  t.equal(c.port, 4318, 'the OTLP/HTTP default port');
  t.equal(c.dataDir, 'data/store');
  t.equal(c.mode, 'cloud');
  t.equal(c.bootstrapKey, undefined);
  t.equal(c.maxOtlpBodyBytes, 16 * 1024 ** 2);
  t.equal(c.maxOtlpDecompressedBytes, 64 * 1024 ** 2);
  t.equal(c.faultInjection, false);
  t.ok(c.workers >= 1);
});

t.test('environment variables, and flags that win over them', async (t) => {
  const env = { TRACELAKE_PORT: '9000', TRACELAKE_MODE: 'local', TRACELAKE_MAX_BODY: '2KiB', TRACELAKE_HOST: '' };
  const c = loadConfig(env, ['--port', '0', '--data-dir=/tmp/x', '--fault-injection', 'on']);
  t.equal(c.port, 0);
  t.equal(c.mode, 'local');
  t.equal(c.maxBodyBytes, 2048);
  t.equal(c.dataDir, '/tmp/x');
  t.equal(c.host, '127.0.0.1', 'an empty variable means the default');
  t.equal(c.faultInjection, true);
  t.equal(loadConfig({ TRACELAKE_MAX_OTLP_BODY: '1.5mb' }, []).maxOtlpBodyBytes, 1.5 * 1024 ** 2);
});

t.test('bad values name the option', async (t) => {
  t.throws(() => loadConfig({ TRACELAKE_PORT: '70000' }, []), /TRACELAKE_PORT \/ --port: expected an integer/);
  t.throws(() => loadConfig({}, ['--mode', 'hybrid']), /TRACELAKE_MODE .*one of cloud, local/);
  t.throws(() => loadConfig({}, ['--max-body', 'lots']), /expected a size/);
  t.throws(() => loadConfig({}, ['--fault-injection', 'maybe']), /expected on or off/);
  t.throws(() => loadConfig({}, ['--colour', 'blue']), /unknown option --colour/);
  t.throws(() => loadConfig({}, ['--port']), /--port needs a value/);
  t.throws(() => loadConfig({}, ['serve']), /unexpected argument "serve"/);
  t.throws(
    () => loadConfig({ TRACELAKE_PORT: 'x' }, []),
    { constructor: UsageError, message: /^TRACELAKE_PORT \/ --port: / },
    'a usage error (exit 2), a bad variable too',
  );
  t.equal(
    loadConfig({}, ['--port', '1', '--workers', '2', '--port=2']).port,
    2,
    'a later flag wins: settings may be appended to a command line',
  );
  t.equal(loadConfig({}, ['--fault-injection', 'no']).faultInjection, false);
});

t.test('git settings', async (t) => {
  const c = loadConfig({}, []);
  t.equal(c.gitRoot, undefined, 'no local repositories unless asked');
  t.equal(c.githubApiUrl, 'https://api.github.com');
  t.equal(c.publicUrl, undefined);
  const set = loadConfig({ TRACELAKE_GIT_ROOT: '/srv/git' }, [
    '--github-api-url',
    'https://ghe.example.com/api/v3/',
    '--public-url',
    'http://tracelake.example.com',
  ]);
  t.equal(set.gitRoot, '/srv/git');
  t.equal(set.githubApiUrl, 'https://ghe.example.com/api/v3', 'without the trailing slash');
  t.equal(set.publicUrl, 'http://tracelake.example.com');
  t.throws(
    () => loadConfig({}, ['--github-api-url', 'api.github.com']),
    /TRACELAKE_GITHUB_API_URL .*expected an http\(s\) URL/,
  );
  t.throws(() => loadConfig({}, ['--public-url', 'ftp://x']), /TRACELAKE_PUBLIC_URL .*expected an http\(s\) URL/);
});

t.test('the OTLP/gRPC port: 4317 by default, off, or a port', async (t) => {
  t.equal(loadConfig({}, []).grpcPort, 4317, 'the OTLP/gRPC default port');
  t.equal(loadConfig({ TRACELAKE_GRPC_PORT: 'off' }, []).grpcPort, null, 'off opens none');
  t.equal(loadConfig({}, ['--grpc-port', ' OFF ']).grpcPort, null, 'off in any case');
  t.equal(loadConfig({ TRACELAKE_GRPC_PORT: 'off' }, ['--grpc-port', '0']).grpcPort, 0, 'the flag wins; 0 picks one');
  t.throws(() => loadConfig({}, ['--grpc-port', '70000']), /TRACELAKE_GRPC_PORT \/ --grpc-port: expected an integer/);
  t.throws(() => loadConfig({}, ['--grpc-port', 'no']), /TRACELAKE_GRPC_PORT \/ --grpc-port/);
});

t.test('the configuration guide documents every option', async (t) => {
  const guide = readFileSync(new URL('../../../docs/guide/configuration.md', import.meta.url), 'utf8');
  const rows = guide.split('\n').filter((line) => line.startsWith('| `TRACELAKE_'));
  for (const o of OPTIONS) {
    const row = rows.find((r) => r.startsWith(`| \`${o.env}\` |`));
    t.ok(row, `${o.env} has a row in docs/guide/configuration.md`);
    t.ok(row?.includes(`| \`${o.flag}\` |`), `${o.flag} on the row of ${o.env}`);
  }
});

t.test('the value parsers', async (t) => {
  t.equal(loadConfig({}, ['--rate-limit', '2.5']).rateLimit, 2.5, 'a rate may be fractional');
  t.equal(loadConfig({}, []).traceHints, 2 ** 21, 'trace hints: 2^21 slots by default');
  t.equal(loadConfig({ TRACELAKE_TRACE_HINTS: '0' }, []).traceHints, 0, '0 turns them off');
  t.throws(
    () => loadConfig({}, ['--trace-hints', String(2 ** 28 + 1)]),
    /TRACELAKE_TRACE_HINTS \/ --trace-hints/,
    'past 2^28 slots (3 GiB) refused',
  );
  t.equal(loadConfig({}, ['--rate-limit=0']).rateLimit, 0);
  t.throws(
    () => loadConfig({}, ['--rate-limit=']),
    /TRACELAKE_RATE_LIMIT \/ --rate-limit: expected a number ≥ 0, got ""/,
    'an empty flag value is not 0',
  );
  t.throws(() => loadConfig({}, ['--rate-limit', ' ']), /expected a number ≥ 0/);
  t.throws(() => loadConfig({}, ['--rate-limit', 'Infinity']), /expected a number ≥ 0/);
  t.throws(() => loadConfig({}, ['--rate-limit=-1']), /expected a number ≥ 0/);
  t.throws(
    () => loadConfig({}, ['--rate-limit', '-1']),
    /--rate-limit needs a value \(one that starts with "-" is written --rate-limit=VALUE\)/,
  );
  t.equal(loadConfig({}, ['--max-body', ' 64 kb ']).maxBodyBytes, 64 * 1024, 'units in any case, spaces around');
  t.equal(loadConfig({}, ['--max-body', '3GiB']).maxBodyBytes, 3 * 1024 ** 3);
  t.equal(loadConfig({}, ['--max-body', '10B']).maxBodyBytes, 10);
  t.throws(
    () => loadConfig({}, ['--max-body', '5 parsecs']),
    /expected a size such as 16MiB, got "5 parsecs"/,
    'an unknown unit',
  );
  t.throws(() => loadConfig({}, ['--workers', '1.5']), /TRACELAKE_WORKERS .*expected an integer in 1\.\.256/);
  t.throws(() => loadConfig({}, ['--workers', '0']), /expected an integer in 1\.\.256/);
  t.equal(loadConfig({}, ['--workers', '256']).workers, 256);
  t.same(loadConfig({}, []).corsOrigins, [], 'CORS is off by default');
  t.same(loadConfig({ TRACELAKE_CORS_ORIGINS: 'https://app.example.com' }, []).corsOrigins, [
    'https://app.example.com',
  ]);
  t.throws(
    () => loadConfig({}, ['--cors-origins', 'example.com']),
    /TRACELAKE_CORS_ORIGINS \/ --cors-origins: expected origins such as https:\/\/app.example.com, or \*, got "example.com"/,
  );
  t.throws(
    () => loadConfig({}, ['--cors-origins', 'https://a.example.com/path']),
    /got "https:\/\/a.example.com\/path"/,
    'an origin has no path',
  );
  t.equal(loadConfig({}, ['--cors-origins', ' * ']).corsOrigins, '*');
  t.same(loadConfig({}, ['--cors-origins', 'https://app.example.com, http://localhost:3000']).corsOrigins, [
    'https://app.example.com',
    'http://localhost:3000',
  ]);
  t.same(loadConfig({ TRACELAKE_CORS_ORIGINS: ' ' }, []).corsOrigins, [], 'blank is none');
  t.same(loadConfig({}, []).metricsListen, { kind: 'off' }, 'Prometheus metrics are off by default');
  t.same(
    loadConfig({}, ['--metrics-listen', '9464']).metricsListen,
    { kind: 'listen', host: '127.0.0.1', port: 9464 },
    'a bare port is on loopback',
  );
  t.same(loadConfig({ TRACELAKE_METRICS_LISTEN: '0.0.0.0:9464' }, []).metricsListen, {
    kind: 'listen',
    host: '0.0.0.0',
    port: 9464,
  });
  t.same(loadConfig({}, ['--metrics-listen', '[::1]:0']).metricsListen, { kind: 'listen', host: '::1', port: 0 });
  t.same(loadConfig({}, ['--metrics-listen', 'API']).metricsListen, { kind: 'api' }, 'on the API port only when asked');
  t.throws(
    () => loadConfig({}, ['--metrics-listen', '70000']),
    /TRACELAKE_METRICS_LISTEN \/ --metrics-listen: expected off, api, a port or host:port/,
  );
  t.throws(() => loadConfig({}, ['--metrics-listen', 'on']), /got "on"/);
  t.equal(loadConfig({}, []).duckdbMemory, `${4 * 1024 ** 3}B`, 'the DuckDB memory limit goes to DuckDB in bytes');
  t.equal(loadConfig({}, ['--duckdb-memory', '512 mb']).duckdbMemory, `${512 * 1024 ** 2}B`);
  t.throws(
    () => loadConfig({}, ['--duckdb-memory', 'lots']),
    /TRACELAKE_DUCKDB_MEMORY \/ --duckdb-memory: expected a size such as 16MiB, got "lots"/,
  );
  t.throws(() => loadConfig({}, ['--duckdb-memory', '1MiB']), /expected at least 64MiB, got "1MiB"/);
  t.equal(loadConfig({ TRACELAKE_ALLOW_NEW_STORE: 'YES' }, []).allowNewStore, true);
  t.equal(loadConfig({ TRACELAKE_ALLOW_NEW_STORE: 'Off' }, []).allowNewStore, false);
  t.equal(loadConfig({}, ['--log-level', 'silent']).logLevel, 'silent');
  t.equal(loadConfig({}, ['--bootstrap-key', 'sk_x']).bootstrapKey, 'sk_x');
  t.equal(loadConfig({}, []).plansFile, undefined, 'an option without a default stays unset');
  t.ok(
    loadConfig({}, []).maxInflightBytes >= 64 * 1024 ** 2 && loadConfig({}, []).maxInflightBytes <= 1024 ** 3,
    'in-flight bytes: 64 MiB to 1 GiB',
  );
});

t.test('the operator token: long, never an API key, never echoed', async (t) => {
  const token = 'a'.repeat(31) + '=';
  t.equal(loadConfig({}, []).operatorToken, undefined, 'off by default');
  t.equal(loadConfig({ TRACELAKE_OPERATOR_TOKEN: token }, []).operatorToken, token);
  t.equal(loadConfig({}, ['--operator-token', 'x/+'.repeat(20)]).operatorToken, 'x/+'.repeat(20), 'base64 characters');
  for (const bad of ['short-but-secret', 'with a space in it but long enough!!', 'é'.repeat(40)]) {
    let message = '';
    try {
      loadConfig({ TRACELAKE_OPERATOR_TOKEN: bad }, []);
    } catch (e) {
      message = (e as Error).message;
    }
    t.match(
      message,
      /^TRACELAKE_OPERATOR_TOKEN \/ --operator-token: expected 32 to 512 printable characters without spaces/,
      JSON.stringify(bad),
    );
    t.notOk(message.includes(bad), 'the value is not shown');
  }
  t.throws(
    () => loadConfig({}, ['--operator-token', `sk_service_${'A'.repeat(43)}`]),
    /must not be an API key \(sk_service_…\)/,
  );
});

t.test('--help: the settings table', async (t) => {
  const help = settingsHelp();
  for (const o of OPTIONS) {
    t.match(help, o.env, `${o.env} listed`);
    t.match(help, o.flag, `${o.flag} listed`);
  }
  t.match(help, /--bootstrap-key +TRACELAKE_BOOTSTRAP_KEY +\(unset\)/, 'an option without a default');
  t.match(help, /--cors-origins +TRACELAKE_CORS_ORIGINS +\(empty\)/, 'an empty default');
  t.match(help, /--port +TRACELAKE_PORT +4318 /);
});
