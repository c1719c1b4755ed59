/**
 * The OpenAPI 3.1 document of the API, built from three sources and nothing else: the route table
 * (methods, paths, permissions, which bodies a route reads), the notes on each operation
 * (each route's `note`: summaries, which catalog type is a body or an answer, examples), and the JSON
 * schemas typia emits for the catalog of wire types (contract/catalog.ts). Pure: the same inputs
 * give the same document, so the committed docs/openapi.json can be compared with a fresh one.
 */
import type { Mode } from '../config.js';
import { ERRORS } from '../core/errors.js';
import type { Method, RoutePermission } from '../http/route.js';
import { STATUS_TEXT } from '../http/status.js';
import { refusalFor } from '../http/surface.js';
import type { Answer, OperationNote, Payload } from './note.js';

/** What the document reads of a route (an AnyRoute is one). */
export interface RouteShape {
  method: Method;
  path: string;
  permission: RoutePermission;
  body?: 'json' | 'raw' | 'none';
  rawKeyOnly?: boolean;
  note?: OperationNote;
}

export type Schema = Record<string, unknown>;

/** `typia.json.schemas<[Catalog], '3.1'>()`, as far as the document reads it. */
export interface SchemaCollection {
  components: { schemas?: Record<string, Schema> };
}

export interface DocumentInput {
  version: string;
  /** The API's own words (Markdown) for `info.description`. */
  description: string;
  routes: readonly RouteShape[];
  /** The spec's endpoints this version answers with 501 `not_implemented` (http/unbuilt.ts). */
  unbuilt: readonly (readonly [Method, string])[];
  /** Notes of routes that carry none of their own, by `noteKey`. */
  notes?: Readonly<Record<string, OperationNote>>;
  /** The tags in the order the document lists them; without it, in the order the notes are written. */
  tagOrder?: readonly string[];
  catalog: SchemaCollection;
  /** Examples of error bodies by status (each an ErrorBody). */
  errorExamples: Readonly<Record<number, Readonly<Record<string, unknown>>>>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: Schema;
}

export interface MediaType {
  schema: Schema;
  examples?: Record<string, { value: unknown }>;
}

export interface Response {
  $ref?: string;
  description: string;
  headers?: Record<string, { description: string; schema: Schema }>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  tags: string[];
  summary: string;
  description?: string;
  operationId: string;
  'x-tracelake-permission'?: RoutePermission;
  /** `operator-token`: served only by a server with an operator token configured (404 otherwise). */
  'x-tracelake-requires'?: 'operator-token';
  /** The modes whose servers answer the operation. */
  'x-tracelake-surface'?: Mode[];
  /** false: the spec's endpoint, answered 501 `not_implemented` by this version. */
  'x-tracelake-implemented'?: false;
  security?: Record<string, string[]>[];
  parameters: Parameter[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string; description: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Response>;
    securitySchemes: Record<string, Record<string, string>>;
  };
}

export const UNBUILT_TAG = 'Not built in this version';
const CATALOG = 'Catalog';
const MODES: readonly Mode[] = ['cloud', 'local'];
/** TypeScript's own comment on `Record`, which typia copies into every Record schema. */
const LIB_RECORD_DOC = 'Construct a type with a set of properties K of type T';

/** `GET /v1/traces/:traceId` → `GET /v1/traces/{traceId}`'s key in `notes`, as the route table writes it. */
export function noteKey(method: string, path: string): string {
  return `${method} ${path}`;
}

/** `/v1/traces/:traceId` → `/v1/traces/{traceId}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([^/]+)/g, '{$1}');
}

/** `GET /v1/traces/:traceId/spans` → `getTracesByTraceIdSpans`. */
export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((s) => s !== '' && s !== 'v1')
    .map((s) => (s.startsWith(':') ? `By${capital(s.slice(1))}` : s.split(/[-._]/).map(capital).join('')));
  return method.toLowerCase() + words.join('');
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function buildDocument(input: DocumentInput): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags: string[] = [];
  const add = (method: string, path: string, op: Operation) => {
    (paths[openApiPath(path)] ??= {})[method.toLowerCase()] = op;
    if (!tags.includes(op.tags[0]!)) tags.push(op.tags[0]!);
  };
  const noteOf = (route: RouteShape) => route.note ?? input.notes?.[noteKey(route.method, route.path)];
  for (const route of input.routes) add(route.method, route.path, operation(route, noteOf(route), input.catalog));
  for (const [method, path] of input.unbuilt) add(method, path, unbuiltOperation(method, path));
  // Tags in the order given (else the order the notes are written: by subject), those without a note last.
  const order =
    input.tagOrder ?? [...input.routes.map((r) => r.note), ...Object.values(input.notes ?? {})].map((n) => n?.tag);
  const rank = (tag: string) => {
    const i = order.indexOf(tag);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  tags.sort((a, b) => rank(a) - rank(b));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracelake gateway API',
      version: input.version,
      description: input.description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [
      { url: '/', description: 'The server that serves this document' },
      { url: 'http://127.0.0.1:4318', description: 'The default address of `npm start`' },
    ],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: componentSchemas(input.catalog),
      responses: errorResponses(input.errorExamples),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

const SECURITY_SCHEMES: OpenApiDocument['components']['securitySchemes'] = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key (`sk_service_…`) or a session token in `Authorization`; the `Bearer ` prefix is optional on the REST API.',
  },
  otlpKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'OTLP ingestion: the raw API key, without `Bearer ` (a `Bearer ` value is 401), as OpenTelemetry exporters send headers.',
  },
  appId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-App-Id',
    description: 'The app id (a UUID) the key belongs to; `X-Partner-App-Id` is accepted too.',
  },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The operator token (`TRACELAKE_OPERATOR_TOKEN`) in `Authorization`, `Bearer ` optional, with no app id header. It opens the operator API (`/v1/operator/*`) and nothing else; API keys and session tokens are refused there.',
  },
};

/** The credentials an operation takes: none, the operator token, or an API key (raw for OTLP) with the app id. */
function security(route: RouteShape): Record<string, string[]>[] {
  if (route.permission === 'none') return [];
  if (route.permission === 'operator') return [{ operatorToken: [] }];
  return [{ [route.rawKeyOnly ? 'otlpKey' : 'apiKey']: [], appId: [] }];
}

function operation(route: RouteShape, note: OperationNote | undefined, catalog: SchemaCollection): Operation {
  const modes = MODES.filter((m) => refusalFor(m, route.path.replace(/:[^/]+/g, 'x')) === null);
  const op: Operation = {
    tags: [note?.tag ?? 'Other'],
    summary: note?.summary ?? `${route.method} ${route.path}`,
    ...(note?.description === undefined ? {} : { description: note.description }),
    operationId: operationId(route.method, route.path),
    'x-tracelake-permission': route.permission,
    ...(route.permission === 'operator' ? { 'x-tracelake-requires': 'operator-token' as const } : {}),
    'x-tracelake-surface': modes,
    security: note?.credentialAlone ? [{ apiKey: [] }] : security(route),
    parameters: [
      ...pathParameters(route.path, note?.params, catalog),
      ...queryParameters(note?.query, catalog),
      ...headerParameters(note?.headers),
    ],
    ...(note?.body
      ? { requestBody: { required: note.body.optional !== true, content: content(note.body, catalog) } }
      : {}),
    responses: responses(route, note, modes, catalog),
  };
  return op;
}

function unbuiltOperation(method: string, path: string): Operation {
  return {
    tags: [UNBUILT_TAG],
    summary: 'Not built in this version',
    description: `The spec's \`${method} ${path}\`: this version answers 501 \`not_implemented\` (\`GET /v1/capabilities\` reports its feature as false).`,
    operationId: operationId(method, path),
    'x-tracelake-implemented': false,
    parameters: pathParameters(path, undefined, { components: {} }),
    responses: { '501': { $ref: '#/components/responses/Error501', description: 'Always: `not_implemented`.' } },
  };
}

/** The component a catalog name stands for; throws for a name the catalog does not have. */
export function catalogRef(catalog: SchemaCollection, name: string): string {
  const properties = (catalog.components.schemas?.[CATALOG]?.properties ?? {}) as Record<string, { $ref?: string }>;
  const ref = properties[name]?.$ref;
  if (ref === undefined) throw new Error(`"${name}" is not in the catalog (src/contract/catalog.ts)`);
  return ref;
}

/** The object schema behind a catalog name (its properties become parameters). */
function objectSchema(
  catalog: SchemaCollection,
  name: string,
): { properties: Record<string, Schema>; required: string[] } {
  const ref = catalogRef(catalog, name);
  const schema = canonical(catalog.components.schemas![ref.replace('#/components/schemas/', '')]) as Schema;
  return {
    properties: (schema.properties ?? {}) as Record<string, Schema>,
    required: (schema.required ?? []) as string[],
  };
}

function parameter(name: string, where: Parameter['in'], required: boolean, schema: Schema): Parameter {
  const { description, ...rest } = schema;
  return { name, in: where, required, ...(typeof description === 'string' ? { description } : {}), schema: rest };
}

function pathParameters(path: string, type: string | undefined, catalog: SchemaCollection): Parameter[] {
  const names = [...path.matchAll(/:([^/]+)/g)].map((m) => m[1]!);
  const properties = type === undefined ? {} : objectSchema(catalog, type).properties;
  return names.map((name) => parameter(name, 'path', true, properties[name] ?? { type: 'string' }));
}

function queryParameters(type: string | undefined, catalog: SchemaCollection): Parameter[] {
  if (type === undefined) return [];
  const { properties, required } = objectSchema(catalog, type);
  return Object.entries(properties).map(([name, schema]) => parameter(name, 'query', required.includes(name), schema));
}

function headerParameters(headers: OperationNote['headers']): Parameter[] {
  return Object.entries(headers ?? {}).map(([name, description]) => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  }));
}

function content(payload: Payload, catalog: SchemaCollection): Record<string, MediaType> {
  const out: Record<string, MediaType> = {};
  if (payload.type !== undefined) {
    out['application/json'] = { schema: { $ref: catalogRef(catalog, payload.type) } };
    if (payload.examples)
      out['application/json'].examples = Object.fromEntries(
        Object.entries(payload.examples).map(([name, value]) => [name, { value }]),
      );
  }
  for (const [type, description] of Object.entries(payload.media ?? {})) out[type] = { schema: { description } };
  return out;
}

/**
 * Error statuses any route of this shape can answer, by the router's rules (http/server.ts). The
 * operator token is one credential with no permissions and no tenant to rate-limit (401, never 403
 * or 429), and an operator route is 404 on a server without the token.
 */
function commonErrors(route: RouteShape, modes: readonly Mode[]): number[] {
  const operator = route.permission === 'operator';
  const tenant = route.permission !== 'none' && !operator;
  const readsBody = (route.body ?? (route.method === 'GET' || route.method === 'DELETE' ? 'none' : 'json')) !== 'none';
  return [
    // Every route refuses an unknown query parameter, so every route can be a 400.
    400,
    ...(tenant || operator ? [401] : []),
    ...(tenant ? [403] : []),
    ...(operator || route.path.includes('/:') ? [404] : []),
    ...(readsBody ? [413, 415] : []),
    ...(tenant ? [429] : []),
    500,
    ...(modes.length < MODES.length ? [501] : []),
    503,
  ];
}

function responses(
  route: RouteShape,
  note: OperationNote | undefined,
  modes: readonly Mode[],
  catalog: SchemaCollection,
): Record<string, Response> {
  const out: Record<string, Response> = {};
  for (const answer of note?.answers ?? [{ status: 200, description: 'OK' }])
    out[String(answer.status)] = answerResponse(answer, catalog);
  const extra = new Map<number, string[]>();
  for (const e of note?.errors ?? []) extra.set(e.status, [...(extra.get(e.status) ?? []), e.when]);
  const statuses = [...new Set([...commonErrors(route, modes), ...extra.keys()])].sort((a, b) => a - b);
  for (const status of statuses) {
    const key = String(status);
    if (out[key]) continue;
    const when = extra.get(status);
    out[key] = {
      $ref: `#/components/responses/Error${status}`,
      description: when ? when.join(' ') : errorDescription(status),
    };
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

function answerResponse(answer: Answer, catalog: SchemaCollection): Response {
  const response: Response = { description: answer.description };
  if (answer.headers)
    response.headers = Object.fromEntries(
      Object.entries(answer.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
    );
  if (answer.type !== undefined || answer.media) response.content = content(answer, catalog);
  return response;
}

function errorDescription(status: number): string {
  const codes = Object.entries(ERRORS)
    .filter(([, e]) => e.status === status)
    .map(([code]) => `\`${code}\``);
  return `${STATUS_TEXT[status]}: ${codes.join(', ')}.`;
}

function errorResponses(examples: DocumentInput['errorExamples']): Record<string, Response> {
  const statuses = [...new Set(Object.values(ERRORS).map((e) => e.status))].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const media: MediaType = { schema: { $ref: '#/components/schemas/ErrorBody' } };
      const own = examples[status];
      if (own) media.examples = Object.fromEntries(Object.entries(own).map(([name, value]) => [name, { value }]));
      return [`Error${status}`, { description: errorDescription(status), content: { 'application/json': media } }];
    }),
  );
}

/**
 * The catalog's components in a canonical order, without the catalog itself and without
 * TypeScript's comment on Record.
 */
function componentSchemas(catalog: SchemaCollection): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  for (const [name, schema] of sortedEntries(catalog.components.schemas ?? {})) {
    if (name === CATALOG) continue;
    const { description, ...rest } = canonical(schema) as Schema;
    schemas[name] = description === LIB_RECORD_DOC || description === undefined ? rest : { ...rest, description };
  }
  return schemas;
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedEntries<T>(record: Record<string, T>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => order(a, b));
}

/**
 * A schema with its union members, properties, discriminator mappings and required names sorted. typia follows the
 * compiler's order for union members and for the keys of mapped types (`Omit<…>`), and that order
 * depends on the order the compiler met the types: an incremental build and a fresh clone's build
 * differ. Sorted, every build writes the same document.
 */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(v)) {
      out[key] = v.map(canonical).sort((a, b) => order(JSON.stringify(a), JSON.stringify(b)));
    } else if (
      (key === 'properties' || key === 'mapping') &&
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v)
    ) {
      out[key] = Object.fromEntries(
        sortedEntries(v as Record<string, unknown>).map(([name, schema]) => [name, canonical(schema)]),
      );
    } else if (key === 'required' && Array.isArray(v)) {
      out[key] = [...(v as string[])].sort();
    } else out[key] = canonical(v);
  }
  return out;
}
