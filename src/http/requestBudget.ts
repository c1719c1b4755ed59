/**
 * The front end's admission: how many requests may be in flight and how many body bytes they may
 * hold in memory at once. Checked before a body is read — as its Content-Length announces it, or
 * chunk by chunk when it does not — so a crowd of large uploads is refused early with 503 and
 * Retry-After instead of being buffered until the process runs out of memory.
 *
 * Reads keep a share of the request slots: writes (requests with a body) may hold at most
 * `WRITE_SHARE` of them, so an ingest flood cannot starve the dashboards reading the data.
 */
const WRITE_SHARE = 0.75;

export class RequestBudget {
  private requests = 0;
  private writes = 0;
  private bytes = 0;

  constructor(
    readonly maxRequests: number,
    readonly maxBytes: number,
  ) {}

  /** Counts a new request in; false (and nothing counted) when too many are in flight. */
  enter(write: boolean): boolean {
    if (this.requests >= this.maxRequests) return false;
    if (write && this.writes >= Math.max(1, Math.floor(this.maxRequests * WRITE_SHARE))) return false;
    this.requests++;
    if (write) this.writes++;
    return true;
  }

  leave(write: boolean): void {
    this.requests--;
    if (write) this.writes--;
  }

  /** Reserves `n` body bytes; false (and nothing reserved) when the budget cannot hold them. */
  reserve(n: number): boolean {
    if (this.bytes + n > this.maxBytes) return false;
    this.bytes += n;
    return true;
  }

  release(n: number): void {
    this.bytes -= n;
  }

  get inFlight(): { requests: number; writes: number; bytes: number } {
    return { requests: this.requests, writes: this.writes, bytes: this.bytes };
  }
}
