/**
 * Plans and quotas (spec: Errors 402/429; docs/decisions.md): a table of plans with per-tenant limits
 * (null = unlimited), and the refusals their limits produce. Pure: the caller supplies counts and time.
 */
import { isAgentTier, type AgentTier } from './agents/tier.js';
import { ApiError } from './errors.js';

export interface Plan {
  max_apps: number | null;
  max_keys: number | null;
  monthly_spans: number | null;
  storage_bytes: number | null;
  /** What of a coding-agent session is stored (core/agents/tier.ts); `full` when the file names none. */
  agents_tier: AgentTier;
  /** Largest agent blob kept on the `transcripts` tier; null keeps every size. */
  agents_blob_cap_bytes: number | null;
  /** Worker runs with a turn queued or running at once (core/workers/turns.ts); 0 disallows workers, null: no cap. */
  max_concurrent_worker_runs: number | null;
  /** Environments of one app, pull-request previews included; null: no cap. */
  max_environments_per_app: number | null;
}

export interface PlanTable {
  default: string;
  upgrade_url: string;
  plans: Record<string, Plan>;
}

const LIMIT_KEYS = [
  'max_apps',
  'max_keys',
  'monthly_spans',
  'storage_bytes',
  'agents_blob_cap_bytes',
  'max_concurrent_worker_runs',
  'max_environments_per_app',
] as const;
/** Limits a plans file written before they existed does not name: none. */
const OPTIONAL_LIMITS: ReadonlySet<string> = new Set([
  'agents_blob_cap_bytes',
  'max_concurrent_worker_runs',
  'max_environments_per_app',
]);

/** Checks the shape of a plans file; throws an Error naming the bad entry. */
export function parsePlans(json: unknown): PlanTable {
  const o = json as Partial<PlanTable> | null;
  if (typeof o !== 'object' || o === null || typeof o.plans !== 'object' || o.plans === null)
    throw new Error('plans: expected {default, upgrade_url, plans}');
  if (typeof o.upgrade_url !== 'string') throw new Error('plans: upgrade_url must be a string');
  if (typeof o.default !== 'string' || !(o.default in o.plans)) throw new Error('plans: default must name a plan');
  const plans: Record<string, Plan> = Object.create(null);
  for (const [name, p] of Object.entries(o.plans)) {
    const plan = {} as Plan;
    const entry = p as unknown as Record<string, unknown> | null;
    const tier = entry?.agents_tier ?? 'full';
    if (!isAgentTier(tier)) throw new Error(`plans.${name}.agents_tier: expected metrics, transcripts or full`);
    plan.agents_tier = tier;
    for (const key of LIMIT_KEYS) {
      // A plans file written before agent sync (or workers) names no blob cap (or worker cap): none.
      const v = OPTIONAL_LIMITS.has(key) ? (entry?.[key] ?? null) : entry?.[key];
      if (v !== null && !(typeof v === 'number' && Number.isInteger(v) && v >= 0))
        throw new Error(`plans.${name}.${key}: expected a whole number ≥ 0 or null`);
      plan[key] = v;
    }
    plans[name] = plan;
  }
  return { default: o.default, upgrade_url: o.upgrade_url, plans };
}

/** A tenant's plan; an unknown name falls back to the default plan. */
export function planOf(table: PlanTable, name: string | null | undefined): Plan {
  return table.plans[name ?? table.default] ?? table.plans[table.default]!;
}

/** What an entitlement counts, and what has that many. */
const ENTITLED = {
  max_apps: ['apps', 'the tenant'],
  max_keys: ['API keys', 'the tenant'],
  max_environments_per_app: ['environments per app', 'the app'],
} as const;

/** 402 `entitlement_required` when creating one more would pass `limit`. */
export function checkEntitlement(entitlement: keyof typeof ENTITLED, current: number, limit: number | null): void {
  if (limit === null || current < limit) return;
  const [what, holder] = ENTITLED[entitlement];
  throw new ApiError('entitlement_required', `The plan allows ${limit} ${what}; ${holder} has ${current}`, {
    entitlement,
    current,
    limit,
  });
}

export interface QuotaRefusal {
  code: 'span_limit_exceeded' | 'storage_cap_exceeded';
  current: number;
  limit: number;
}

/**
 * Whether storing `incomingSpans` spans of `incomingBytes` bytes would pass the plan: refused whole,
 * never in part, so nothing of the request is stored.
 */
export function quotaRefusal(
  plan: Plan,
  usage: { monthSpans: number; storedBytes: number },
  incomingSpans: number,
  incomingBytes: number,
): QuotaRefusal | null {
  if (plan.monthly_spans !== null && usage.monthSpans + incomingSpans > plan.monthly_spans) {
    return { code: 'span_limit_exceeded', current: usage.monthSpans, limit: plan.monthly_spans };
  }
  if (plan.storage_bytes !== null && usage.storedBytes + incomingBytes > plan.storage_bytes) {
    return { code: 'storage_cap_exceeded', current: usage.storedBytes, limit: plan.storage_bytes };
  }
  return null;
}

/** Retry-After of a storage refusal: storage frees only when an operator acts, so ask for an hour. */
export const STORAGE_RETRY_SECONDS = 3600;

/** `YYYY-MM` (UTC) of a time: the span quota's period. */
export function monthOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

/** The 429 of a quota refusal, with Retry-After (span quota: until the next month, UTC). */
export function quotaError(r: QuotaRefusal, upgradeUrl: string, nowMs: number): ApiError {
  const now = new Date(nowMs);
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const retry =
    r.code === 'span_limit_exceeded' ? Math.max(1, Math.ceil((nextMonth - nowMs) / 1000)) : STORAGE_RETRY_SECONDS;
  const message =
    r.code === 'span_limit_exceeded'
      ? `Monthly span quota of ${r.limit} reached`
      : `Storage cap of ${r.limit} bytes reached`;
  return new ApiError(
    r.code,
    message,
    { currentCount: r.current, limit: r.limit, upgradeUrl, retry_after_seconds: retry },
    { 'Retry-After': String(retry) },
  );
}

/** A plan matters to the writer only when it limits spans or storage. */
export function quotaPlan(plan: Plan): Plan | null {
  return plan.monthly_spans === null && plan.storage_bytes === null ? null : plan;
}
