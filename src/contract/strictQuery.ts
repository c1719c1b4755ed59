/**
 * Query strings checked strictly, against the JSON schema typia emits for the query type (the same
 * type its validator checks, so the two cannot drift): an unknown parameter, a parameter given
 * twice (unless it is a list), an empty value, or a number that is not plain decimal digits
 * (`0x10`, `1e3`, ` 7`) is a 400 naming it; and every failure is said in words from the schema
 * ("must be an integer from 1 to 1000") instead of typia's type expressions.
 */
import type { IValidation } from 'typia';

/** The parts of a JSON schema (typia's 3.1 output) that describe query parameters. */
export interface ParamSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  oneOf?: ParamSchema[];
  anyOf?: ParamSchema[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: ParamSchema;
  $ref?: string;
}

interface ObjectSchema {
  properties?: Record<string, ParamSchema>;
}

/** What `typia.json.schemas<[T], '3.1'>()` returns, as far as this module reads it. */
export interface SchemaCollection {
  schemas: ParamSchema[];
  components: { schemas?: Record<string, ObjectSchema & ParamSchema> };
}

const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * Wraps a typia query validator with the strict checks and worded messages; `collection` is
 * `typia.json.schemas<[T], '3.1'>()` of the same type.
 */
export function strictQuery<T>(
  validate: (input: URLSearchParams) => IValidation<T>,
  collection: SchemaCollection,
): (input: URLSearchParams) => IValidation<T> {
  const props = propertiesOf(collection);
  return (input) => {
    const errors: IValidation.IError[] = [];
    const seen = new Set<string>();
    for (const [name, value] of input) {
      const schema = props[name];
      if (!schema) {
        errors.push(fail(name, `unknown parameter (known: ${Object.keys(props).sort().join(', ') || 'none'})`, value));
        continue;
      }
      const list = resolve(collection, schema).type === 'array';
      if (seen.has(name) && !list) errors.push(fail(name, 'given more than once', value));
      seen.add(name);
      const item = list ? resolve(collection, resolve(collection, schema).items ?? {}) : resolve(collection, schema);
      if (value === '') errors.push(fail(name, `is empty: ${describe(collection, schema)}`, value));
      else if (numeric(item) && !(item.type === 'integer' ? INTEGER : DECIMAL).test(value))
        errors.push(fail(name, describe(collection, schema), value));
    }
    if (errors.length > 0) return { success: false, errors, data: input } as unknown as IValidation<T>;
    const result = validate(input);
    if (result.success) return result;
    return {
      ...result,
      errors: result.errors.map((e) => {
        const name = e.path.replace(/^\$input\.?/, '').replace(/\[\d+\]$/, '');
        const schema = props[name];
        return schema ? { ...e, expected: describe(collection, schema) } : e;
      }),
    };
  };
}

function fail(name: string, words: string, value: string): IValidation.IError {
  return { path: `$input.${name}`, expected: words, value };
}

function propertiesOf(collection: SchemaCollection): Record<string, ParamSchema> {
  const root = resolve(collection, collection.schemas[0] ?? {}) as ObjectSchema;
  return root.properties ?? {};
}

function resolve(collection: SchemaCollection, schema: ParamSchema): ParamSchema & ObjectSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return collection.components.schemas?.[name] ?? {};
}

function numeric(s: ParamSchema): boolean {
  return s.type === 'integer' || s.type === 'number';
}

/** The schema in words: `must be an integer from 1 to 1000`. */
export function describe(collection: SchemaCollection, raw: ParamSchema): string {
  const s = resolve(collection, raw);
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives) {
    const values = alternatives
      .map((a) => resolve(collection, a))
      .filter((a) => a.const !== undefined)
      .map((a) => String(a.const));
    if (values.length === alternatives.length) return `must be one of: ${values.join(', ')}`;
    return `must be ${alternatives.map((a) => describe(collection, a).replace(/^must be /, '')).join(', or ')}`;
  }
  if (s.const !== undefined) return `must be ${String(s.const)}`;
  if (s.enum) return `must be one of: ${s.enum.map(String).join(', ')}`;
  switch (s.type) {
    case 'integer':
    case 'number': {
      const what = s.type === 'integer' ? 'an integer' : 'a number';
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? `more than ${s.exclusiveMinimum}` : undefined);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? `less than ${s.exclusiveMaximum}` : undefined);
      if (typeof min === 'number' && typeof max === 'number') return `must be ${what} from ${min} to ${max}`;
      const bounds = [
        min === undefined ? null : typeof min === 'number' ? `at least ${min}` : min,
        max === undefined ? null : typeof max === 'number' ? `at most ${max}` : max,
      ].filter(Boolean);
      return `must be ${what}${bounds.length ? `, ${bounds.join(' and ')}` : ''}`;
    }
    case 'boolean':
      return 'must be true or false';
    case 'array':
      return `each value ${describe(collection, s.items ?? {})}`;
    case 'string': {
      if (s.format === 'date-time') return 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z';
      if (s.format === 'uuid') return 'must be a UUID';
      if (s.format) return `must be a ${s.format}`;
      if (s.pattern) return `must match ${s.pattern}`;
      if (s.minLength !== undefined && s.maxLength !== undefined)
        return `must be ${s.minLength} to ${s.maxLength} characters`;
      if (s.maxLength !== undefined) return `must be at most ${s.maxLength} characters`;
      return 'must be text';
    }
    default:
      return 'has an invalid value';
  }
}
