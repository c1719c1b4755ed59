/**
 * native-bench/prompts: the latency of a prompt fetch by label — what applications do on their hot
 * path — under 8 concurrent keep-alive clients, against references measured in the same run.
 *
 *   npm run build && node dist/native-bench/prompts/fetch.js [--requests 20000] [--clients 8]
 *
 * 1. A real server (child process, fresh data dir) gets a prompt with a `production` version (and a
 *    few more versions), a score config, and an SDK key.
 * 2. Closed loops of `--clients` connections, `--requests` requests each scenario, after a warm-up:
 *    - `GET /health`: the HTTP floor (no auth, no store);
 *    - `GET /v1/prompts/greeting` (label production): the fetch, served from the main thread's cache;
 *    - the same with `If-None-Match` of its ETag: a revalidation, answered 304;
 *    - `GET /v1/score-configs/<name>`: an authenticated read that goes to the store thread, what a
 *      fetch would cost without the cache.
 * Target (issue 14): the fetch's p99 ≤ 5 ms.
 */
import { closedLoop, percentile, type Answer } from '../loadClient.js';
import { startServer, tempDir } from '../../test/helpers/server.js';
import { arg } from '../args.js';

const REQUESTS = arg('requests', 20_000);
const CLIENTS = arg('clients', 8);
const KEY = 'sk_service_' + 'Prompts'.repeat(6);

const server = await startServer({
  dataDir: tempDir('tracelake-prompts-bench-'),
  env: { TRACELAKE_BOOTSTRAP_KEY: KEY },
  args: ['--workers', '1', '--duckdb-threads', '2'],
});
const appId = server.bootstrap!.app_id as string;
const api = async (method: string, path: string, body?: unknown, key = KEY) => {
  const r = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'x-service-app-id': appId, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${await r.text()}`);
  return (await r.json()) as { data: Record<string, unknown> };
};

const SYSTEM =
  'You are the support agent of {{product}}. Answer in {{language}}, briefly, and cite the help centre.\n'.repeat(8);
for (let v = 1; v <= 5; v++) {
  await api('POST', '/v1/prompts', {
    name: 'greeting',
    type: 'chat',
    prompt: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `{{question}} (v${v})` },
    ],
    config: { model: 'gpt-4o', temperature: 0.2 },
    labels: v === 4 ? ['production'] : [],
  });
}
await api('POST', '/v1/score-configs', { name: 'accuracy', data_type: 'NUMERIC', min_value: 0, max_value: 1 });
const sdk = (await api('POST', '/v1/api-keys', { name: 'bench-sdk', role: 'SDK' })).data.plaintext_key as string;
const reader = (await api('POST', '/v1/api-keys', { name: 'bench-reader', role: 'Read-Only' })).data
  .plaintext_key as string;

const first = await fetch(`${server.url}/v1/prompts/greeting`, {
  headers: { authorization: sdk, 'x-service-app-id': appId },
});
const etag = first.headers.get('etag')!;
const size = (await first.arrayBuffer()).byteLength;

function request(path: string, headers: Record<string, string>): Buffer {
  const lines = [
    `GET ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${server.port}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ];
  return Buffer.from(lines.join('\r\n'), 'latin1');
}

interface Figures {
  name: string;
  p50: number;
  p99: number;
  perSecond: number;
  statuses: string;
}

async function run(name: string, bytes: Buffer, expect: number): Promise<Figures> {
  const measure = async (n: number) => {
    let left = n;
    const ms: number[] = [];
    const statuses = new Map<number, number>();
    const started = performance.now();
    await closedLoop(
      '127.0.0.1',
      server.port,
      CLIENTS,
      () => (left-- > 0 ? bytes : null),
      (a: Answer) => {
        ms.push(a.ms);
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
      },
    );
    return { ms: ms.sort((a, b) => a - b), statuses, seconds: (performance.now() - started) / 1000 };
  };
  await measure(Math.min(2000, REQUESTS));
  const { ms, statuses, seconds } = await measure(REQUESTS);
  if ((statuses.get(expect) ?? 0) !== REQUESTS)
    throw new Error(`${name}: expected ${REQUESTS} × ${expect}, got ${JSON.stringify([...statuses])}`);
  return {
    name,
    p50: percentile(ms, 0.5),
    p99: percentile(ms, 0.99),
    perSecond: REQUESTS / seconds,
    statuses: [...statuses].map(([s, n]) => `${n}×${s}`).join(' '),
  };
}

const auth = { authorization: `Bearer ${sdk}`, 'x-service-app-id': appId };
const results = [
  await run('GET /health (HTTP floor)', request('/health', {}), 200),
  await run('prompt by label (cached)', request('/v1/prompts/greeting', auth), 200),
  await run(
    'prompt by label, If-None-Match (304)',
    request('/v1/prompts/greeting', { ...auth, 'if-none-match': etag }),
    304,
  ),
  await run(
    'score config by name (store thread)',
    request('/v1/score-configs/accuracy', { authorization: `Bearer ${reader}`, 'x-service-app-id': appId }),
    200,
  ),
];
await server.stop('SIGTERM');

const [floor, fetched, revalidated, store] = results as [Figures, Figures, Figures, Figures];
console.log(`prompt fetch by label: ${CLIENTS} clients, ${REQUESTS} requests a scenario, answer ${size} bytes`);
console.log('| scenario | p50 ms | p99 ms | requests/s |');
console.log('|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${Math.round(r.perSecond).toLocaleString('en')} |`,
  );
console.log(
  `fetch p99 / HTTP floor p99: ${(fetched.p99 / floor.p99).toFixed(2)}×; fetch p99 / store-thread read p99: ${(fetched.p99 / store.p99).toFixed(2)}×; 304 p99 / fetch p99: ${(revalidated.p99 / fetched.p99).toFixed(2)}×`,
);
console.log(`target p99 ≤ 5 ms: ${fetched.p99 <= 5 ? 'met' : 'NOT met'} (${fetched.p99.toFixed(2)} ms)`);
