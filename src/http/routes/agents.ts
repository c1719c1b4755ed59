/**
 * `POST /v1/agents/sync` (trace.write): coding-agent sessions in, spans out, through the same segment
 * engine as OTLP. A compute thread checks the body, clamps each session to the tenant's tier and
 * scrubs it (ingest/agentsBatch.ts); the store says which of the sessions' spans and blobs it holds
 * already; the rest goes through the ingest coordinator (admission, plan quotas, the fsynced log,
 * segments) as one log record, and the answer waits until it is committed and readable.
 */
import { sessionTraceId } from '../../core/agents/ids.js';
import { SCREENSHOT, SESSION_EXAMPLE, SESSION_ID } from '../../openapi/agentExamples.js';
import { answer, payload } from '../../openapi/note.js';
import type { TierCeiling } from '../../core/agents/tier.js';
import { planOf, quotaError, quotaPlan } from '../../core/plans.js';
import type { AgentSyncResult } from '../../contract/agents.js';
import { json } from '../reply.js';
import { route } from '../route.js';
import { writeScope } from './ingest.js';

export const agentRoutes = [
  route({
    method: 'POST',
    path: '/v1/agents/sync',
    permission: 'trace.write',
    body: 'raw',
    maxBodyBytes: (config) => config.maxAgentsBodyBytes,
    // Parsed, blobs decoded, scrubbed and the batch encoded again: docs/decisions.md, "Request bodies at the edge".
    bodyWeight: 8,
    note: {
      tag: 'Coding-agent sessions',
      summary: 'Sync coding-agent sessions',
      description:
        "Sessions of coding agents (Claude Code, Codex, …) in one agent-neutral shape, stored as traces and spans. The envelope is checked whole: a `schemaVersion` other than 1, or a body that is not such an envelope, is 400. Each session and each blob is then checked on its own: a malformed one is listed in `rejected` (a blob's reason starts with `blob:`, its index is in `blobs`, its id is its sha256) and the rest is stored. Blobs are stored with or without sessions (`blobsStored` counts those new to the store): a later request's session may name them. Sessions are clamped to the plan's tier (`tenantTier`), scrubbed of secrets and mapped to spans with ids derived from the session, so syncing a session again, or after it grew, stores nothing twice. The answer waits until the spans are committed. A key pinned to an environment, or a kind-scoped key naming one in `X-Service-Environment`. The body limit is `--max-agents-body` (32 MiB).",
      headers: { 'X-Service-Environment': 'The environment, for a kind-scoped key.' },
      body: payload('AgentSyncRequest', {
        session: {
          schemaVersion: 1,
          sessions: [SESSION_EXAMPLE],
          blobs: [
            { sha256: SCREENSHOT.sha256, mediaType: 'image/png', bytes: SCREENSHOT.bytes, data: SCREENSHOT.data },
          ],
        },
      }),
      answers: [
        {
          ...answer(200, 'AgentSyncAnswer', 'What was stored and what was rejected.', {
            stored: {
              data: { accepted: [SESSION_ID], rejected: [], blobsStored: 1, spanRows: 10, tenantTier: 'full' },
            },
            partly: {
              data: {
                accepted: [SESSION_ID],
                rejected: [
                  {
                    index: 0,
                    reason: 'blob: sha256 does not match the data (its SHA-256 is 1f3a…)',
                    id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
                  },
                  { index: 1, reason: 'events[4].timestamp: expected string & Format<"date-time">', id: 'bad-2' },
                ],
                blobsStored: 0,
                spanRows: 10,
                tenantTier: 'transcripts',
              },
            },
          }),
          headers: { 'X-Tracelake-Visible': '`true` when the spans were readable when answered.' },
        },
      ],
      errors: [
        {
          status: 400,
          when: '`invalid_request_body`: not JSON, not the envelope, or a `schemaVersion` other than 1 (`details` names the field).',
        },
        {
          status: 403,
          when: '`forbidden`: the key lacks `trace.write`, or is pinned to no environment and names none.',
        },
        { status: 413, when: 'A body over `--max-agents-body`.' },
        {
          status: 429,
          when: "Rate limited, or the plan's monthly span quota or storage cap is reached (`span_limit_exceeded`, `storage_cap_exceeded`, with `Retry-After`).",
        },
      ],
    },
    async handler({ body, headers }, ctx) {
      const scope = writeScope(ctx);
      const plan = planOf(ctx.services.plans, ctx.principal.plan);
      const ceiling: TierCeiling = { tier: plan.agents_tier, blobCapBytes: plan.agents_blob_cap_bytes };
      const started = performance.now();
      const prepared = await ctx.services.compute.run('prepareAgents', {
        body,
        contentType: headers['content-type'],
        ceiling,
        scope,
      });
      const preparedAt = performance.now();
      const result: AgentSyncResult = {
        accepted: prepared.sessions.map((s) => s.id),
        rejected: prepared.rejected,
        blobsStored: 0,
        spanRows: 0,
        tenantTier: ceiling.tier,
      };
      if (prepared.sessions.length === 0 && prepared.blobShas.length === 0) return json({ data: result });
      const traceIds = prepared.sessions.map((s) =>
        sessionTraceId({ tenantId: scope.tenantId, appId: scope.appId, agent: s.agent, sessionId: s.id }),
      );
      const known = await ctx.services.store.run('agentsKnown', { scope, traceIds, blobShas: prepared.blobShas });
      const knownAt = performance.now();
      // Blobs are stored with or without sessions: a later request's session may name them.
      const stored = new Set(known.blobShas);
      const newBlobs = prepared.blobShas.filter((sha) => !stored.has(sha));
      const outcome = await ctx.services.ingest.ingest(
        {
          body: prepared.body,
          encoding: 'agents',
          contentEncoding: undefined,
          maxDecompressedBytes: prepared.body.byteLength,
          maxSpansPerTrace: ctx.config.maxSpansPerTrace,
          scope,
          plan: quotaPlan(plan),
          knownSpanIds: known.spanIds,
          scanned: { keys: prepared.keys, held: prepared.held },
          newBlobs: {
            count: newBlobs.length,
            bytes: newBlobs.reduce((n, sha) => n + (prepared.blobBytes[sha] ?? 0), 0),
          },
        },
        true,
      );
      // Where a sync request's time goes, step by step (native-bench/agents-sync reads these).
      ctx.services.log.debug(
        {
          sessions: prepared.sessions.length,
          spanRows: outcome.accepted,
          knownSpans: known.spanIds.length,
          prepareMs: ms(preparedAt - started),
          knownMs: ms(knownAt - preparedAt),
          ackMs: ms(outcome.ackMs),
          visibleWaitMs: ms(outcome.visibleWaitMs),
        },
        'agents sync steps',
      );
      if (outcome.refused) throw quotaError(outcome.refused, ctx.services.plans.upgrade_url, Date.now());
      result.spanRows = outcome.accepted;
      result.blobsStored = newBlobs.length;
      return json({ data: result }, 200, { 'X-Tracelake-Visible': String(outcome.visible) });
    },
  }),
];

/** Milliseconds to one decimal, for the log. */
function ms(x: number): number {
  return Math.round(x * 10) / 10;
}
