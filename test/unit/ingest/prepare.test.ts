/**
 * src/ingest/prepare.ts: a body decoded, mapped and built into rows, as a record and a replay do
 * (test/unit/ingest/scan.test.ts holds the rows of a body decoded before the answer to these).
 */
import t from 'tap';
import { sha256Hex } from '../../../src/core/agents/blobs.js';
import { encodeAgentBatch } from '../../../src/ingest/agentsBatch.js';
import { keysOfRows, prepare } from '../../../src/ingest/prepare.js';
import { COLUMN_INDEX } from '../../../src/store/spans/columns.js';
import { exportRequest } from '../../helpers/otlp.js';

const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const common = { contentEncoding: undefined, maxDecompressedBytes: 1 << 20, maxSpansPerTrace: 100, scope };

t.test('an OTLP export: rows, with the keys admission reads in their order', async (t) => {
  const traceId = 'ab'.repeat(16);
  const request = exportRequest([
    { traceId, spanId: '01'.repeat(8), name: 'root' },
    { traceId, spanId: '02'.repeat(8), parentSpanId: '01'.repeat(8), name: 'child' },
    { traceId: 'cd'.repeat(16), spanId: '03'.repeat(8), name: 'other' },
  ]);
  const mapped = prepare({ ...common, body: Buffer.from(JSON.stringify(request)), encoding: 'json' }, undefined);
  t.same(
    mapped.rows.map((r) => r[COLUMN_INDEX.name]),
    ['root', 'child', 'other'],
  );
  t.same(keysOfRows(mapped), {
    traceIds: [traceId, 'cd'.repeat(16)],
    traceOf: [0, 0, 1],
    spanIds: ['01'.repeat(8), '02'.repeat(8), '03'.repeat(8)],
    rejected: 0,
    errors: [],
  });
});

t.test('an agents batch: its text blobs render into the rows, and every blob is kept', async (t) => {
  const text = Buffer.from('build ok\n');
  const image = Buffer.from('89504e470d0a1a0a', 'hex');
  const blob = (data: Buffer, mediaType: string) => ({
    type: 'blob' as const,
    sha256: sha256Hex(data),
    mediaType,
    bytes: data.length,
  });
  const session = {
    id: 's1',
    agent: { name: 'claude-code' },
    startedAt: '2025-11-20T09:00:00.000Z',
    events: [
      {
        id: 'u1',
        parentId: null,
        timestamp: '2025-11-20T09:00:00.000Z',
        type: 'user_message' as const,
        content: [{ type: 'text' as const, text: 'Look.' }, blob(image, 'image/png')],
      },
      {
        id: 'c1',
        parentId: null,
        timestamp: '2025-11-20T09:00:01.000Z',
        type: 'tool_call' as const,
        callId: 'k1',
        name: 'Bash',
        input: { command: 'npm run build' },
      },
      {
        id: 'r1',
        parentId: null,
        timestamp: '2025-11-20T09:00:02.000Z',
        type: 'tool_result' as const,
        callId: 'k1',
        content: [blob(text, 'text/plain')],
      },
      {
        id: 'c2',
        parentId: null,
        timestamp: '2025-11-20T09:00:03.000Z',
        type: 'tool_call' as const,
        callId: 'k2',
        name: 'Bash',
        input: { command: 'npm test' },
      },
      {
        id: 'r2',
        parentId: null,
        timestamp: '2025-11-20T09:00:04.000Z',
        type: 'tool_result' as const,
        callId: 'k2',
        content: [{ type: 'text' as const, text: 'test passed\n'.repeat(2000) }],
      },
    ],
  };
  const batch = {
    sessions: [session],
    blobs: [
      { sha256: sha256Hex(text), mediaType: 'text/plain', data: text },
      { sha256: sha256Hex(image), mediaType: 'image/png', data: image },
    ],
  };
  const mapped = prepare(
    { ...common, body: encodeAgentBatch(batch as Parameters<typeof encodeAgentBatch>[0]), encoding: 'agents' },
    undefined,
  );
  t.ok(mapped.rows.length >= 3, `${mapped.rows.length} rows`);
  t.ok(
    mapped.rows.some((r) => r.some((v) => typeof v === 'string' && v.includes('build ok'))),
    'the tool result shows its text blob',
  );
  t.equal(mapped.blobs.length, 3, 'both blobs are kept, and the long output the rows split off');
  t.ok([sha256Hex(text), sha256Hex(image)].every((sha) => mapped.blobs.some((b) => b.sha256 === sha)));
  t.equal(new Set(keysOfRows(mapped).traceIds).size, 1, 'one session, one trace');
});
