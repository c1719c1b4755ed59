/**
 * Integration: `GET /v1/spans?format=parquet|arrow` exports what the JSON list shows — every span
 * the filter and window select — as a streamed file: Parquet read back by DuckDB, Arrow IPC by
 * apache-arrow; the temporary file is gone once the answer is sent.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import t from 'tap';
import { hex } from '../helpers/otlp.js';
import { call, rootCredentials, serverFor, tempDir } from '../helpers/server.js';
import { exportSpans } from '../helpers/exportSpans.js';

t.test('span exports', async (t) => {
  const server = await serverFor(t);
  const root = rootCredentials(server);
  const headers = { authorization: root.key, 'x-service-app-id': root.appId };
  // 3,000 spans: more than one DuckDB chunk (2,048 rows), so the Arrow stream holds several batches.
  const traces = Array.from({ length: 30 }, () => hex(16));
  for (const traceId of traces) {
    const spans = Array.from({ length: 100 }, (_, i) => ({
      traceId,
      name: `op-${i % 5}`,
      attributes: {
        'gen_ai.request.model': i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': i,
        'tracelake.metadata.team': `t${i % 3}`,
        'tracelake.tags': 'a',
      },
    }));
    const r = await exportSpans(server, root, spans);
    t.equal(r.status, 200);
  }
  const filter = encodeURIComponent('model = gpt-4o and metadata.team = t1');
  const listed = async () => {
    const ids: string[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await call(server, 'GET', `/v1/spans?filter=${filter}&limit=500&offset=${offset}&sort_order=asc`, {
        auth: root,
      });
      ids.push(...page.body.data.map((s: { id: string }) => s.id));
      if (offset + 500 >= page.body.pagination.total) return { ids, total: page.body.pagination.total as number };
    }
  };
  const json = await listed();
  t.ok(json.total > 400, `${json.total} spans match`);

  const parquet = await fetch(`${server.url}/v1/spans?filter=${filter}&format=parquet&sort_order=asc`, { headers });
  t.equal(parquet.status, 200);
  t.equal(parquet.headers.get('content-type'), 'application/vnd.apache.parquet');
  t.equal(parquet.headers.get('x-total-count'), String(json.total));
  const dir = tempDir();
  writeFileSync(join(dir, 'spans.parquet'), Buffer.from(await parquet.arrayBuffer()));
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const rows = (
    await c.runAndReadAll(
      `SELECT id, model, json_extract_string(metadata, '$.team') AS team, tags, typeof(start_time) AS ts FROM read_parquet('${join(dir, 'spans.parquet')}')`,
    )
  ).getRowObjectsJson();
  t.same(
    rows.map((r) => r.id),
    json.ids,
    'DuckDB reads the Parquet export: the same spans in the same order',
  );
  t.ok(
    rows.every((r) => r.model === 'gpt-4o' && r.team === 't1'),
    'filtered',
  );
  t.same(rows[0]!.tags, ['a']);
  t.equal(rows[0]!.ts, 'TIMESTAMP');
  c.closeSync();
  db.closeSync();

  const arrow = await fetch(`${server.url}/v1/spans?filter=${filter}&format=arrow&sort_order=asc`, { headers });
  t.equal(arrow.status, 200);
  t.equal(arrow.headers.get('content-type'), 'application/vnd.apache.arrow.stream');
  const table = tableFromIPC(new Uint8Array(await arrow.arrayBuffer()));
  t.same(
    table.getChild('id')!.toArray(),
    json.ids,
    'apache-arrow reads the Arrow export: the same spans in the same order',
  );
  t.ok(table.batches.length >= 1);
  const first = table.get(0)!.toJSON();
  t.equal(first.model, 'gpt-4o');
  t.equal(typeof first.start_ns, 'bigint');
  t.same([...(first.tags as { toArray(): string[] }).toArray()], ['a']);

  const everything = await fetch(`${server.url}/v1/spans?format=arrow`, { headers });
  const all = tableFromIPC(new Uint8Array(await everything.arrayBuffer()));
  t.equal(all.numRows, 3000, 'without a limit: every span of the window, across several record batches');
  t.ok(all.batches.length >= 2, `${all.batches.length} record batches`);

  const none = await fetch(`${server.url}/v1/spans?format=arrow&filter=${encodeURIComponent('model = nothing')}`, {
    headers,
  });
  const empty = tableFromIPC(new Uint8Array(await none.arrayBuffer()));
  t.equal(empty.numRows, 0, 'an empty export is a valid stream');
  t.ok(
    empty.schema.fields.some((f) => f.name === 'trace_id'),
    'with its schema',
  );

  const page = await fetch(`${server.url}/v1/spans?format=parquet&limit=7&offset=2`, { headers });
  t.equal(page.headers.get('x-total-count'), '7', 'limit and offset, when given, choose a page');
  await page.arrayBuffer();

  // A client that goes away mid-answer: the server stops streaming and serves on.
  const abort = new AbortController();
  const gone = await fetch(`${server.url}/v1/spans?format=arrow`, { headers, signal: abort.signal });
  t.equal(gone.status, 200);
  abort.abort();
  t.equal((await call(server, 'GET', '/health')).status, 200, 'still serving');

  t.same(
    readdirSync(join(server.dataDir, 'tmp')).filter((f) => f.startsWith('export-')),
    [],
    'the temporary files are gone',
  );
});
