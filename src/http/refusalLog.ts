/**
 * Warn lines for OTLP exports refused whole (401, 403, 413, 429, …) or in part (`partialSuccess`):
 * exporters drop what we refuse, so an operator must be able to see it at the default log level.
 * At most one line per tenant, app and reason per interval, saying how many it folded in, so a
 * misconfigured exporter retrying in a loop cannot flood the log.
 */
import { shownPrefix } from '../auth/keys.js';
import { basicCredentials } from './basicAuth.js';

/** The shown prefix of the API key an Authorization header carries (raw, Bearer or Basic), if it carries one. */
export function keyPrefixOf(authorization: string | undefined): string | null {
  const key = basicCredentials(authorization)?.key ?? authorization?.replace(/^Bearer\s+/i, '').trim();
  return key?.startsWith('sk_') ? shownPrefix(key) : null;
}

export interface Refusal {
  tenant_id: string | null;
  app_id: string | null;
  /** The shown prefix of the key used (never the key). */
  key_prefix: string | null;
  /** The error code, or `partial_success`. */
  reason: string;
  status: number;
  rejected_spans?: number;
  message: string;
}

type Warn = (fields: Refusal & { folded?: number }, msg: string) => void;

/** How many distinct tenant/app/reason keys are remembered before the memory is cleared. */
const MAX_KEYS = 10_000;

export class RefusalLog {
  private readonly seen = new Map<string, { at: number; folded: number }>();

  constructor(
    private readonly warn: Warn,
    private readonly intervalMs = 10_000,
  ) {}

  note(refusal: Refusal, nowMs: number): void {
    const key = `${refusal.tenant_id} ${refusal.app_id} ${refusal.reason}`;
    const last = this.seen.get(key);
    if (last && nowMs - last.at < this.intervalMs) {
      last.folded++;
      return;
    }
    if (!last && this.seen.size >= MAX_KEYS) this.seen.clear();
    this.seen.set(key, { at: nowMs, folded: 0 });
    this.warn(last && last.folded > 0 ? { ...refusal, folded: last.folded } : refusal, 'ingestion refused');
  }
}
