/**
 * `POST /v1/agents/sync` (trace.write): coding-agent sessions in, spans out, through the same segment
 * engine as OTLP. A compute thread checks the body, clamps each session to the tenant's tier and
 * scrubs it (ingest/agentsBatch.ts); the store says which of the sessions' spans and blobs it holds
 * already; the rest goes through the ingest coordinator (admission, plan quotas, the fsynced log,
 * segments) as one log record, and the answer waits until it is committed and readable.
 */
import { sessionTraceId } from '../../core/agents/ids.js';
import type { TierCeiling } from '../../core/agents/tier.js';
import { planOf, quotaError, quotaPlan } from '../../core/plans.js';
import type { AgentSyncResult } from '../../contract/agents.js';
import { json } from '../reply.js';
import { route } from '../route.js';
import { writeScope } from './ingest.js';

export const agentRoutes = [
  route<Record<string, string>, Record<string, never>, Buffer>({
    method: 'POST',
    path: '/v1/agents/sync',
    permission: 'trace.write',
    body: 'raw',
    maxBodyBytes: (config) => config.maxAgentsBodyBytes,
    async handler({ body, headers }, ctx) {
      const scope = writeScope(ctx);
      const plan = planOf(ctx.services.plans, ctx.principal.plan);
      const ceiling: TierCeiling = { tier: plan.agents_tier, blobCapBytes: plan.agents_blob_cap_bytes };
      const started = performance.now();
      const prepared = await ctx.services.compute.run('prepareAgents', { body, contentType: headers['content-type'], ceiling });
      const preparedAt = performance.now();
      const result: AgentSyncResult = { accepted: prepared.sessions.map((s) => s.id), rejected: prepared.rejected, blobsStored: 0, spanRows: 0, tenantTier: ceiling.tier };
      if (prepared.sessions.length === 0) return json({ data: result });
      const traceIds = prepared.sessions.map((s) => sessionTraceId({ tenantId: scope.tenantId, appId: scope.appId, agent: s.agent, sessionId: s.id }));
      const known = await ctx.services.store.run('agentsKnown', { scope, traceIds, blobShas: prepared.blobShas });
      const knownAt = performance.now();
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
        },
        true,
      );
      // Where a sync request's time goes, step by step (native-bench/agents-sync reads these).
      ctx.services.log.debug(
        { sessions: prepared.sessions.length, spanRows: outcome.accepted, knownSpans: known.spanIds.length, prepareMs: ms(preparedAt - started), knownMs: ms(knownAt - preparedAt), ackMs: ms(outcome.ackMs), visibleWaitMs: ms(outcome.visibleWaitMs) },
        'agents sync steps',
      );
      if (outcome.refused) throw quotaError(outcome.refused, ctx.services.plans.upgrade_url, Date.now());
      result.spanRows = outcome.accepted;
      // Blobs are committed with the request's spans: none when it added no span.
      result.blobsStored = outcome.accepted > 0 ? prepared.blobShas.length - known.blobShas.length : 0;
      return json({ data: result }, 200, { 'X-Tracelake-Visible': String(outcome.visible) });
    },
  }),
];

/** Milliseconds to one decimal, for the log. */
function ms(x: number): number {
  return Math.round(x * 10) / 10;
}
