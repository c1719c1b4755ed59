import { readFileSync } from 'node:fs';
import t from 'tap';
import { loadConfig, OPTIONS } from '../src/config.js';

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
  t.equal(loadConfig({}, ['--fault-injection', 'no']).faultInjection, false);
});

t.test('the README documents every option', async (t) => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const o of OPTIONS) {
    t.ok(readme.includes(`\`${o.env}\``), `${o.env} in README`);
    t.ok(readme.includes(`\`${o.flag}\``), `${o.flag} in README`);
  }
});
