/**
 * Integration: span rollups. `GET /v1/metrics` answers the same before compaction (every span read)
 * and after the files are compacted and rolled up (each file's hours in the window from its rollups,
 * its other spans there and everything rollups cannot answer from the spans); the rollups are what the
 * answers are read from when they can be; a file's rollup rows go with the file.
 */
import t, { type Test } from 'tap';
import { ROLLUP_FILTER_FIELDS } from '../../src/core/metrics/rollups.js';
import { atRest } from '../helpers/atRest.js';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, startServer, tempDir, type Credentials, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOT_COMPACTING = ['--compaction-interval-ms', '0'];
const COMPACTING = ['--compaction-interval-ms', '50', '--compaction-age-ms', '0', '--query-timeout-ms', '1000'];

interface Spec {
  startMs: number;
  durationNs: bigint;
  name: string;
  model: string | null;
  error: boolean;
}

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

/** 800 spans over the last 50 hours: four names, three models (and none), durations from 0 to a minute. */
function fixture(now: number): Spec[] {
  const next = random(55);
  return Array.from({ length: 800 }, (_, i) => {
    const name = ['chat', 'search', 'tool', 'plan'][i % 4]!;
    return {
      startMs: now - Math.floor(next() * 50 * HOUR),
      // Log-uniform from a microsecond to a minute; one in 25 lasts nothing.
      durationNs: i % 25 === 0 ? 0n : BigInt(Math.round(10 ** (3 + next() * 7.8))),
      name,
      model: name === 'chat' ? (['gpt-4o', 'claude-3-5-sonnet', null] as const)[i % 3]! : null,
      error: next() < 0.1,
    };
  });
}

/** The fixture in 8 requests (8 small segments), half from each of two services. */
async function send(server: TestServer, auth: Credentials, specs: Spec[]): Promise<void> {
  for (let r = 0; r < 8; r++) {
    const spans = specs.slice(r * 100, (r + 1) * 100).map((s, i) => {
      const start = BigInt(s.startMs) * 1_000_000n + BigInt(i);
      const attributes: Record<string, string | number> = { 'user.id': `u-${i % 5}` };
      if (s.model) {
        attributes['gen_ai.request.model'] = s.model;
        attributes['gen_ai.usage.input_tokens'] = 100 + i;
        attributes['gen_ai.usage.output_tokens'] = 7 + (i % 13);
        attributes['tracelake.cost'] = 0.000_137 * (1 + (i % 11));
        if (i % 2 === 0) attributes['tracelake.prompt.name'] = 'answer';
      }
      return {
        traceId: hex(16),
        spanId: hex(8),
        name: s.name,
        kind: 1,
        startTimeUnixNano: String(start),
        endTimeUnixNano: String(start + s.durationNs),
        attributes: Object.entries(attributes).map(([key, v]) => ({
          key,
          value:
            typeof v === 'string' ? { stringValue: v } : Number.isInteger(v) ? { intValue: v } : { doubleValue: v },
        })),
        status: { code: s.error ? 2 : 1 },
      };
    });
    const service = r % 2 === 0 ? 'web' : 'worker';
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
          scopeSpans: [{ scope: { name: 'test' }, spans }],
        },
      ],
    };
    const a = await call(server, 'POST', '/v1/traces', {
      rawBody: JSON.stringify(body),
      headers: { authorization: auth.key, 'x-service-app-id': auth.appId, 'content-type': 'application/json' },
    });
    if (a.status !== 200) throw new Error(`ingest answered ${a.status}: ${a.text}`);
  }
}

/** A predicate on each field rollups answer a filter on (a field added there without one here fails the parse). */
const PREDICATE: Record<string, string> = {
  name: 'name != "none"',
  type: 'type != EVENT',
  span_kind: 'span_kind != guardrail',
  status: 'status != UNSET',
  model: 'model exists',
  prompt_name: 'prompt_name exists',
  service_name: 'service_name = "web"',
  environment: 'environment exists',
};
const EVERY_ROLLUP_FIELD = ROLLUP_FILTER_FIELDS.map((f) => PREDICATE[f]).join(' and ');

const ALL =
  'count,cost,input_tokens,output_tokens,total_tokens,latency_mean,latency_p50,latency_p90,latency_p95,latency_p99,error_rate';

/** Requests rollups answer (whole hours), then ones they cannot (read from the spans throughout). */
function requests(now: number): { rollups: string[]; spans: string[] } {
  const iso = (ms: number) => new Date(ms).toISOString();
  // Partial hours at both ends.
  const ragged = `from=${iso(now - 50 * HOUR - 17 * MINUTE)}&to=${iso(now + MINUTE)}`;
  // Whole hours only.
  const aligned = `from=${iso(Math.floor((now - 20 * HOUR) / HOUR) * HOUR)}&to=${iso(Math.floor(now / HOUR) * HOUR)}`;
  // Partial hours at both ends, with files across both: their spans there are read themselves.
  const inside = `from=${iso(now - 30 * HOUR - 7 * MINUTE)}&to=${iso(now - 5 * HOUR - 13 * MINUTE)}`;
  const q = (rest: string, window = ragged) => `view=spans&${window}&${rest}`;
  return {
    rollups: [
      q(`bucket=hour&measures=${ALL}`),
      q(`bucket=hour&measures=${ALL}&group_by=model&group_limit=100`),
      q(`bucket=day&measures=${ALL}&group_by=name,span_kind&group_limit=100`),
      q(
        `bucket=week&measures=count,cost,latency_p95&group_by=service_name&filter=${encodeURIComponent('type = GENERATION')}`,
      ),
      q(`bucket=hour&measures=count,latency_p50,error_rate&filter=${encodeURIComponent('status = ERROR')}`),
      // Every field rollups answer a filter on, compiled against the rollup table.
      q(`bucket=day&measures=count,cost&filter=${encodeURIComponent(EVERY_ROLLUP_FIELD)}`),
      q(`bucket=day&measures=${ALL}&group_by=environment,prompt_name`),
      q(`bucket=hour&measures=${ALL}&group_by=model`, aligned),
      q(`bucket=day&measures=${ALL}&group_by=model`, inside),
    ],
    spans: [
      q(`bucket=day&measures=${ALL}&group_by=user_id`),
      q(`bucket=hour&measures=${ALL}&filter=${encodeURIComponent('cost > 0.0005')}`),
      q(`bucket=minute&measures=count,latency_p99`, `from=${iso(now - 3 * HOUR)}&to=${iso(now)}`),
    ],
  };
}

async function answers(server: TestServer, auth: Credentials, paths: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const p of paths) {
    const r = await call(server, 'GET', `/v1/metrics?${p}`, { auth });
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${r.text}`);
    out.push(r.body);
  }
  return out;
}

/** Equal up to float noise (sums of doubles in another order). */
function close(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => close(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const [ka, kb] = [Object.keys(a).sort(), Object.keys(b).sort()];
    return (
      JSON.stringify(ka) === JSON.stringify(kb) &&
      ka.every((k) => close((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

/** A server on the test's store, stopped when the test ends whatever failed. */
async function started(t: Test, dataDir: string, args: string[]): Promise<TestServer> {
  const server = await startServer({ dataDir, args });
  t.teardown(() => server.stop().then(() => undefined));
  return server;
}

async function segments(server: TestServer): Promise<Record<string, number>> {
  const r = await call(server, 'GET', '/v1/health/files');
  return r.body.dependencies.find((d: { name: string }) => d.name === 'segments').detail;
}

t.test('metrics read from rollups answer as the spans do; rollups go with their files', async (t) => {
  const dataDir = tempDir();
  const now = Date.now();
  const specs = fixture(now);
  const asked = requests(now);
  const paths = [...asked.rollups, ...asked.spans];

  const first = await started(t, dataDir, NOT_COMPACTING);
  const root = rootCredentials(first);
  await send(first, root, specs);
  const before = await answers(first, root, paths);
  t.equal((await segments(first)).compacted_segments, 0, 'answered before any compaction: from the spans');
  const counted = (before[0] as { data: { count: number }[] }).data.reduce((n, r) => n + r.count, 0);
  t.equal(counted, specs.length, 'every span of the fixture is counted once');
  await first.stop();

  const second = await started(t, dataDir, COMPACTING);
  t.ok(
    await until(async () => {
      const s = await segments(second);
      return s.small_segments === 0 && (s.compacted_segments ?? 0) > 0 && s.rollups_pending === 0;
    }),
    'compacted and rolled up',
  );
  const after = await answers(second, root, paths);
  for (const [i, p] of paths.entries()) t.ok(close(after[i], before[i]), p, { found: after[i], wanted: before[i] });
  await second.stop();

  const stored = await atRest(
    dataDir,
    async (c) =>
      (
        await c.runAndReadAll(
          `SELECT (SELECT count(*) FROM span_rollups)::INTEGER AS rows,
                (SELECT sum(n) FROM span_rollups)::INTEGER AS spans,
                (SELECT count(*) FROM segments WHERE replaced_at IS NULL AND level > 0 AND rolled_up)::INTEGER AS rolled`,
        )
      ).getRowObjectsJson()[0]!,
  );
  t.equal(stored.spans, specs.length, `the rollups (${stored.rows} rows) hold every span once`);
  t.ok((stored.rolled as number) >= 2, 'each compacted file is rolled up (the fixture spans three days)');

  // Doctored rollups change the answers they serve, and only those.
  await atRest(dataDir, (c) => c.run('UPDATE span_rollups SET n = n + 1000'));
  const doctored = await started(t, dataDir, NOT_COMPACTING);
  const changed = await answers(doctored, root, paths);
  for (const [i, p] of asked.rollups.entries()) t.notOk(close(changed[i], before[i]), `read from the rollups: ${p}`);
  for (const [i, p] of asked.spans.entries())
    t.ok(close(changed[asked.rollups.length + i], before[asked.rollups.length + i]), `read from the spans: ${p}`);

  // Retention drops the oldest day's file: its rollup rows go with its manifest row.
  const set = await call(doctored, 'PATCH', `/v1/apps/${root.appId}`, { auth: root, body: { retention_days: 1 } });
  t.equal(set.status, 200);
  await doctored.stop();
  const retained = await started(t, dataDir, COMPACTING);
  t.ok(await until(async () => (await segments(retained)).replaced_segments === 0), 'the dropped files are purged');
  await retained.stop();
  const left = await atRest(
    dataDir,
    async (c) =>
      (
        await c.runAndReadAll(
          `SELECT (SELECT count(*) FROM segments WHERE level > 0)::INTEGER AS files,
                (SELECT count(*) FROM span_rollups WHERE segment_id NOT IN (SELECT id FROM segments))::INTEGER AS orphans,
                (SELECT count(DISTINCT segment_id) FROM span_rollups)::INTEGER AS rolled`,
        )
      ).getRowObjectsJson()[0]!,
  );
  t.ok((left.files as number) < (stored.rolled as number), `retention dropped a file (${left.files} left)`);
  t.equal(left.orphans, 0, 'no rollup row outlives its file');
  t.equal(left.rolled, left.files, 'the files left keep theirs');
});
