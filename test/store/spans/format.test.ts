/**
 * The segment format as docs/segments.md states it, checked with a second, independent Parquet
 * reader (hyparquet, pure JavaScript): a store's segment directory read as it is gives the columns
 * and version the page documents, Parquet 2 pages, and the spans the API answers.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import t from 'tap';
import { ATTRIBUTE_COLUMNS } from '../../../src/store/spans/attributeColumns.js';
import { SPAN_COLUMNS } from '../../../src/store/spans/columns.js';
import { SEGMENT_FORMAT_VERSION } from '../../../src/store/spans/segmentFormat.js';
import { exportRequest, hex } from '../../helpers/otlp.js';
import { call, rootCredentials, startServer } from '../../helpers/server.js';

function parquetFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name.startsWith('.') || entry.name.startsWith('_')) continue;
    if (entry.isDirectory()) out.push(...parquetFiles(path));
    else if (entry.name.endsWith('.parquet')) out.push(path);
  }
  return out;
}

t.test('a second Parquet reader reads the segment directory as documented', async (t) => {
  const server = await startServer({ args: ['--compaction-interval-ms', '0'] });
  t.teardown(() => rmSync(server.dataDir, { recursive: true, force: true }));
  const root = rootCredentials(server);
  const traces = [hex(16), hex(16)];
  for (const traceId of traces) {
    const body = exportRequest([
      { traceId, attributes: { 'gen_ai.request.model': 'gpt-4o', 'tracelake.metadata.k': 'v', 'tracelake.tags': 'x' } },
      { traceId },
    ]);
    t.equal(
      (
        await call(server, 'POST', '/v1/traces', {
          rawBody: JSON.stringify(body),
          headers: { authorization: root.key, 'x-service-app-id': root.appId, 'content-type': 'application/json' },
        })
      ).status,
      200,
    );
  }
  const api = await call(server, 'GET', '/v1/spans?limit=10&sort_order=asc', { auth: root });
  t.equal(await server.stop('SIGTERM'), 0);

  const segments = join(server.dataDir, 'segments');
  const files = parquetFiles(segments);
  t.ok(files.length >= 2, `${files.length} files`);
  const rows: Record<string, unknown>[] = [];
  for (const path of files) {
    const key = relative(segments, path).split(sep).join('/');
    t.match(
      key,
      /^tenant=[0-9a-f-]{36}\/app=[0-9a-f-]{36}\/date=\d{4}-\d{2}-\d{2}\/[^/]+\.parquet$/,
      'the Hive layout',
    );
    t.ok(key.startsWith(`tenant=${server.bootstrap!.tenant_id}/app=${root.appId}/`), 'of the right tenant and app');
    const file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    t.same(
      metadata.key_value_metadata?.find((kv) => kv.key === 'tracelake_format')?.value,
      String(SEGMENT_FORMAT_VERSION),
      `format version ${SEGMENT_FORMAT_VERSION}`,
    );
    t.same(
      parquetSchema(metadata).children.map((c) => c.element.name),
      SPAN_COLUMNS.map(([name]) => name),
      'the documented columns, in order',
    );
    t.equal(metadata.row_groups[0]!.columns[0]!.meta_data?.codec, 'SNAPPY', 'written at ingest (level 0): Snappy');
    const startNs = metadata.row_groups[0]!.columns.find((c) => c.meta_data?.path_in_schema.join('.') === 'start_ns')!
      .meta_data!;
    t.ok(
      startNs.encodings.includes('DELTA_BINARY_PACKED'),
      `Parquet 2 pages: start times delta-encoded (${startNs.encodings.join(', ')})`,
    );
    rows.push(...(await parquetReadObjects({ file, compressors })));
    t.ok(statSync(path).size > 0);
  }
  rows.sort((a, b) => (BigInt(a.start_ns as bigint) < BigInt(b.start_ns as bigint) ? -1 : 1));
  t.same(
    rows.map((r) => r.span_id),
    api.body.data.map((s: { id: string }) => s.id),
    'the same spans as the API',
  );
  const first = rows.find((r) => r.model === 'gpt-4o')!;
  t.same(first.tags, ['x']);
  t.same(JSON.parse(first.metadata as string), { k: 'v' });
  t.equal(typeof first.start_ns, 'bigint', 'times are 64-bit integers');
  t.match(first.trace_id, /^[0-9a-f]{32}$/);
  // Format 2: the model attribute is the model column's value, so the file keeps it there alone,
  // names it in attributes_in_columns, and the API gives the attributes back as sent.
  t.notOk(
    'gen_ai.request.model' in JSON.parse((first.attributes as string | null) ?? '{}'),
    'the model attribute is stored once, as the column',
  );
  t.equal(first.attributes_in_columns, 2 ** ATTRIBUTE_COLUMNS.findIndex(([key]) => key === 'gen_ai.request.model'));
  const restarted = await startServer({ dataDir: server.dataDir });
  t.teardown(() => restarted.stop('SIGKILL'));
  const detail = await call(restarted, 'GET', `/v1/traces/${first.trace_id}/spans/${first.span_id}`, { auth: root });
  t.equal(detail.status, 200);
  t.same(detail.body.data.attributes, { 'gen_ai.request.model': 'gpt-4o', 'tracelake.tags': 'x' }, 'read back whole');
});

t.test('docs/segments.md lists the attribute keys a column holds in their bit order', async (t) => {
  const page = readFileSync(fileURLToPath(new URL('../../../../docs/segments.md', import.meta.url)), 'utf8');
  const rows = [...page.matchAll(/^\| (\d+)(?:–(\d+))? \| (.+) \| `(\w+)` \|$/gm)];
  const documented = rows.flatMap((m) => [...m[3]!.matchAll(/`([^`]+)`/g)].map((k) => [k[1]!, m[4]!] as const));
  t.same(documented, ATTRIBUTE_COLUMNS, 'every key, its column and its bit (its position)');
  for (const m of rows) {
    const first = Number(m[1]);
    const last = Number(m[2] ?? m[1]);
    t.equal(
      last - first + 1,
      [...m[3]!.matchAll(/`[^`]+`/g)].length,
      `bits ${m[1]}${m[2] ? `–${m[2]}` : ''}: one a key`,
    );
  }
});
