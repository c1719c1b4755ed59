/**
 * Plan quotas as the ingest coordinator keeps them: each tenant's usage this month (spans, stored
 * bytes), loaded once from the store, and what admitted requests have reserved of it. A request
 * reserves when it is admitted, keeps its reservation once its record is durable, and gives it back
 * when it fails, so a retry of a failed request is not counted twice.
 */
import { monthOf, quotaRefusal, type Plan, type QuotaRefusal } from '../core/plans.js';

export interface Usage {
  month: string;
  monthSpans: number;
  storedBytes: number;
}

export class QuotaLedger {
  private readonly usage = new Map<string, Usage>();
  private readonly loads = new Map<string, Promise<Usage>>();
  /** What each admission ticket reserved. */
  private readonly reserved = new Map<number, { tenantId: string; spans: number; bytes: number }>();

  /** `loadUsage`: a tenant's usage of this month, from the store; `now`: the clock months follow. */
  constructor(
    private readonly loadUsage: (tenantId: string) => Promise<Usage>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Loads a tenant's usage (once); call before `reserve` for that tenant. */
  async load(tenantId: string): Promise<void> {
    let load = this.loads.get(tenantId);
    if (!load) {
      load = this.loadUsage(tenantId).then((u) => {
        this.usage.set(tenantId, u);
        return u;
      });
      load.catch(() => this.loads.delete(tenantId));
      this.loads.set(tenantId, load);
    }
    await load;
  }

  /** Reserves `spans` and `bytes` for a ticket, or says which quota they would pass. */
  reserve(ticket: number, tenantId: string, plan: Plan, spans: number, bytes: number): QuotaRefusal | null {
    const u = this.usage.get(tenantId);
    if (!u) return null; // loaded before the request was admitted
    const month = monthOf(this.now());
    if (u.month !== month) Object.assign(u, { month, monthSpans: 0 });
    const refused = quotaRefusal(plan, u, spans, bytes);
    if (refused) return refused;
    u.monthSpans += spans;
    u.storedBytes += bytes;
    this.reserved.set(ticket, { tenantId, spans, bytes });
    return null;
  }

  /** The ticket's request is durable: its reservation is usage now. */
  keep(ticket: number): void {
    this.reserved.delete(ticket);
  }

  /** The ticket's request failed: its reservation is given back. */
  release(ticket: number): void {
    const r = this.reserved.get(ticket);
    this.reserved.delete(ticket);
    const u = r && this.usage.get(r.tenantId);
    if (r && u) {
      u.monthSpans -= r.spans;
      u.storedBytes -= r.bytes;
    }
  }
}
