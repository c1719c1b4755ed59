/**
 * src/ingest/scan.ts: what a compute worker decodes of a request before its answer is held for the
 * request's record, and the rows the record gets from it are the rows a replay decodes from the
 * logged body — in the same order, so admission's `drop` (indices into that order) drops the same
 * rows on the live path and on replay.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { sha256Hex } from '../../../src/core/agents/blobs.js';
import { readClaudeCode } from '../../../src/core/agents/readers/claudeCode.js';
import { readCodex } from '../../../src/core/agents/readers/codex.js';
import { BlobBag } from '../../../src/core/agents/readers/blobBag.js';
import { prepareAgentBatch } from '../../../src/ingest/agentsBatch.js';
import { keysOfRows, prepare, type PrepareInput } from '../../../src/ingest/prepare.js';
import { Scanner } from '../../../src/ingest/scan.js';

const FIXTURES = new URL('../../../../test/fixtures/agents/', import.meta.url).pathname;
const scope = {
  tenantId: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  environmentId: '00000000-0000-4000-8000-000000000003',
};
const costOf = (_model: string, usage: { inputTokens?: number }) => (usage.inputTokens ?? 0) / 1000;
const FULL = { tier: 'full', blobCapBytes: null } as const;

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
/** An OTLP/JSON export: two traces, a generation with usage, a span with events, and one refused (bad id). */
function otlpJson(): Uint8Array {
  const span = (trace: number, n: number, extra: Record<string, unknown> = {}) => ({
    traceId: hex(trace, 16),
    spanId: hex(n, 8),
    name: `span ${n}`,
    startTimeUnixNano: String(1_763_000_000_000_000_000n + BigInt(n) * 1_000_000n),
    endTimeUnixNano: String(1_763_000_000_000_000_000n + BigInt(n) * 1_000_000n + 500_000n),
    ...extra,
  });
  const generation = [
    { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o' } },
    { key: 'gen_ai.usage.input_tokens', value: { intValue: '1200' } },
  ];
  const spans = [
    span(1, 1, { attributes: generation }),
    span(1, 2, {
      events: [
        { name: 'retry', timeUnixNano: '1763000000002100000' },
        { name: 'done', timeUnixNano: '1763000000002200000' },
      ],
    }),
    span(2, 3),
    { ...span(2, 4), spanId: 'not hex' },
  ];
  return Buffer.from(
    JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
          scopeSpans: [{ spans }],
        },
      ],
    }),
  );
}

function input(
  body: Uint8Array,
  encoding: PrepareInput['encoding'],
  contentEncoding?: string,
): PrepareInput & { discard: boolean } {
  return {
    body,
    encoding,
    contentEncoding,
    maxDecompressedBytes: 1 << 24,
    maxSpansPerTrace: 100,
    scope,
    discard: false,
  };
}

t.test(
  'an OTLP/JSON body is decoded once: its record maps what the scan decoded, as a replay maps its logged body',
  async (t) => {
    for (const contentEncoding of [undefined, 'gzip']) {
      const scanner = new Scanner('w1', costOf);
      const sent = contentEncoding ? gzipSync(otlpJson()) : otlpJson();
      const scanned = scanner.scan(input(sent, 'json', contentEncoding));
      t.same(
        scanned.held,
        { workerId: 'w1', id: 1 },
        `${contentEncoding ?? 'identity'}: the decoded body is held under an id`,
      );
      const logged = scanned.decompressed ?? sent;
      t.equal(
        scanned.decompressed === null,
        contentEncoding === undefined,
        'a compressed body comes back decompressed, for the log',
      );
      const replayed = prepare({ ...input(logged, 'json'), maxDecompressedBytes: Number.MAX_SAFE_INTEGER }, costOf);
      t.same([replayed.rows.length, replayed.rejected], [5, 1], 'three spans and two events kept; one span refused');
      t.same(scanned.keys, keysOfRows(replayed), "the scan's keys are those of the replayed rows, in their order");
      const live = scanner.take(scanned.held!.id);
      t.ok(live, 'the record takes what is held');
      t.same(live!(), replayed, 'and maps it to the rows a replay maps from the log');
      t.equal(scanner.take(scanned.held!.id), undefined, 'once');
      t.equal(scanner.holding, 0);
    }
  },
);

t.test('a coding-agent batch is mapped once, before the answer, to the rows its logged batch replays to', async (t) => {
  const files = (dir: string) =>
    readdirSync(join(FIXTURES, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => ({ path: join(e.parentPath, e.name), text: readFileSync(join(e.parentPath, e.name), 'utf8') }));
  const bag = new BlobBag();
  const sessions = [...readClaudeCode(files('claude'), bag).sessions, ...readCodex(files('codex'), bag).sessions];
  // A text blob with a secret: scrubbing renames it, and the session follows the new hash.
  const log = Buffer.from('export GITHUB_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s01\n');
  const part = bag.add('text/plain', log);
  const last = sessions[0]!.events.at(-1)!;
  sessions[0]!.events.push({
    id: 'scan-test-result',
    parentId: null,
    timestamp: last.timestamp,
    type: 'tool_result',
    callId: 'scan-test',
    content: [part],
  });
  const body = Buffer.from(JSON.stringify({ schemaVersion: 1, sessions, blobs: [...bag.blobs.values()] }));

  const scanner = new Scanner('w2', costOf);
  const prepared = await prepareAgentBatch(body, 'application/json', FULL, (batch) => scanner.agents(batch, scope));
  t.same(prepared.rejected, [], 'every fixture session is kept');
  t.notOk(prepared.blobShas.includes(sha256Hex(log)), 'the text blob was scrubbed (and renamed)');
  const replayed = prepare(
    { ...input(prepared.body, 'agents'), maxDecompressedBytes: Number.MAX_SAFE_INTEGER },
    costOf,
  );
  t.ok(replayed.rows.length > 20, `the fixtures map to rows of every kind (${replayed.rows.length})`);
  t.same(
    prepared.keys,
    keysOfRows(replayed),
    'the keys handed to the coordinator are those of the replayed rows, in their order',
  );
  t.same(
    scanner.take(prepared.held!.id)!(),
    replayed,
    'the held rows are the rows a replay maps from the logged batch',
  );
});

t.test('a held body the record never takes is released, or expires', async (t) => {
  const scanner = new Scanner('w1', costOf);
  const a = scanner.scan(input(otlpJson(), 'json'));
  const b = scanner.scan(input(otlpJson(), 'json'));
  t.equal(scanner.holding, 2);
  scanner.release(a.held!.id);
  t.equal(scanner.take(a.held!.id), undefined, 'a released body is gone');
  t.ok(scanner.take(b.held!.id), 'the other is still held');
  const empty = scanner.scan(input(Buffer.from('{"resourceSpans":[]}'), 'json'));
  t.equal(empty.held, null, 'a body without rows holds nothing');
  t.equal(scanner.holding, 0);

  t.equal(scanner.agents({ sessions: [], blobs: [] }, scope).held, null, 'nor a batch without rows');
  const discarded = scanner.scan({ ...input(otlpJson(), 'json'), discard: true });
  t.same(
    discarded,
    { keys: keysOfRows(prepare(input(otlpJson(), 'json'), costOf)), decompressed: null, held: null },
    'a scan that maps and drops the rows (TRACELAKE_DISCARD_AFTER_MAP) holds nothing',
  );
  t.equal(scanner.holding, 0);

  const brief = new Scanner('w1', costOf, 0);
  const old = brief.scan(input(otlpJson(), 'json'));
  const young = brief.scan(input(otlpJson(), 'json'));
  t.equal(brief.take(old.held!.id), undefined, 'a body held past its time is dropped when the next is held');
  t.ok(brief.take(young.held!.id), 'its record then decodes the logged body; the next one is held');
});
