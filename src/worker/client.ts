/**
 * The worker's calls to the gateway (routes/workers.ts, the worker's side). A refused call is a
 * GatewayError with the spec's code; a lost lease (404 on a lease call) is LeaseLost, so the turn
 * is dropped. Network failures and 429/503 are retried with a growing pause, since a worker
 * outlives restarts of its gateway.
 */
import type { CompleteBody, WorkerEventInput } from '../contract/workers.js';
import type { EvalClaim } from '../store/workers/evalLeases.js';
import type { Heartbeat, TurnClaim } from '../store/workers/leases.js';

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The lease is gone (expired, or the turn ended or was handed back): stop the turn, report nothing. */
export class LeaseLost extends Error {}

export interface GatewayOptions {
  url: string;
  key: string;
  appId: string;
  /** Retries of a failed call before it is given up (network errors, 429, 503). */
  retries?: number;
}

const RETRY_STATUS = new Set([429, 502, 503, 504]);

export class GatewayClient {
  constructor(private readonly o: GatewayOptions) {}

  /** A turn (or, with `evals`, an eval run) to run, or null when none came within `waitSeconds`. */
  claim(
    worker: string,
    profiles: string[],
    waitSeconds: number,
    signal?: AbortSignal,
    evals = false,
  ): Promise<TurnClaim | EvalClaim | null> {
    return this.call<TurnClaim | EvalClaim | null>(
      '/v1/workers/claim',
      { worker, profiles, wait_seconds: waitSeconds, ...(evals ? { evals: true } : {}) },
      signal,
      0,
    );
  }

  heartbeat(leaseId: string): Promise<Heartbeat> {
    return this.lease<Heartbeat>(leaseId, 'heartbeat');
  }

  events(leaseId: string, events: WorkerEventInput[]): Promise<{ stored: number; cancel: boolean }> {
    return this.lease(leaseId, 'events', { events });
  }

  complete(leaseId: string, end: CompleteBody): Promise<unknown> {
    return this.lease(leaseId, 'complete', end);
  }

  release(leaseId: string): Promise<unknown> {
    return this.lease(leaseId, 'release');
  }

  private async lease<T>(leaseId: string, what: string, body?: unknown): Promise<T> {
    try {
      return await this.call<T>(`/v1/workers/leases/${leaseId}/${what}`, body);
    } catch (e) {
      if (e instanceof GatewayError && e.status === 404) throw new LeaseLost(e.message);
      throw e;
    }
  }

  private async call<T>(path: string, body: unknown, signal?: AbortSignal, retries = this.o.retries ?? 8): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.o.key}`, 'x-service-app-id': this.o.appId };
    if (body !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.o.url + path, {
          method: 'POST',
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          ...(signal ? { signal } : {}),
        });
      } catch (e) {
        if (signal?.aborted || attempt >= retries) throw e;
        await pause(attempt);
        continue;
      }
      const text = await res.text();
      if (res.ok) return (JSON.parse(text) as { data: T }).data;
      if (RETRY_STATUS.has(res.status) && attempt < retries) {
        await pause(attempt, Number(res.headers.get('retry-after')) || 0);
        continue;
      }
      let error: { code?: string; message?: string } = {};
      try {
        error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
      } catch {
        // not the spec's shape: say the status
      }
      throw new GatewayError(res.status, error.code ?? 'error', error.message ?? `${path} answered ${res.status}`);
    }
  }
}

/** 0.25 s, 0.5 s, 1 s … up to 5 s; or what Retry-After says, up to 30 s. */
function pause(attempt: number, retryAfterSeconds = 0): Promise<void> {
  const ms = retryAfterSeconds > 0 ? Math.min(30, retryAfterSeconds) * 1000 : Math.min(5000, 250 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
