/**
 * Integration: bootstrap happens once and only once, a restart keeps keys, keys are stored only as a
 * keyed hash, and an operator-chosen bootstrap key is honoured and never printed.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import t from 'tap';
import { call, createKey, rootCredentials, startServer, tempDir } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

t.test('bootstrap once, restart keeps keys, nothing stored in plain text', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  const first = await startServer({ dataDir });
  const b = first.bootstrap!;
  t.ok(b, 'the first start of an empty store logs bootstrap');
  for (const field of ['tenant_id', 'app_id', 'environment_id']) t.match(b[field], /^[0-9a-f-]{36}$/, field);
  t.match(b.api_key, /^sk_service_[0-9A-Za-z]{43}$/, 'a generated key is printed');
  const root = rootCredentials(first);
  const extra = await createKey(first, root, { name: 'made-before-restart', role: 'Read-Only' });
  t.equal(await first.stop('SIGTERM'), 0, 'clean exit');

  const second = await startServer({ dataDir });
  t.equal(second.bootstrap, undefined, 'no second bootstrap on the same store');
  t.notOk(
    second.logs.some((l) => JSON.stringify(l).includes('sk_service_')),
    'no key printed on restart',
  );
  t.equal((await call(second, 'GET', '/v1/api-keys', { auth: root })).status, 200, 'the bootstrap key still works');
  const listed = await call(second, 'GET', '/v1/api-keys', { auth: root });
  t.ok(
    listed.body.data.some((k: { id: string }) => k.id === extra.id),
    'keys survive the restart',
  );
  t.equal(await second.stop('SIGTERM'), 0);

  // At rest: no file holds a plaintext key, and the table holds only HMAC hashes.
  const plaintexts = [root.key, extra.key];
  for (const file of readdirSync(dataDir, { recursive: true }) as string[]) {
    const path = join(dataDir, file);
    if (!statSync(path).isFile()) continue;
    const bytes = readFileSync(path);
    for (const key of plaintexts) t.equal(bytes.indexOf(key), -1, `${file} does not contain a plaintext key`);
  }
  t.equal(statSync(join(dataDir, 'secret')).mode & 0o777, 0o600, 'the secret is readable by the owner only');

  const db = await DuckDBInstance.create(join(dataDir, 'tracelake.duckdb'));
  const c = await db.connect();
  const rows = (await c.runAndReadAll('SELECT * FROM api_keys')).getRowObjectsJson();
  t.equal(rows.length, 2);
  for (const row of rows) {
    const text = JSON.stringify(row);
    for (const key of plaintexts) t.notOk(text.includes(key.slice(11)), 'no column holds the key or its random part');
    t.match(row.key_hash, /^[0-9a-f]{64}$/, 'an HMAC-SHA256 hex digest');
  }
  c.closeSync();
  db.closeSync();
});

t.test('TRACELAKE_BOOTSTRAP_KEY is used and not printed', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const chosen = 'sk_service_' + 'Ab3'.repeat(14);
  const server = await startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: chosen } });
  t.teardown(() => server.stop('SIGKILL'));
  t.ok(server.bootstrap);
  t.equal(server.bootstrap!.api_key, undefined, 'the chosen key is not logged');
  t.notOk(server.logs.some((l) => JSON.stringify(l).includes(chosen)));
  const r = await call(server, 'GET', '/v1/api-keys', {
    auth: { key: chosen, appId: server.bootstrap!.app_id as string },
  });
  t.equal(r.status, 200);
  t.equal(r.body.data[0].role, 'full_access');
});

t.test('a malformed bootstrap key stops the start with a clear message', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await t.rejects(startServer({ dataDir, env: { TRACELAKE_BOOTSTRAP_KEY: 'hunter2' } }), /exited with 1/);
});

t.test('a bad setting stops the start with exit code 2', async (t) => {
  await t.rejects(startServer({ args: ['--mode', 'hybrid'] }), /exited with 2.*TRACELAKE_MODE/s);
});

t.test('--help prints every setting and starts nothing', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const main = new URL('../../src/main.js', import.meta.url).pathname;
  const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
    execFile(...unhooked(process.execPath, [main, '--help', '--data-dir', dataDir]), (err, out) =>
      resolve({ stdout: out, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
  });
  t.equal(code, 0);
  t.match(stdout, /TRACELAKE_PORT/);
  t.match(stdout, /--duckdb-memory/);
  t.same(readdirSync(dataDir), [], 'no store was created');
});
