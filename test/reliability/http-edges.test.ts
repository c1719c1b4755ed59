/**
 * HTTP edge cases at the front end, spoken over raw sockets where a client library would not send
 * the bytes: too many headers (a), malformed framing (b), header values that do not survive (c), the
 * 503 while draining (d), and a 413 that Node clients must get to read (e).
 *
 * Much of (a)–(c) happens in the C++ parser of uWS (@trufflesuite/uws-js-unofficial 20.30.0)
 * before any JS runs, and this build gives JS no say there: no error responses (the binary holds no
 * "400 Bad Request"/"431" text), no hook on connections (no `App.filter`), and it does not read
 * `UWS_HTTP_MAX_HEADERS_SIZE` (a 5 KB header still passes with it set to 100). Where that is so, the
 * test pins what goes over the wire today and says why; when a change of uWS build makes one of
 * those assertions fail, assert the status the case calls for instead. Newer uWS builds answer 400
 * and 505 with `Connection: close` on framing errors (src/HttpErrors.h upstream), but the ones seen
 * still wait out the idle timeout on too many headers (uNetworking/uWebSockets#1779 on v20.48,
 * uWebSockets.js#1099) and still strip bytes 0x80–0xFF at the ends of header values.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import t, { type Test } from 'tap';
import { rootCredentials, serverFor, type Credentials, type TestServer } from '../helpers/server.js';

// (a), (b) and (c) each wait out uWS's idle timeout on a connection it holds: run side by side, each
// with its own server, they wait once instead of three times (50 s → see the commit).
t.jobs = 3;

/** uWS's HTTP idle timeout is 10 s on a 4 s timer tick: it closes what it holds 8–12 s in (plus margin). */
const IDLE_CLOSE_MS = 16_000;

interface Wire {
  /** Everything the server sent, as latin1 text. */
  text: string;
  status: number | null;
  /** Milliseconds until the server closed the connection; null if it was still open at the end. */
  closedMs: number | null;
}

/**
 * Writes `parts` to a fresh connection, 50 ms apart, and collects what comes back until the server
 * closes it or `waitMs` passes.
 */
function exchange(server: TestServer, parts: (string | Buffer)[], waitMs = 1_000): Promise<Wire> {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1');
    const started = performance.now();
    const chunks: Buffer[] = [];
    let closedMs: number | null = null;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ text, status: statusOf(text), closedMs });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closedMs = performance.now() - started;
      finish();
    });
    parts.forEach((p, i) => setTimeout(() => socket.writable && socket.write(p), i * 50));
  });
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? NaN) || null;
const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string; details?: Record<string, string> } };
/** The values of every `name` header line of the first response in `text`. */
const headerLines = (text: string, name: string) =>
  text
    .slice(0, text.indexOf('\r\n\r\n'))
    .split('\r\n')
    .filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    .map((l) => l.slice(name.length + 1).trim());

/** A GET /health with `n` header fields in all (Host among them), each value `width` bytes. */
function withHeaders(n: number, width = 1): string {
  let head = 'GET /health HTTP/1.1\r\nHost: x\r\n';
  for (let i = 1; i < n; i++) head += `X-H${i}: ${'v'.repeat(width)}\r\n`;
  return head + '\r\n';
}

/** A request to list keys whose Authorization value is `Bearer ` followed by `key` as raw bytes. */
function keysRequest(root: Credentials, key: Buffer, extra = ''): Buffer {
  return Buffer.concat([
    Buffer.from(`GET /v1/api-keys HTTP/1.1\r\nHost: x\r\nX-Service-App-Id: ${root.appId}\r\n${extra}Authorization: Bearer `),
    key,
    Buffer.from('\r\nConnection: close\r\n\r\n'),
  ]);
}

async function healthy(t: Test, server: TestServer, what: string): Promise<void> {
  t.equal((await fetch(`${server.url}/health`)).status, 200, `the server answers the next client (${what})`);
}

t.test('(a) 49 or more headers: uWS never hands the request over, and closes the connection without a byte', async (t) => {
  // uWS keeps the request line and the headers in one array of MAX_HEADERS = 50 entries, the last
  // one an end mark, so a request has at most 48 header fields. With more, its parser reports "need
  // more bytes", exactly as for a request still arriving: nothing reaches JS (it does not pass on a
  // truncated list JS could count), and the connection waits for uWS's idle timeout. Only when the
  // unparsed header block outgrows its 4 KiB buffer does it close at once. A 431 cannot be sent from
  // here with this build.
  const server = await serverFor(t);
  const within = await exchange(server, [withHeaders(48)]);
  t.equal(within.status, 200, '48 header fields are served');

  const started = performance.now();
  const [at49, at100] = await Promise.all([
    exchange(server, [withHeaders(49)], IDLE_CLOSE_MS + 2_000),
    exchange(server, [withHeaders(100)], IDLE_CLOSE_MS + 2_000),
    // Meanwhile the server serves everyone else.
    new Promise((r) => setTimeout(r, 500)).then(() => healthy(t, server, 'while two connections wait')),
  ]);
  for (const [name, wire] of [['49 headers', at49], ['100 headers', at100]] as const) {
    t.equal(wire.text, '', `${name}: not a byte comes back (a 431 is what the case calls for)`);
    t.ok(wire.closedMs !== null && wire.closedMs < IDLE_CLOSE_MS, `${name}: closed by uWS's idle timeout, after ${Math.round(wire.closedMs ?? -1)} ms`);
  }
  t.comment(`two held connections took ${Math.round(performance.now() - started)} ms`);

  const large = await exchange(server, [withHeaders(49, 100)]);
  t.equal(large.text, '', '49 headers in a 5 KiB block: not a byte comes back');
  t.ok(large.closedMs !== null && large.closedMs < 1_000, 'closed at once: the block outgrew the parser buffer');
  await healthy(t, server, 'after all three');
});

t.test('(b) malformed framing', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);

  t.test('Content-Length twice with different values is 400 and the connection is closed', async (t) => {
    // uWS frames the body by the first Content-Length; a proxy in front may have used the last. The
    // tail here is a whole second request on the same connection, waiting for the next client's
    // bytes to complete it: it must never be served.
    const smuggled = 'GET /v1/api-keys HTTP/1.1\r\nX-Ignore: ';
    const wire = await exchange(server, [
      `POST /v1/scores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${root.key}\r\nX-Service-App-Id: ${root.appId}\r\nContent-Length: 0\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
      'x\r\nHost: x\r\n\r\n',
    ]);
    t.equal(wire.status, 400, wire.text);
    t.equal(bodyOf(wire.text).error.code, 'invalid_request_headers', 'invalid_request_headers');
    t.match(bodyOf(wire.text).error.details, { 'content-length': /more than once with different values/ }, 'naming content-length');
    t.same(headerLines(wire.text, 'connection'), ['close'], 'Connection: close, once');
    t.ok(wire.closedMs !== null && wire.closedMs < 1_000, 'the server closed the connection');
    t.equal(wire.text.match(/HTTP\/1\.1 /g)?.length, 1, 'one response: the tail was not served');

    const same = await exchange(server, ['GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n']);
    t.equal(same.status, 200, 'the same value twice frames the body one way: served');
  });

  t.test('uWS closes the connection at once, without a response, on bad lengths and chunks', async (t) => {
    // Its parser treats these as errors and closes the socket before JS sees the request; this build
    // has no error responses to send instead (newer ones answer 400 Bad Request). Evidence, bytes in
    // → out: each request below → 0 bytes, FIN within a few milliseconds.
    const post = (head: string, body: string) => `POST /v1/scores HTTP/1.1\r\nHost: x\r\n${head}\r\n${body}`;
    const cases: [string, string][] = [
      ['Content-Length: abc', post('Content-Length: abc\r\n', '{}')],
      ['Content-Length: -1', post('Content-Length: -1\r\n', '{}')],
      ['Content-Length: +2', post('Content-Length: +2\r\n', '{}')],
      ['Content-Length: 0x2', post('Content-Length: 0x2\r\n', '{}')],
      ['Content-Length: 2, 2', post('Content-Length: 2, 2\r\n', '{}')],
      ['Content-Length over 2^64', post('Content-Length: 99999999999999999999\r\n', '{}')],
      ['Content-Length and Transfer-Encoding', post('Content-Length: 2\r\nTransfer-Encoding: chunked\r\n', '2\r\n{}\r\n0\r\n\r\n')],
      ['Transfer-Encoding and Content-Length', post('Transfer-Encoding: chunked\r\nContent-Length: 2\r\n', '2\r\n{}\r\n0\r\n\r\n')],
      ['Transfer-Encoding: gzip', post('Transfer-Encoding: gzip\r\n', '{}')],
      ['chunk size zz', post('Transfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n')],
      ['chunk size -5', post('Transfer-Encoding: chunked\r\n', '-5\r\n{}\r\n0\r\n\r\n')],
      ['chunk size of 18 hex digits', post('Transfer-Encoding: chunked\r\n', 'ffffffffffffffffff\r\n{}\r\n0\r\n\r\n')],
      ['request line of 5 KiB without an end', `GET /${'a'.repeat(5_000)}`],
    ];
    for (const [name, bytes] of cases) {
      const wire = await exchange(server, [bytes]);
      t.equal(wire.text, '', `${name}: no response (400 is what the case calls for)`);
      t.ok(wire.closedMs !== null && wire.closedMs < 1_000, `${name}: closed at once (${Math.round(wire.closedMs ?? -1)} ms)`);
    }
    await healthy(t, server, 'after the malformed requests');

    // A chunk extension (`2;a=b`, valid HTTP) passes the headers to JS but stalls the body: uWS waits
    // for bytes that already came, the body never ends. A refusal is sent once the linger bound
    // (2 s) gives up on the body, with Connection: close.
    const extension = await exchange(server, [post('Transfer-Encoding: chunked\r\n', '2;a=b\r\n{}\r\n0\r\n\r\n')], 5_000);
    t.equal(extension.status, 401, 'chunk extension: the request reached JS (no credentials: 401)');
    t.same(headerLines(extension.text, 'connection'), ['close'], 'chunk extension: answered with Connection: close once the linger bound gave up');
    t.ok(extension.closedMs !== null && extension.closedMs >= 1_900, `chunk extension: after the linger bound (${Math.round(extension.closedMs ?? -1)} ms)`);
  });

  t.test('uWS holds a garbage request line open, without a response, until its idle timeout', async (t) => {
    // These its parser takes for a request still arriving ("need more bytes"), so they wait like
    // (a): 0 bytes, closed 8–12 s later. HTTP/1.0 and an HTTP/1.1 request without Host fall here
    // too (newer uWS answers 505 to HTTP/1.0).
    const cases: [string, string | Buffer][] = [
      ['HELLO', 'HELLO\r\n\r\n'],
      ['binary bytes', Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x0d, 0x0a, 0x0d, 0x0a])],
      ['no HTTP version', 'GET /health\r\nHost: x\r\n\r\n'],
      ['HTTP/1.0', 'GET /health HTTP/1.0\r\nHost: x\r\n\r\n'],
      ['HTTP/1.1 without Host', 'GET /health HTTP/1.1\r\n\r\n'],
    ];
    const wires = await Promise.all(cases.map(([, bytes]) => exchange(server, [bytes], IDLE_CLOSE_MS + 2_000)));
    cases.forEach(([name], i) => {
      t.equal(wires[i]!.text, '', `${name}: no response (400 is what the case calls for)`);
      t.ok(wires[i]!.closedMs !== null && wires[i]!.closedMs! < IDLE_CLOSE_MS, `${name}: closed by uWS's idle timeout (${Math.round(wires[i]!.closedMs ?? -1)} ms)`);
    });
    await healthy(t, server, 'after the garbage');
  });
});

t.test('(c) header values: control characters and bytes that do not survive', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const key = Buffer.from(root.key);
  const byte = (...b: number[]) => Buffer.from(b);
  t.equal((await exchange(server, [keysRequest(root, key)])).status, 200, 'the key as sent authenticates');

  // uWS decodes header values as UTF-8: a byte that is not valid UTF-8 arrives as U+FFFD, and 0x7F
  // arrives as itself. Either is refused before routing and auth.
  for (const [name, bytes] of [
    ['DEL after the key', Buffer.concat([key, byte(0x7f)])],
    ['0xFF inside the key', Buffer.concat([key.subarray(0, 12), byte(0xff), key.subarray(12)])],
    ['0xFF before the key', Buffer.concat([byte(0xff), key])],
  ] as const) {
    const wire = await exchange(server, [keysRequest(root, bytes)]);
    t.equal(wire.status, 400, `${name}: 400`);
    t.same(bodyOf(wire.text).error, { code: 'invalid_request_headers', message: 'Invalid request headers', details: { authorization: 'contains a control character or a byte that is not UTF-8 text' } }, `${name}: the header is named`);
  }
  const anyHeader = await exchange(server, [Buffer.concat([Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nX-Note: a'), byte(0xc3, 0x28), Buffer.from('b\r\n\r\n')])]);
  t.equal(anyHeader.status, 400, 'any header, on any route: invalid UTF-8 inside X-Note');
  t.match(bodyOf(anyHeader.text).error.details, { 'x-note': /not UTF-8/ }, 'naming x-note');
  const text = await exchange(server, [Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nX-Note: caf\u00e9 au\tlait\r\n\r\n', 'utf8')]);
  t.equal(text.status, 200, 'UTF-8 text and a tab inside a value are fine');

  // Limitation, pinned: uWS trims a value's ends with `value.back() < 33` on a signed char, so bytes
  // 0x80–0xFF at either end are cut off with the spaces, before JS sees the value. `Bearer <key>\xff`
  // reaches JS as exactly `Bearer <key>` and authenticates: nothing is left to tell it apart. Only
  // uWS can fix this (a 400 is what the case calls for).
  const trailing = await exchange(server, [keysRequest(root, Buffer.concat([key, byte(0xff)]))]);
  t.equal(trailing.status, 200, 'a trailing 0xFF is cut off by uWS before JS sees the value (uWS limitation)');

  // Limitation, pinned: a C0 control character in a value stalls uWS's parser like (a): no byte back,
  // closed when its idle timeout fires.
  const control = await exchange(server, [keysRequest(root, Buffer.concat([key, byte(0x01)]))], IDLE_CLOSE_MS + 2_000);
  t.equal(control.text, '', 'a C0 control character: no response from uWS (uWS limitation)');
  t.ok(control.closedMs !== null && control.closedMs < IDLE_CLOSE_MS, `closed by uWS's idle timeout (${Math.round(control.closedMs ?? -1)} ms)`);
});

t.test('(d) while draining, a request on an open connection gets 503 with Retry-After and one Connection: close', async (t) => {
  const server = await serverFor(t, { env: { TRACELAKE_FAULT_INJECTION: 'on' } });
  const socket = net.connect(server.port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  const closed = new Promise<void>((r) => socket.on('close', () => r()));
  const answered = async () => {
    const deadline = Date.now() + 5_000;
    while (!/\r\n\r\n[\s\S]*\}$/.test(received) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const text = received;
    received = '';
    return text;
  };
  socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  const first = await answered();
  t.equal(statusOf(first), 200, 'a first request on the connection is served');
  t.same(headerLines(first, 'connection'), [], 'the connection is kept alive');

  const slow = fetch(`${server.url}/v1/_faults/slow?ms=1500`);
  await new Promise((r) => setTimeout(r, 200));
  const exit = server.stop('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  const refused = await answered();
  t.equal(statusOf(refused), 503, refused);
  t.same(headerLines(refused, 'retry-after'), ['1'], 'Retry-After, once');
  t.same(headerLines(refused, 'connection'), ['close'], 'Connection: close, exactly once');
  t.equal(bodyOf(refused).error.code, 'unavailable', 'unavailable');
  await closed;
  t.pass('the server closed the connection');
  t.equal((await slow).status, 200, 'the request in flight is answered');
  t.equal(await exit, 0, 'exit code 0');
});

/** One POST with `body` through Node's http client; resolves with the status it read, or the error. */
function post(server: TestServer, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number | null; headers: IncomingHttpHeaders; text: string; error: string | null }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? null, headers: res.headers, text, error: null }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: null, headers: {}, text: '', error: e.code ?? e.message }));
    req.end(body);
  });
}

t.test('(e) a 413 answered before the body is read reaches Node clients', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const auth = { authorization: `Bearer ${root.key}`, 'x-service-app-id': root.appId, 'content-type': 'application/json' };

  // POST /v1/scores takes 8 MiB; a body five times that is refused on its Content-Length, then read
  // and dropped before the 413 goes out, so the client (still writing) gets to read it.
  const body = Buffer.alloc(40 * 1024 * 1024, 0x20);
  for (let i = 1; i <= 10; i++) {
    const r = await post(server, '/v1/scores', auth, body);
    t.equal(r.error, null, `upload ${i}: read without a client error`);
    t.equal(r.status, 413, `upload ${i}: 413`);
    if (r.status === 413) t.equal(JSON.parse(r.text).error.code, 'payload_too_large', `upload ${i}: payload_too_large`);
  }

  // Past the linger bound (64 MiB) the connection is closed whatever the client is doing: it may
  // read the 413 or see the connection go; either way the server serves on.
  const huge = await post(server, '/v1/scores', auth, Buffer.alloc(100 * 1024 * 1024, 0x20));
  t.ok(huge.status === 413 || huge.error !== null, `over the linger bound: ${huge.status ?? huge.error}`);
  if (huge.status === 413) t.equal(huge.headers.connection, 'close', 'and the connection is closed');
  t.equal(server.child.exitCode, null, 'the server is still running');
  await healthy(t, server, 'after a body over the linger bound');
});
