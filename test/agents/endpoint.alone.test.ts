/**
 * `POST /v1/agents/sync` over HTTP: the envelope (schemaVersion), sessions rejected one by one with
 * their reasons while the rest is stored, blobs checked against their hash and size, secrets
 * scrubbed from text blobs, the tier ceiling of each plan (metrics, transcripts with a blob cap,
 * full), and who may sync.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import {
  call,
  createKey,
  rootCredentials,
  serverFor,
  startServer,
  tempDir,
  type Credentials,
  type TestServer,
} from '../helpers/server.js';
import { unhooked } from '../helpers/unhooked.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function blob(data: Buffer, mediaType = 'image/png') {
  return { sha256: sha(data), mediaType, bytes: data.length, data: data.toString('base64') };
}

/** A small valid session: a prompt with an image, an answer with usage, a tool call and its result. */
function session(id: string, image: Buffer = PNG, extra: Record<string, unknown>[] = []) {
  return {
    id,
    agent: { name: 'claude-code', version: '2.0.42' },
    startedAt: '2025-11-20T09:00:00.000Z',
    title: 'A title',
    events: [
      {
        id: 'u1',
        timestamp: '2025-11-20T09:00:00.000Z',
        type: 'user_message',
        content: [
          { type: 'text', text: 'Look at this screenshot.' },
          { type: 'blob', sha256: sha(image), mediaType: 'image/png', bytes: image.length },
        ],
      },
      {
        id: 'a1',
        timestamp: '2025-11-20T09:00:03.000Z',
        type: 'assistant_message',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: 'Checking the build.' }],
        usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 1000, cacheCreationTokens: 500 },
      },
      {
        id: 'c1',
        timestamp: '2025-11-20T09:00:03.100Z',
        type: 'tool_call',
        callId: 'call-1',
        name: 'Bash',
        input: { command: 'npm run build' },
      },
      {
        id: 'r1',
        timestamp: '2025-11-20T09:00:05.000Z',
        type: 'tool_result',
        callId: 'call-1',
        content: [{ type: 'text', text: 'build ok' }],
      },
      ...extra,
    ],
  };
}

function syncBody(sessions: unknown[], blobs: unknown[] = []) {
  return { schemaVersion: 1, sessions, blobs };
}

async function spansOf(server: TestServer, auth: Credentials, sessionId: string) {
  const traces = await call(server, 'GET', `/v1/sessions/${sessionId}/traces`, { auth });
  const trace = await call(server, 'GET', `/v1/traces/${traces.body.data[0].id}`, { auth });
  return trace.body.data.spans as any[];
}

t.test('the envelope, per-session rejections and blob checks', async (t) => {
  // At debug level the server logs where each sync request's time went (native-bench/agents-sync).
  const server = await serverFor(t, { env: { TRACELAKE_LOG_LEVEL: 'debug' } });
  const auth = rootCredentials(server);

  const version = await call(server, 'POST', '/v1/agents/sync', { auth, body: { schemaVersion: 2, sessions: [] } });
  t.equal(version.status, 400);
  t.match(version.body.error, {
    code: 'invalid_request_body',
    message: 'Invalid request body',
    details: { schemaVersion: /must be 1/ },
  });
  const shape = await call(server, 'POST', '/v1/agents/sync', { auth, body: { schemaVersion: 1 } });
  t.equal(shape.status, 400);
  t.match(shape.body.error.details, { sessions: /expected/ });
  const notJson = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    rawBody: '{"schemaVersion":',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(notJson.status, 400);
  t.match(notJson.body.error.details.body, /not valid JSON/);

  const good = session('good-1');
  const noEvents = { ...session('bad-1'), events: undefined };
  const badTime = session('bad-2', PNG, [{ id: 'x', timestamp: 'yesterday', type: 'system', kind: 'info' }]);
  const twice = session('bad-3', PNG, [
    { id: 'u1', timestamp: '2025-11-20T09:00:06.000Z', type: 'system', kind: 'info' },
  ]);
  const orphan = session('bad-4', PNG, [
    { id: 'e9', parentId: 'nowhere', timestamp: '2025-11-20T09:00:06.000Z', type: 'system', kind: 'info' },
  ]);
  const deepInput = Array.from({ length: 65 }).reduce<unknown>((inner) => ({ next: inner }), 'ghp_' + 'x'.repeat(36));
  const tooDeep = session('bad-5', PNG, [
    {
      id: 'd1',
      timestamp: '2025-11-20T09:00:06.000Z',
      type: 'tool_call',
      callId: 'deep',
      name: 'Bash',
      input: deepInput,
    },
  ]);
  const wrongHash = { ...blob(Buffer.from('other bytes')), sha256: 'a'.repeat(64) };
  const wrongSize = { ...blob(Buffer.from('some bytes')), bytes: 3 };
  const answer = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody(
      [good, noEvents, badTime, twice, orphan, 'not a session', tooDeep],
      [blob(PNG), wrongHash, wrongSize],
    ),
  });
  t.equal(answer.status, 200, answer.text);
  const data = answer.body.data;
  t.same(data.accepted, ['good-1']);
  t.match(data, { tenantTier: 'full', blobsStored: 1 });
  t.ok(data.spanRows >= 4, 'the good session is stored');
  const reasons = Object.fromEntries(
    data.rejected.map((r: { index: number; id: string; reason: string }) => [`${r.id}@${r.index}`, r.reason]),
  );
  t.match(reasons, {
    'bad-1@1': /events: expected/,
    'bad-2@2': /events\[4\]\.timestamp/,
    'bad-3@3': /the id "u1" is used twice/,
    'bad-4@4': /not an earlier subagent_start/,
    '@5': /item: expected/,
    'bad-5@6': /events\[4\]\.input: nested deeper than 64 levels/,
    [`${'a'.repeat(64)}@1`]: /^blob: sha256 does not match the data/,
    [`${wrongSize.sha256}@2`]: /^blob: bytes is 3 but data decodes to 10 bytes/,
  });
  t.equal(data.rejected.length, 8);
  const longId = `${'x'.repeat(255)}😀tail`;
  const cut = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody([{ ...session(longId), events: undefined }]),
  });
  t.same(
    cut.body.data.rejected.map((r: { id: string }) => r.id),
    ['x'.repeat(255)],
    "a rejected item's id is echoed cut at 256 units, never inside a character",
  );

  const image = await fetch(`${server.url}/v1/agents/blob/${sha(PNG)}`, {
    headers: { authorization: `Bearer ${auth.key}`, 'x-service-app-id': auth.appId },
  });
  t.equal(image.status, 200);
  t.same(Buffer.from(await image.arrayBuffer()), PNG);
  t.equal(
    (await call(server, 'GET', `/v1/agents/blob/${'a'.repeat(64)}`, { auth })).status,
    404,
    'a rejected blob is not stored',
  );

  const again = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody([good, session('good-2')], [blob(PNG)]),
  });
  t.match(
    again.body.data,
    { accepted: ['good-1', 'good-2'], blobsStored: 0 },
    'a blob stored already is not counted again',
  );
  const repeat = await call(server, 'POST', '/v1/agents/sync', { auth, body: syncBody([good]) });
  t.match(repeat.body.data, { accepted: ['good-1'], spanRows: 0 }, 'a session synced again stores nothing');

  // The log line of the last request may reach us just after its answer: wait for it.
  await server.waitForLog((l) => l.msg === 'agents sync steps' && l.spanRows === 0);
  const steps = server.logs.filter((l) => l.msg === 'agents sync steps');
  t.same(
    steps.map((l) => [l.sessions, l.spanRows]),
    [
      [1, data.spanRows],
      [2, again.body.data.spanRows],
      [1, 0],
    ],
    'each request that kept a session logs its steps',
  );
  t.ok((steps[2]!.knownSpans as number) >= 4, "the store knew the repeated session's spans");
  for (const key of ['prepareMs', 'knownMs', 'ackMs', 'visibleWaitMs'])
    t.ok(
      steps.every((l) => typeof l[key] === 'number' && (l[key] as number) >= 0),
      key,
    );

  // A blob's type is the uploader's word: an HTML page served from the gateway's origin must not run.
  const page = Buffer.from('<script>fetch("/v1/api-keys")</script>');
  const withPage = session('page-1', PNG, [
    {
      id: 'r9',
      timestamp: '2025-11-20T09:00:08.000Z',
      type: 'user_message',
      content: [{ type: 'blob', sha256: sha(page), mediaType: 'text/html', bytes: page.length }],
    },
  ]);
  const stored = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody([withPage], [blob(page, 'text/html')]),
  });
  t.equal(stored.body.data.blobsStored, 1, stored.text);
  const html = await call(server, 'GET', `/v1/agents/blob/${sha(page)}`, { auth });
  t.equal(html.status, 200);
  t.equal(html.headers.get('content-type'), 'text/html');
  t.equal(html.headers.get('x-content-type-options'), 'nosniff');
  t.equal(html.headers.get('content-disposition'), 'attachment', 'an active type is a download');
  t.match(html.headers.get('content-security-policy'), /sandbox/);
  t.equal(image.headers.get('x-content-type-options'), 'nosniff');
  t.equal(image.headers.get('content-disposition'), null, 'an image is shown inline');

  // Blobs sent alone are checked and stored as with sessions; a later request's session names them.
  const later = Buffer.concat([PNG, Buffer.from('a later screenshot')]);
  const notes = Buffer.from('release notes, sent before the session that quotes them\n');
  const alone = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody([], [blob(later), blob(notes, 'text/plain'), wrongHash, blob(PNG)]),
  });
  t.equal(alone.status, 200, alone.text);
  t.match(
    alone.body.data,
    { accepted: [], blobsStored: 2, spanRows: 0, rejected: [{ index: 2, reason: /^blob: sha256 does not match/ }] },
    'the two new blobs are stored; the bad one rejected, the known one not counted',
  );
  t.equal(alone.body.data.rejected.length, 1);
  const laterBack = await fetch(`${server.url}/v1/agents/blob/${sha(later)}`, {
    headers: { authorization: `Bearer ${auth.key}`, 'x-service-app-id': auth.appId },
  });
  t.equal(laterBack.status, 200, 'a blob sent alone is read back');
  t.same(Buffer.from(await laterBack.arrayBuffer()), later);
  t.equal((await call(server, 'GET', `/v1/agents/blob/${sha(notes)}`, { auth })).text, notes.toString());
  const aloneAgain = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody([], [blob(later), blob(notes, 'text/plain')]),
  });
  t.match(aloneAgain.body.data, { blobsStored: 0 }, 'blobs sent alone again are not stored twice');
  const readsLater = session('later-1', PNG, [
    { id: 'c2', timestamp: '2025-11-20T09:00:06.000Z', type: 'tool_call', callId: 'call-2', name: 'Read', input: {} },
    {
      id: 'r2',
      timestamp: '2025-11-20T09:00:07.000Z',
      type: 'tool_result',
      callId: 'call-2',
      content: [{ type: 'blob', sha256: sha(later), mediaType: 'image/png', bytes: later.length }],
    },
  ]);
  const naming = await call(server, 'POST', '/v1/agents/sync', { auth, body: syncBody([readsLater]) });
  t.match(naming.body.data, { accepted: ['later-1'], blobsStored: 0 }, naming.text);
  const read = (await spansOf(server, auth, 'later-1')).find((x) => x.name === 'Read');
  const detail = (await call(server, 'GET', `/v1/traces/${read.trace_id}/spans/${read.id}`, { auth })).body.data;
  t.match(
    JSON.parse(detail.output)[0],
    { type: 'blob', mediaType: 'image/png', base64: later.toString('base64') },
    "the tool result's blob, sent in an earlier request, is put back inline",
  );
});

t.test('the body is checked as the router checks one: media type, UTF-8, and not empty', async (t) => {
  const server = await serverFor(t);
  const auth = rootCredentials(server);
  const text = JSON.stringify(syncBody([session('plain-1')], [blob(PNG)]));
  const traces = async () => {
    const r = await call(server, 'GET', '/v1/sessions/plain-1/traces', { auth });
    return r.status === 404 ? 0 : (r.body.data as unknown[]).length; // an unknown session is 404
  };

  const plain = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    rawBody: text,
    headers: { 'content-type': 'text/plain' },
  });
  t.equal(plain.status, 415);
  t.match(plain.body.error, { code: 'unsupported_media_type', message: /Expected application\/json, got text\/plain/ });
  t.equal(await traces(), 0, 'a refused body stores nothing');
  const notUtf8 = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    rawBody: Buffer.from([0x7b, 0xff, 0x7d]),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(notUtf8.status, 400);
  t.same(notUtf8.body.error.details, { body: 'not valid UTF-8' });
  for (const empty of ['', '  \n']) {
    const answer = await call(server, 'POST', '/v1/agents/sync', {
      auth,
      rawBody: empty,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(answer.status, 400, `${JSON.stringify(empty)}: 400`);
    t.same(answer.body.error.details, { body: 'is empty' });
  }

  const json = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    rawBody: text,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
  t.equal(json.status, 200, 'the same bytes as JSON are taken');
  t.same(json.body.data.accepted, ['plain-1']);
  t.equal(await traces(), 1);
});

t.test('secrets in text blobs are scrubbed and the sessions follow the new hash', async (t) => {
  const server = await serverFor(t);
  const auth = rootCredentials(server);
  const log = Buffer.from(
    'deploy log\nexport GITHUB_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s01\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\nall done\n',
  );
  const s = session('blobs-1', PNG, [
    {
      id: 'c2',
      timestamp: '2025-11-20T09:00:06.000Z',
      type: 'tool_call',
      callId: 'call-2',
      name: 'Bash',
      input: { command: 'cat deploy.log' },
    },
    {
      id: 'r2',
      timestamp: '2025-11-20T09:00:07.000Z',
      type: 'tool_result',
      callId: 'call-2',
      content: [{ type: 'blob', sha256: sha(log), mediaType: 'text/plain', bytes: log.length }],
    },
  ]);
  const answer = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody([s], [blob(PNG), blob(log, 'text/plain')]),
  });
  t.equal(answer.status, 200, answer.text);
  t.equal(answer.body.data.blobsStored, 2);
  t.equal(
    (await call(server, 'GET', `/v1/agents/blob/${sha(log)}`, { auth })).status,
    404,
    'the blob as sent is not stored',
  );
  const spans = await spansOf(server, auth, 'blobs-1');
  const tool = spans.find((x) => x.name === 'Bash' && /deploy/.test(x.output_preview ?? ''));
  t.ok(tool, 'the tool span shows the (scrubbed) text of its blob');
  t.match(tool.output_preview, /GITHUB_TOKEN=\[REDACTED:github_token\]/);
  t.match(tool.output_preview, /Authorization: \[REDACTED:authorization_header\]/);
  t.notMatch(tool.output_preview, /ghp_|eyJhbGci/);
});

t.test('half a character in a transcript is mended, the same in every field', async (t) => {
  const server = await serverFor(t);
  const auth = rootCredentials(server);
  // JSON.stringify writes a lone surrogate as an escape, as an agent's own JSONL would hold it.
  const cut = session('cut-1', PNG, [
    {
      id: 'u2',
      timestamp: '2025-11-20T09:00:06.000Z',
      type: 'user_message',
      content: [{ type: 'text', text: 'why \udc00 this' }],
    },
    {
      id: 'a2',
      timestamp: '2025-11-20T09:00:07.000Z',
      type: 'assistant_message',
      model: 'm',
      content: [{ type: 'text', text: 'done \ud83d' }],
    },
  ]);
  const answer = await call(server, 'POST', '/v1/agents/sync', {
    auth,
    body: syncBody([{ ...cut, title: 'A \udc00 title' }], [blob(PNG)]),
  });
  t.same([answer.status, answer.body.data.accepted], [200, ['cut-1']], answer.text);
  const spans = await spansOf(server, auth, 'cut-1');
  t.ok(
    spans.some((s) => s.name === 'A \ufffd title'),
    'the title, U+FFFD for the half',
  );
  const last = spans.find((s) => s.output_preview?.startsWith('done'));
  t.equal(last?.output_preview, 'done \ufffd', 'a message text');
  // The answer's input is the conversation as JSON: the half was left there as an escape before.
  t.match(last?.input_preview, 'why \ufffd this', 'the JSON a generation holds');
  t.notMatch(last?.input_preview, /\\u[dD][89a-fA-F]/, 'no escaped half in it');
});

t.test("each plan's tier ceiling, and who may sync", async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const plansFile = join(dataDir, '..', `plans-${process.pid}.json`);
  writeFileSync(
    plansFile,
    JSON.stringify({
      default: 'self_hosted',
      upgrade_url: 'https://example.com/upgrade',
      plans: {
        self_hosted: { max_apps: null, max_keys: null, monthly_spans: null, storage_bytes: null, agents_tier: 'full' },
        basic: { max_apps: null, max_keys: null, monthly_spans: null, storage_bytes: null, agents_tier: 'metrics' },
        pro: {
          max_apps: null,
          max_keys: null,
          monthly_spans: null,
          storage_bytes: null,
          agents_tier: 'transcripts',
          agents_blob_cap_bytes: 64,
        },
      },
    }),
  );
  t.teardown(() => rmSync(plansFile, { force: true }));
  const cli = (...args: string[]) =>
    new Promise<any>((resolve, reject) =>
      execFile(...unhooked(process.execPath, [CLI, ...args, '--data-dir', dataDir]), (e, out, err) =>
        e ? reject(new Error(err)) : resolve(JSON.parse(out)),
      ),
    );
  // Keys are made offline, before the server holds the store: an SDK key to sync, a Full Access one to read.
  const keys: Record<string, Credentials> = {};
  const readers: Record<string, Credentials> = {};
  for (const [name, plan] of [
    ['f', 'self_hosted'],
    ['m', 'basic'],
    ['tr', 'pro'],
  ]) {
    const tenant = await cli(
      'tenant',
      'create',
      '--name',
      `tenant-${name}`,
      '--plan',
      plan!,
      '--plans-file',
      plansFile,
    );
    const key = await cli(
      'key',
      'create',
      '--app',
      tenant.app_id,
      '--name',
      'sync',
      '--role',
      'sdk',
      '--environment',
      'production',
    );
    const admin = await cli(
      'key',
      'create',
      '--app',
      tenant.app_id,
      '--name',
      'admin',
      '--role',
      'full-access',
      '--environment',
      'production',
    );
    keys[plan!] = { key: key.plaintext_key, appId: tenant.app_id };
    readers[plan!] = { key: admin.plaintext_key, appId: tenant.app_id };
  }
  const server = await startServer({ dataDir, args: ['--plans-file', plansFile] });
  t.teardown(() => server.stop('SIGKILL'));
  const big = Buffer.concat([PNG, Buffer.alloc(200, 7)]);
  const body = syncBody([session('tiered', big)], [blob(big)]);

  const full = await call(server, 'POST', '/v1/agents/sync', { auth: keys.self_hosted!, body });
  t.match(full.body.data, { tenantTier: 'full', blobsStored: 1, accepted: ['tiered'] }, 'the SDK preset can sync');
  const metrics = await call(server, 'POST', '/v1/agents/sync', { auth: keys.basic!, body });
  t.match(metrics.body.data, { tenantTier: 'metrics', blobsStored: 0, accepted: ['tiered'] });
  const transcripts = await call(server, 'POST', '/v1/agents/sync', { auth: keys.pro!, body });
  t.match(transcripts.body.data, { tenantTier: 'transcripts', blobsStored: 0 }, 'the blob is over the 64-byte cap');

  const m = await spansOf(server, readers.basic!, 'tiered');
  const gen = m.find((s) => s.type === 'GENERATION');
  t.match(
    gen,
    { input_tokens: 1510, output_tokens: 20, cached_input_tokens: 1000, model: 'claude-sonnet-4-5-20250929' },
    'metrics keeps counts',
  );
  t.ok(gen.cost > 0, 'and costs');
  t.same(
    JSON.parse(gen.output_preview),
    { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', name: 'Bash' }] },
    'but no content: the names of the tools it called',
  );
  const tool = m.find((s) => s.span_kind === 'tool');
  t.match(
    tool,
    { name: 'Bash', input_preview: null, output_preview: null },
    'tool names without their input or output',
  );
  t.equal(m.find((s) => s.parent_id === null).name, 'claude-code session', 'no title either');

  const tr = await spansOf(server, readers.pro!, 'tiered');
  const prompt = tr.find((s) => s.name === 'user message');
  t.match(
    prompt.input_preview,
    /Look at this screenshot\.\n\n\[blob not kept: image\/png, 229 bytes, over this plan's 64-byte cap\]/,
  );
  t.match(
    tr.find((s) => s.span_kind === 'tool'),
    { input_preview: /npm run build/, output_preview: 'build ok' },
    'transcripts keep content',
  );
  t.equal((await call(server, 'GET', `/v1/agents/blob/${sha(big)}`, { auth: readers.pro! })).status, 404);

  const f = await spansOf(server, readers.self_hosted!, 'tiered');
  t.match(
    f.find((s) => s.name === 'user message').input_preview,
    /"sha256":"[0-9a-f]{64}"/,
    'full keeps the blob reference',
  );
  t.equal((await call(server, 'GET', `/v1/agents/blob/${sha(big)}`, { auth: readers.self_hosted! })).status, 200);

  const readOnlyKey = await createKey(server, readers.self_hosted!, { name: 'reader', role: 'Read-Only' });
  const readOnly = await call(server, 'POST', '/v1/agents/sync', { auth: readOnlyKey, body });
  t.equal(readOnly.status, 403, 'a key without trace.write');
  t.equal(readOnly.body.error.code, 'forbidden');
});
