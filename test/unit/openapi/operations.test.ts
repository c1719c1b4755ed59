/**
 * src/openapi/operations.ts: the notes on each operation, as the routes carry them. Every documented example validates
 * against its catalog type with typia's validator (exactly: no property the type lacks), so the
 * types stay the single source of what the examples may say.
 */
import t from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../../src/contract/catalog.js';
import type { Payload } from '../../../src/openapi/note.js';
import { API_DESCRIPTION } from '../../../src/openapi/description.js';
import { OPERATIONS } from '../../../src/openapi/operations.js';

interface Example {
  where: string;
  type: string;
  value: unknown;
}

function examplesOf(where: string, payload: Payload | undefined): Example[] {
  if (!payload?.type) return [];
  return Object.entries(payload.examples ?? {}).map(([name, value]) => ({
    where: `${where} ${name}`,
    type: payload.type!,
    value,
  }));
}

const EXAMPLES: Example[] = [
  ...Object.entries(OPERATIONS).flatMap(([key, note]) => [
    ...examplesOf(`${key} request`, note.body),
    ...note.answers.flatMap((a) => examplesOf(`${key} ${a.status}`, a)),
  ]),
];

function validate(e: Pick<Example, 'type' | 'value'>) {
  return validateCatalogValues({ [e.type]: [e.value] } as CatalogValues);
}

t.test('every example validates against its type', async (t) => {
  t.ok(EXAMPLES.length >= 25, `${EXAMPLES.length} examples`);
  for (const e of EXAMPLES) {
    const result = validate(e);
    t.ok(result.success, `${e.where} is a ${e.type}`, result.success ? {} : { errors: result.errors });
  }
});

t.test('the validation can fail', async (t) => {
  t.notOk(validate({ type: 'ScoreBody', value: { name: '' } }).success, 'a tag (MinLength) is checked');
  t.notOk(
    validate({ type: 'CreateAppBody', value: { name: 'ok', extra: 1 } }).success,
    'a property the type lacks is refused',
  );
  t.notOk(validate({ type: 'TracePage', value: { data: [] } }).success, 'a missing property is refused');
  t.notOk(
    validate({ type: 'ErrorBody', value: { error: { code: 'no_such_code', message: 'x' } } }).success,
    'error codes come from the error table',
  );
});

t.test('the main operations show a request and an answer', async (t) => {
  const main = [
    'POST /v1/traces/search',
    'POST /v1/scores',
    'POST /v1/scores/batch',
    'POST /v1/api-keys',
    'POST /v1/apps',
    'POST /v1/environments',
    'DELETE /v1/environments/:id',
    'POST /v1/comments',
  ];
  for (const key of main) {
    const note = OPERATIONS[key]!;
    t.ok(examplesOf(key, note.body).length > 0, `${key}: a request example`);
    t.ok(
      note.answers.some((a) => examplesOf(key, a).length > 0),
      `${key}: an answer example`,
    );
  }
  for (const key of [
    'GET /v1/traces/:traceId',
    'GET /v1/traces/:traceId/spans',
    'GET /health',
    'GET /v1/health/ingestion',
  ]) {
    t.ok(
      OPERATIONS[key]!.answers.some((a) => examplesOf(key, a).length > 0),
      `${key}: an answer example`,
    );
  }
});

t.test('every note has a tag and a summary; the introduction says how to authenticate', async (t) => {
  for (const [key, note] of Object.entries(OPERATIONS)) t.ok(note.tag && note.summary && note.answers.length > 0, key);
  t.match(API_DESCRIPTION, /X-Service-App-Id/);
});
