/**
 * Random values valid against the JSON schemas of docs/openapi.json (the subset typia emits: $ref,
 * oneOf, const, objects, arrays and tuples, strings with lengths, formats and simple
 * patterns, numbers with bounds), for sweeping the API with bodies its reference calls valid.
 * Seeded by the caller (ids in `uuid` format aside), and every failure prints the body it sent. Lengths count UTF-16 units, as the
 * validators do.
 */
import { randomUUID } from 'node:crypto';

export type Schema = { [keyword: string]: unknown };

export interface SampleContext {
  components: Readonly<Record<string, Schema>>;
  random: () => number;
  /** Real values worth trying for a property of this name (used when the schema allows them). */
  hints?: (property: string) => readonly unknown[];
}

/** Text a sender may well send: ASCII, quotes and escapes, accents, CJK, emoji, controls. */
const PALETTE = [
  'a',
  'Z',
  '0',
  ' ',
  '-',
  '_',
  '.',
  '/',
  ':',
  '"',
  "'",
  '\\',
  '<',
  '%',
  'é',
  '漢',
  '😀',
  '\n',
  '\t',
  '\u0000',
  '\u202e',
];
const DATES = [
  '2026-11-28T00:00:00Z',
  '1970-01-01T00:00:00Z',
  '2000-02-29T12:34:56.789Z',
  '9999-12-31T23:59:59.999Z',
  '2026-11-28T10:00:00+05:30',
  new Date().toISOString(),
];
const NUMBERS = [0, 1, -1, 0.5, 1e-9, 42, 2 ** 31, 2 ** 53 - 1, -(2 ** 53 - 1), 1e308, -1e308, 5e-324];
/** Deeper than this, objects take their required properties only and arrays their fewest items. */
const DEEP = 5;

export function sample(schema: Schema, c: SampleContext, depth = 0, property?: string): unknown {
  if (typeof schema.$ref === 'string') return sample(resolve(schema.$ref, c), c, depth, property);
  const hinted = hint(schema, c, property);
  if (hinted.length > 0 && c.random() < 0.6) return pick(hinted, c);
  if ('const' in schema) return schema.const;
  const branches = schema.oneOf as Schema[] | undefined;
  if (branches) {
    // Deep down, prefer a branch that ends the nesting.
    const flat = depth > DEEP ? branches.filter((b) => !isNested(b, c)) : [];
    return sample(pick(flat.length > 0 ? flat : branches, c), c, depth + 1, property);
  }
  const type = schema.type as string | undefined;
  switch (type) {
    case 'object':
      return object(schema, c, depth);
    case 'array':
      return array(schema, c, depth, property);
    case 'string':
      return string(schema, c);
    case 'integer':
      return number(schema, c, true);
    case 'number':
      return number(schema, c, false);
    case 'boolean':
      return c.random() < 0.5;
    case 'null':
      return null;
    case undefined:
      // `unknown`: any JSON value.
      return pick(['x', 1, true, null, {}, [], { a: [1, 'b'] }], c);
    default:
      throw new Error(`a schema of type ${String(type)} is not sampled`);
  }
}

function resolve(ref: string, c: SampleContext): Schema {
  const name = ref.replace('#/components/schemas/', '');
  const found = c.components[name];
  if (!found) throw new Error(`no schema ${ref}`);
  return found;
}

function isNested(s: Schema, c: SampleContext): boolean {
  const r = typeof s.$ref === 'string' ? resolve(s.$ref, c) : s;
  return r.type === 'object' || r.type === 'array' || r.oneOf !== undefined;
}

function pick<T>(xs: readonly T[], c: SampleContext): T {
  return xs[Math.floor(c.random() * xs.length)]!;
}

function between(min: number, max: number, c: SampleContext): number {
  return min + Math.floor(c.random() * (max - min + 1));
}

function object(schema: Schema, c: SampleContext, depth: number): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(properties)) {
    if (!required.has(name) && (depth > DEEP || c.random() < 0.5)) continue;
    out[name] = sample(s, c, depth + 1, name);
  }
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length === 0 && extra !== false && depth <= DEEP) {
    // A map (Record<string, X>): a few keys, odd ones among them.
    for (let i = between(0, 3, c); i > 0; i--) {
      const key = pick(['k', 'model', 'a.b', 'ünï', '', 'x'.repeat(200), '__proto__', 'constructor'], c);
      out[key] =
        typeof extra === 'object' && extra !== null
          ? sample(extra as Schema, c, depth + 1)
          : pick(['v', 1, true, null], c);
    }
  }
  return out;
}

/** Items take the array's hints (`labels: ['production']` hints each label). */
function array(schema: Schema, c: SampleContext, depth: number, property: string | undefined): unknown[] {
  if (Array.isArray(schema.prefixItems)) return (schema.prefixItems as Schema[]).map((s) => sample(s, c, depth + 1));
  const min = (schema.minItems as number | undefined) ?? 0;
  const max = (schema.maxItems as number | undefined) ?? min + 4;
  const length = depth > DEEP ? min : c.random() < 0.1 && max <= 60 ? max : between(min, Math.min(max, min + 4), c);
  const items = (schema.items ?? {}) as Schema;
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (let tries = 0; out.length < length && tries < length * 8 + 8; tries++) {
    const v = sample(items, c, depth + 1, property);
    if (schema.uniqueItems) {
      const key = JSON.stringify(v);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(v);
  }
  if (out.length < min) throw new Error(`could not sample ${min} unique items`);
  return out;
}

function string(schema: Schema, c: SampleContext): string {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? Math.max(min, 300);
  if (schema.format === 'date-time') return pick(DATES, c);
  if (schema.format === 'uuid') return randomUUID();
  if (typeof schema.pattern === 'string') {
    const s = fromPattern(schema.pattern, c, max);
    if (s.length < min) throw new Error(`pattern ${schema.pattern} sampled shorter than ${min}`);
    return s;
  }
  const roll = c.random();
  const target = roll < 0.15 ? min : roll < 0.3 ? max : between(min, Math.min(max, min + 40), c);
  let s = '';
  while (s.length < target) {
    const ch = pick(PALETTE, c);
    s += s.length + ch.length <= max ? ch : 'a';
  }
  return s;
}

function number(schema: Schema, c: SampleContext, integral: boolean): number {
  const lo = (schema.minimum as number | undefined) ?? -Infinity;
  const hi = (schema.maximum as number | undefined) ?? Infinity;
  const edges = [lo, hi, ...NUMBERS].filter(
    (n) => Number.isFinite(n) && n >= lo && n <= hi && (!integral || Number.isSafeInteger(n)),
  );
  if (edges.length > 0 && c.random() < 0.7) return pick(edges, c);
  const from = Number.isFinite(lo) ? lo : -1000;
  const to = Number.isFinite(hi) ? hi : from + 2000;
  const v = from + c.random() * (to - from);
  return integral ? Math.min(Math.max(Math.round(v), Math.ceil(from)), Math.floor(to)) : v;
}

/**
 * A string matching `pattern`, of the simple form the contract uses: `^`, then character classes
 * (`[a-z0-9._-]`) each with an optional `{m}`, `{m,n}`, `*` or `+`, then `$`. At most `max` long.
 */
export function fromPattern(pattern: string, c: SampleContext, max = Infinity): string {
  const parts = /^\^((?:\[(?:\\.|[^\]])+\](?:\{\d+(?:,\d+)?\}|\*|\+)?)+)\$$/.exec(pattern);
  if (!parts) throw new Error(`pattern ${pattern} is not of the sampled form: teach schemaSample.ts`);
  let out = '';
  for (const m of parts[1]!.matchAll(/\[((?:\\.|[^\]])+)\](?:\{(\d+)(?:,(\d+))?\}|(\*)|(\+))?/g)) {
    const chars = classChars(m[1]!);
    const least = m[4] ? 0 : m[2] ? Number(m[2]) : 1;
    const most = m[4] || m[5] ? 12 : m[3] ? Number(m[3]) : least;
    const room = Math.max(least, Math.min(most, max - out.length));
    const n = c.random() < 0.2 ? room : between(least, Math.min(room, least + 12), c);
    for (let i = 0; i < n; i++) out += pick(chars, c);
  }
  return out;
}

function classChars(body: string): string[] {
  const chars: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] === '\\' ? body[++i]! : body[i]!;
    if (body[i + 1] === '-' && i + 2 < body.length) {
      const end = body[i + 2]!;
      for (let code = ch.charCodeAt(0); code <= end.charCodeAt(0); code++) chars.push(String.fromCharCode(code));
      i += 2;
    } else chars.push(ch);
  }
  return chars;
}

/** The hints for `property` that this schema accepts, as far as a string or number schema says. */
function hint(schema: Schema, c: SampleContext, property: string | undefined): unknown[] {
  if (!property || !c.hints) return [];
  return c.hints(property).filter((v) => fits(schema, v));
}

function fits(schema: Schema, v: unknown): boolean {
  if (schema.type === 'string' && typeof v === 'string') {
    if (typeof schema.maxLength === 'number' && v.length > schema.maxLength) return false;
    if (typeof schema.minLength === 'number' && v.length < schema.minLength) return false;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(v)) return false;
    if (schema.format === 'uuid') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
    return schema.format === undefined;
  }
  if ((schema.type === 'integer' || schema.type === 'number') && typeof v === 'number') {
    if (schema.type === 'integer' && !Number.isInteger(v)) return false;
    return (
      v >= ((schema.minimum as number | undefined) ?? -Infinity) &&
      v <= ((schema.maximum as number | undefined) ?? Infinity)
    );
  }
  return false;
}
