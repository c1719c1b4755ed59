/**
 * Per-tenant token buckets (spec: Limits, rate limiting): each tenant may make `ratePerSecond`
 * requests a second on average and up to `burst` at once. Pure: the clock is passed in.
 */

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** `ratePerSecond` 0 turns limiting off. */
  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxTenants = 100_000,
  ) {}

  take(tenant: string, nowMs: number): RateDecision {
    if (this.ratePerSecond <= 0) return { allowed: true, retryAfterSeconds: 0 };
    let b = this.buckets.get(tenant);
    if (!b) {
      if (this.buckets.size >= this.maxTenants) this.buckets.delete(this.buckets.keys().next().value!);
      b = { tokens: this.burst, at: nowMs };
      this.buckets.set(tenant, b);
    }
    b.tokens = Math.min(this.burst, b.tokens + ((nowMs - b.at) / 1000) * this.ratePerSecond);
    b.at = nowMs;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.ratePerSecond)) };
  }
}
