/**
 * Agents sync bodies against the memory budget (issue 53, item 6), run by `npm run test:faults`:
 * a sync body is parsed, its blobs decoded, scrubbed and encoded again on a compute thread, holding
 * several times its size, so it weighs that much in `TRACELAKE_MAX_INFLIGHT_BYTES` at the door
 * (route option `bodyWeight`). A crowd of large syncs: each answered 200 or 503 with Retry-After,
 * and the server's peak RSS stays within the budget + 512 MiB (before: 12 × 8 MiB bodies under a
 * 128 MiB budget were all admitted and the peak passed 1 GiB).
 */
import { createHash, randomBytes } from 'node:crypto';
import t from 'tap';
import { peakRssMiB } from '../helpers/rss.js';
import { call, serverFor } from '../helpers/server.js';

const KEY = 'sk_service_' + 'AgentsMemory'.repeat(4);
const MiB = 1024 * 1024;
const BUDGET_MIB = 128;

/** A sync body of one session with one PNG blob of `size` random bytes (base64: a third larger). */
function syncBody(i: number, size: number): string {
  const data = randomBytes(size);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const blob = { sha256, mediaType: 'image/png', bytes: size };
  return JSON.stringify({
    schemaVersion: 1,
    blobs: [{ ...blob, data: data.toString('base64') }],
    sessions: [
      {
        id: `crowd-${i}`,
        agent: { name: 'claude-code', version: '2.0.42' },
        startedAt: '2025-11-20T09:00:00.000Z',
        title: 'A crowd',
        events: [
          {
            id: 'u1',
            timestamp: '2025-11-20T09:00:00.000Z',
            type: 'user_message',
            content: [
              { type: 'text', text: 'Look.' },
              { type: 'blob', ...blob },
            ],
          },
        ],
      },
    ],
  });
}

t.test('a crowd of large agents syncs stays within the memory budget', async (t) => {
  const server = await serverFor(t, {
    env: { TRACELAKE_BOOTSTRAP_KEY: KEY, TRACELAKE_MAX_INFLIGHT_BYTES: `${BUDGET_MIB}MiB` },
  });
  const headers = { authorization: KEY, 'x-service-app-id': server.bootstrap!.app_id as string };
  const bodies = Array.from({ length: 12 }, (_, i) => syncBody(i, 6 * MiB));
  const answers = await Promise.all(
    bodies.map((rawBody) =>
      call(server, 'POST', '/v1/agents/sync', { rawBody, headers: { ...headers, 'content-type': 'application/json' } }),
    ),
  );
  const statuses = answers.map((a) => a.status);
  t.ok(
    statuses.every((s) => s === 200 || s === 503),
    `every answer 200 or 503: ${statuses.join(' ')}`,
  );
  t.ok(statuses.includes(200), 'some are stored');
  t.ok(
    answers.filter((a) => a.status === 503).every((a) => a.headers.get('retry-after')),
    'each 503 with Retry-After',
  );
  const peak = peakRssMiB(server.child.pid!);
  t.ok(peak <= BUDGET_MIB + 512, `peak RSS ${Math.round(peak)} MiB (budget ${BUDGET_MIB} MiB + 512)`);
});
