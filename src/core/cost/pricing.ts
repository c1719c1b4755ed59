// Model price table and per-call cost. Pure: the caller reads data/pricing.json and passes it in.

import { roundUsd } from './money.js';

/** One priced model. Prices are USD per 1 million tokens. */
export interface ModelPrice {
  id: string;
  provider: string;
  /** Case-insensitive regular expression source, anchored with ^...$, for the model ids SDKs report. */
  match: string;
  input: number;
  output: number;
  /** Rate for cache-hit input tokens; null or absent when the vendor publishes none. */
  cached_input?: number | null;
  note?: string;
}

/** The shape of data/pricing.json. */
export interface PriceTable {
  version: 1;
  currency: 'USD';
  unit: 'per_1m_tokens';
  /** Date (YYYY-MM-DD) the prices were taken from the vendors' pages. */
  as_of: string;
  sources: string[];
  note?: string;
  models: ModelPrice[];
}

/** Token counts of one call. `cachedInputTokens` is the part of `inputTokens` served from a prompt cache. */
export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
}

/** A price table with its patterns compiled, ready for per-span lookups. */
export interface PriceIndex {
  /**
   * The price for a reported model id: an exact id (case-insensitive) first, then the first matching pattern;
   * leading `vendor/` segments are peeled off one at a time only when the longer string matched nothing.
   */
  find(model: string): ModelPrice | undefined;
}

const CACHE_LIMIT = 1000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isPrice = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function fail(message: string): never {
  throw new Error(`invalid price table: ${message}`);
}

function parseModel(raw: unknown, i: number): ModelPrice {
  const label = isRecord(raw) && typeof raw.id === 'string' ? `models[${i}] "${raw.id}"` : `models[${i}]`;
  const bad = (what: string): never => fail(`${label}: ${what}`);
  if (!isRecord(raw)) return bad('not an object');
  const { id, provider, match, input, output, cached_input, note } = raw;
  if (!isText(id)) return bad('id must be a non-empty string');
  if (!isText(provider)) return bad('provider must be a non-empty string');
  if (!isText(match) || !match.startsWith('^') || !match.endsWith('$')) {
    return bad('match must be a regular expression anchored with ^...$');
  }
  try {
    new RegExp(match, 'i');
  } catch (err) {
    return bad(`match is not a valid regular expression (${(err as Error).message})`);
  }
  if (!isPrice(input)) return bad('input must be a non-negative finite number');
  if (!isPrice(output)) return bad('output must be a non-negative finite number');
  if (cached_input != null && !isPrice(cached_input)) {
    return bad('cached_input must be a non-negative finite number or null');
  }
  if (note !== undefined && typeof note !== 'string') return bad('note must be a string');
  return {
    id,
    provider,
    match,
    input,
    output,
    cached_input: cached_input ?? null,
    ...(note === undefined ? {} : { note }),
  };
}

/** Validates data shaped like data/pricing.json; throws an Error naming the offending entry. */
export function parsePriceTable(json: unknown): PriceTable {
  if (!isRecord(json)) return fail('not an object');
  const { version, currency, unit, as_of, sources, note, models } = json;
  if (version !== 1) return fail(`unsupported version ${String(version)}`);
  if (currency !== 'USD') return fail('currency must be "USD"');
  if (unit !== 'per_1m_tokens') return fail('unit must be "per_1m_tokens"');
  if (typeof as_of !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(as_of)) return fail('as_of must be a YYYY-MM-DD date');
  if (!Array.isArray(sources) || !sources.every(isText)) return fail('sources must be an array of strings');
  if (note !== undefined && typeof note !== 'string') return fail('note must be a string');
  if (!Array.isArray(models) || models.length === 0) return fail('models must be a non-empty array');

  const seen = new Set<string>();
  const parsed = models.map((raw, i) => {
    const model = parseModel(raw, i);
    // Lookups are case-insensitive, so ids differing only in case would shadow each other.
    const key = model.id.toLowerCase();
    if (seen.has(key)) return fail(`models[${i}] "${model.id}": duplicate id`);
    seen.add(key);
    return model;
  });
  return {
    version: 1,
    currency: 'USD',
    unit: 'per_1m_tokens',
    as_of,
    sources: [...sources],
    ...(typeof note === 'string' ? { note } : {}),
    models: parsed,
  };
}

/** Compiles every pattern once; the returned index caches results because it is consulted per span. */
export function compilePriceTable(table: PriceTable): PriceIndex {
  const byId = new Map(table.models.map((m) => [m.id.toLowerCase(), m]));
  const patterns = table.models.map((m) => ({ re: new RegExp(m.match, 'i'), price: m }));
  // null records a known miss, so unpriced models are not re-scanned on every span.
  const cache = new Map<string, ModelPrice | null>();

  const lookup = (name: string): ModelPrice | undefined =>
    byId.get(name.toLowerCase()) ?? patterns.find((p) => p.re.test(name))?.price;

  const resolve = (model: string): ModelPrice | undefined => {
    let name = model.trim();
    for (;;) {
      const hit = lookup(name);
      if (hit) return hit;
      const slash = name.indexOf('/');
      if (slash < 0) return undefined;
      name = name.slice(slash + 1);
    }
  };

  return {
    find(model) {
      const known = cache.get(model);
      if (known !== undefined) return known ?? undefined;
      const price = resolve(model);
      // Map iterates in insertion order, so this drops the oldest entry.
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(model, price ?? null);
      return price;
    },
  };
}

const tokens = (n: number | undefined): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

/**
 * USD cost of one call. Cached input tokens are billed at `cached_input` when the model has that rate, else at
 * `input`. Callers must pass the total prompt size as `inputTokens`: Anthropic reports cache reads outside
 * `input_tokens`, so add them in before calling. A cached count larger than the input count is capped at it.
 */
export function costOf(price: ModelPrice, usage: TokenUsage): number {
  const input = tokens(usage.inputTokens);
  const cached = Math.min(tokens(usage.cachedInputTokens), input);
  const usd =
    ((input - cached) * price.input +
      cached * (price.cached_input ?? price.input) +
      tokens(usage.outputTokens) * price.output) /
    1e6;
  // Per-token prices like 0.15 are not exact binary fractions; rounding keeps sums and equality checks clean.
  return roundUsd(usd);
}
