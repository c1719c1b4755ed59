/**
 * Overload (issue 10, defects 6 and 9; "keep proving"), run by `npm run test:faults`:
 * - a crowd of large uploads is admitted against a byte budget before the bodies are read: the
 *   rest get 503 with Retry-After at once, and the server's peak RSS stays under what the budget
 *   allows;
 * - at twice what the server can take, every answer is 2xx, 429 or 503 with Retry-After;
 * - reads keep being answered while ingestion saturates the server (their p99 is printed).
 */
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { exportRequest, hex } from '../helpers/otlp.js';
import { call, serverFor, type TestServer } from '../helpers/server.js';

const KEY = 'sk_service_' + 'Overload'.repeat(5);

/** Peak resident set of a process (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

/** One POST with a raw body over its own connection; resolves with status and Retry-After. */
function post(
  server: TestServer,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; retryAfter: string | null; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    // A connection of its own (`agent: false`): Node's keep-alive agent may reuse a socket the server
    // is closing, which shows up as ECONNRESET on the client's side only.
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: 'POST',
        agent: false,
        headers: { ...headers, 'content-length': String(body.length), connection: 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
            ms: performance.now() - started,
          }),
        );
      },
    );
    // A refused upload may be cut short by the server: that is an answer too, if one came.
    req.on('error', () => resolve({ status: 0, retryAfter: null, ms: performance.now() - started }));
    req.end(body);
  });
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

t.test(
  '96 concurrent 14 MiB uploads: admitted against the byte budget, the rest 503 at once, RSS bounded',
  async (t) => {
    const budgetMiB = 128;
    const server = await serverFor(t, {
      env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
      args: ['--max-inflight-bytes', `${budgetMiB}MiB`],
    });
    const appId = server.bootstrap!.app_id as string;
    const before = peakRssMiB(server.child.pid!);
    const text = 'y'.repeat(4500);
    const body = Buffer.from(
      JSON.stringify(
        exportRequest(
          Array.from({ length: 3000 }, (_, i) => ({ traceId: hex(16), attributes: { 'input.value': text + i } })),
        ),
      ),
    );
    t.ok(body.length > 13 * 1024 * 1024, `bodies of ${(body.length / 1024 ** 2).toFixed(1)} MiB`);
    const answers = await Promise.all(
      Array.from({ length: 96 }, () =>
        post(
          server,
          '/v1/traces',
          { authorization: KEY, 'x-service-app-id': appId, 'content-type': 'application/json' },
          body,
        ),
      ),
    );
    const by = (s: number) => answers.filter((a) => a.status === s).length;
    t.equal(by(200) + by(503), 96, `only 200 and 503: ${JSON.stringify(answers.map((a) => a.status))}`);
    t.ok(by(200) > 0, `some uploads were admitted (${by(200)})`);
    t.ok(by(503) > 0, `some were refused (${by(503)})`);
    t.ok(
      answers.filter((a) => a.status === 503).every((a) => Number(a.retryAfter) > 0),
      'every 503 has Retry-After',
    );
    const peak = peakRssMiB(server.child.pid!);
    // An OTLP body is weighed at 4 times its size, so the budget bounds the bodies and their decoding;
    // the allowance beyond covers rows held until their segment is written and the refused bodies'
    // chunks awaiting collection. The base (V8, DuckDB, the threads) is what the server held before.
    const bound = before + budgetMiB + 600;
    t.ok(
      peak < bound,
      `peak RSS ${Math.round(peak)} MiB under ${Math.round(bound)} MiB (base ${Math.round(before)} MiB + budget ${budgetMiB} + 600)`,
    );
    t.comment(
      `large uploads: ${by(200)} admitted, ${by(503)} refused with 503; peak RSS ${Math.round(peak)} MiB (base ${Math.round(before)} MiB); refusals answered in p50 ${Math.round(
        quantile(
          answers.filter((a) => a.status === 503).map((a) => a.ms),
          0.5,
        ),
      )} ms`,
    );
  },
);

t.test('twice the capacity: only 2xx, 429 or 503 with Retry-After, and reads keep being answered', async (t) => {
  const server = await serverFor(t, {
    env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
    args: ['--max-requests', '256', '--ingest-backlog', '32MiB'],
  });
  const appId = server.bootstrap!.app_id as string;
  const headers = { authorization: KEY, 'x-service-app-id': appId, 'content-type': 'application/json' };
  const statuses = new Map<number, number>();
  let missingRetryAfter = 0;
  const writers = 400;
  const until = Date.now() + 6_000;
  const readLatencies: number[] = [];
  const readStatuses = new Map<number, number>();
  const count = (m: Map<number, number>, s: number) => m.set(s, (m.get(s) ?? 0) + 1);

  const writer = async () => {
    while (Date.now() < until) {
      const body = Buffer.from(JSON.stringify(exportRequest(Array.from({ length: 50 }, () => ({ traceId: hex(16) })))));
      const a = await post(server, '/v1/traces', headers, body);
      count(statuses, a.status);
      if (a.status === 503 && !(Number(a.retryAfter) > 0)) missingRetryAfter++;
      if (a.status === 503 || a.status === 429) await new Promise((r) => setTimeout(r, 20));
    }
  };
  const reader = async () => {
    while (Date.now() < until) {
      const started = performance.now();
      const r = await call(server, 'GET', '/v1/traces?limit=10', { auth: { key: KEY, appId } }).catch(() => null);
      readLatencies.push(performance.now() - started);
      count(readStatuses, r?.status ?? 0);
    }
  };
  await Promise.all([...Array.from({ length: writers }, writer), reader(), reader()]);
  const unexpected = [...statuses.keys()].filter((s) => ![200, 429, 503].includes(s));
  t.same(unexpected, [], `writes answered only 200, 429 or 503: ${JSON.stringify(Object.fromEntries(statuses))}`);
  t.equal(missingRetryAfter, 0, 'every 503 carries Retry-After');
  t.ok((statuses.get(503) ?? 0) > 0, 'the load was past capacity (some 503s)');
  t.same(
    [...readStatuses.keys()],
    [200],
    `reads were all answered 200: ${JSON.stringify(Object.fromEntries(readStatuses))}`,
  );
  t.comment(
    `twice capacity: writes ${JSON.stringify(Object.fromEntries(statuses))}; reads ${readLatencies.length}, p50 ${Math.round(quantile(readLatencies, 0.5))} ms, p99 ${Math.round(quantile(readLatencies, 0.99))} ms`,
  );
});
