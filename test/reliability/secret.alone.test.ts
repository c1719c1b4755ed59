/**
 * The store's secret under damage (issue 10, defects 1, 3 and 4): a secret that is empty, short or
 * not hex, missing on a store with keys, swapped for another store's, or surviving a lost database
 * stops the start with one line saying how to recover — never a silent new secret, a forgeable
 * 0-byte key or a silently new tenant. `tracelake secret reset` is the documented recovery.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { call, copyOfStore, startServer, tempDir, type TestServer } from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(...unhooked(process.execPath, [CLI, ...args]), (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

interface UsedStore {
  dataDir: string;
  key: string;
  appId: string;
}

/** The store every test damages a copy of: run once, stopped cleanly. */
let original: Promise<UsedStore> | undefined;

async function runOnce(): Promise<UsedStore> {
  const server = await startServer();
  const used = {
    dataDir: server.dataDir,
    key: server.bootstrap!.api_key as string,
    appId: server.bootstrap!.app_id as string,
  };
  const code = await server.stop('SIGTERM');
  if (code !== 0) throw new Error(`the first start stopped with ${code}`);
  return used;
}

/** A store that has run once (bootstrap key and all), stopped cleanly: a copy of one, its own. */
async function usedStore(t: Test): Promise<UsedStore> {
  const { dataDir, key, appId } = await (original ??= runOnce());
  const copy = copyOfStore(dataDir);
  t.teardown(() => rmSync(copy, { recursive: true, force: true }));
  return { dataDir: copy, key, appId };
}

async function refused(t: Test, dataDir: string, pattern: RegExp, args: string[] = []): Promise<void> {
  await t.rejects(startServer({ dataDir, args }), pattern);
}

const secretOf = (dataDir: string) => readFileSync(join(dataDir, 'secret'), 'latin1');

t.test('a first start writes the secret whole, owner-only, and leaves no pending or temp file', async (t) => {
  const { dataDir, key, appId } = await usedStore(t);
  t.match(secretOf(dataDir), /^[0-9a-f]{64}\n$/);
  t.equal(statSync(join(dataDir, 'secret')).mode & 0o777, 0o600);
  t.same(
    readdirSync(dataDir).filter((f) => f.startsWith('secret') || f.startsWith('.write-probe')),
    ['secret'],
  );
  // And the next start accepts it (the store recorded its check value).
  const again = await startServer({ dataDir });
  t.teardown(() => again.stop('SIGKILL'));
  t.equal((await call(again, 'GET', '/v1/api-keys', { auth: { key, appId } })).status, 200);
});

for (const [what, content] of [
  ['empty (what a full disk leaves)', ''],
  ['short', 'abcd\n'],
  ['not hex', 'z'.repeat(64) + '\n'],
  ['hex with garbage after it', 'a'.repeat(64) + '\nxx'],
] as const) {
  t.test(`a secret file that is ${what} stops the start, on a used store and on a new one`, async (t) => {
    const { dataDir } = await usedStore(t);
    writeFileSync(join(dataDir, 'secret'), content);
    await refused(t, dataDir, /exited with 1.*is not a Tracelake secret.*secret reset/s);
    t.equal(secretOf(dataDir), content, 'the damaged file is left for the operator to look at');

    const fresh = tempDir();
    t.teardown(() => rmSync(fresh, { recursive: true, force: true }));
    writeFileSync(join(fresh, 'secret'), content);
    await refused(t, fresh, /is not a Tracelake secret/);
    t.notOk(existsSync(join(fresh, 'tracelake.duckdb')), 'no store was created');
  });
}

t.test('a deleted secret on a store with keys stops the start instead of locking every key out', async (t) => {
  const { dataDir } = await usedStore(t);
  unlinkSync(join(dataDir, 'secret'));
  await refused(t, dataDir, /exited with 1.*has API keys but its secret file is missing.*secret reset/s);
  t.same(
    readdirSync(dataDir).filter((f) => f.startsWith('secret')),
    [],
    'no new secret is left behind',
  );
});

t.test("another store's secret stops the start", async (t) => {
  const { dataDir } = await usedStore(t);
  writeFileSync(join(dataDir, 'secret'), 'b'.repeat(64) + '\n', { mode: 0o600 });
  await refused(t, dataDir, /is not the secret this store was created with/);
});

t.test('a secret without its database stops the start unless a new store is asked for', async (t) => {
  const { dataDir, key, appId } = await usedStore(t);
  const secret = secretOf(dataDir);
  rmSync(join(dataDir, 'tracelake.duckdb'));
  await refused(t, dataDir, /has a secret but no tracelake\.duckdb.*--allow-new-store/s);
  t.notOk(existsSync(join(dataDir, 'tracelake.duckdb')), 'the refusal created no database');

  const server: TestServer = await startServer({ dataDir, args: ['--allow-new-store', 'on'] });
  t.teardown(() => server.stop('SIGKILL'));
  t.ok(server.bootstrap, 'asked for, a new store is bootstrapped');
  t.equal(secretOf(dataDir), secret, 'with the surviving secret');
  t.equal(
    (await call(server, 'GET', '/v1/api-keys', { auth: { key, appId } })).status,
    401,
    'the old store is gone: its key does not open the new one',
  );
});

t.test('a pending secret from an interrupted first start is taken, not replaced', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const pending = 'c'.repeat(64) + '\n';
  writeFileSync(join(dataDir, 'secret.new'), pending, { mode: 0o600 });
  const server = await startServer({ dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  t.equal(secretOf(dataDir), pending);
  t.notOk(existsSync(join(dataDir, 'secret.new')));
});

t.test(
  '`tracelake secret reset` recovers a store whose secret is lost: old keys revoked, new keys printed',
  async (t) => {
    const { dataDir, key, appId } = await usedStore(t);
    unlinkSync(join(dataDir, 'secret'));
    const reset = await cli(['secret', 'reset', '--data-dir', dataDir]);
    t.equal(reset.code, 0, reset.stderr);
    const answer = JSON.parse(reset.stdout) as {
      revoked_all_keys: boolean;
      keys: { app_id: string; role: string; plaintext_key: string }[];
    };
    t.equal(answer.revoked_all_keys, true);
    t.equal(answer.keys.length, 1);
    t.match(answer.keys[0], { app_id: appId, role: 'full_access' });
    t.match(secretOf(dataDir), /^[0-9a-f]{64}\n$/);

    const server = await startServer({ dataDir });
    t.teardown(() => server.stop('SIGKILL'));
    t.equal(
      (await call(server, 'GET', '/v1/api-keys', { auth: { key, appId } })).status,
      401,
      'the old key does not verify',
    );
    const listed = await call(server, 'GET', '/v1/api-keys', { auth: { key: answer.keys[0]!.plaintext_key, appId } });
    t.equal(listed.status, 200, 'the printed key does');
    const bootstrapKey = (listed.body.data as { name: string; status?: string; revoked_at?: string | null }[]).find(
      (k) => k.name === 'bootstrap',
    );
    t.ok(bootstrapKey, 'the old key is still listed');
    t.not(bootstrapKey!.revoked_at ?? null, null, 'as revoked');
  },
);

t.test('the CLI refuses a damaged secret as the server does', async (t) => {
  const { dataDir, appId } = await usedStore(t);
  writeFileSync(join(dataDir, 'secret'), '');
  const r = await cli([
    'key',
    'create',
    '--app',
    appId,
    '--name',
    'x',
    '--role',
    'sdk',
    '--kinds',
    'production',
    '--data-dir',
    dataDir,
  ]);
  t.equal(r.code, 1);
  t.match(r.stderr, /is not a Tracelake secret/);
});
