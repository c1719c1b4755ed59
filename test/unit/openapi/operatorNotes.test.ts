/**
 * src/openapi/operatorNotes.ts: the notes on the operator API, as the operator routes carry them. One note per operator route,
 * each tagged, saying that the route needs an operator token, with the errors the operator API
 * answers; its request examples are bodies the server accepts (typia's shape and then the CLI's own
 * rules), its answer examples values of their types.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { validateCatalogValues, type CatalogValues } from '../../../src/contract/catalog.js';
import { OPERATOR_ENDPOINTS, operatorCommand, type OperatorCommandName } from '../../../src/core/admin/operatorApi.js';
import { operatorRoutes } from '../../../src/http/routes/operator.js';
import { noteKey } from '../../../src/openapi/document.js';
import { CREATED } from '../../../src/openapi/examples.js';
import type { OperationNote } from '../../../src/openapi/note.js';
import { ONLY_WITH_OPERATOR_TOKEN, OPERATOR_TAG } from '../../../src/openapi/operatorNotes.js';

const ROUTES = operatorRoutes(Buffer.alloc(32));
const OPERATOR_OPERATIONS: Record<string, OperationNote> = Object.fromEntries(
  ROUTES.flatMap((r) => (r.note ? [[noteKey(r.method, r.path), r.note]] : [])),
);

t.test('one note per operator route', async (t) => {
  t.same(Object.keys(OPERATOR_OPERATIONS).sort(), ROUTES.map((r) => noteKey(r.method, r.path)).sort());
});

t.test("every note is tagged, says it needs the token, and names the operator API's errors", async (t) => {
  for (const [key, note] of Object.entries(OPERATOR_OPERATIONS)) {
    t.equal(note.tag, OPERATOR_TAG, key);
    t.ok(note.description?.endsWith(ONLY_WITH_OPERATOR_TOKEN), `${key}: ends with the sentence on the token`);
    const statuses = (note.errors ?? []).map((e) => e.status);
    t.ok(statuses.includes(401) && statuses.includes(404), `${key}: 401 and 404`);
    t.equal(note.answers.length, 1, `${key}: one answer`);
  }
  t.equal(
    OPERATOR_OPERATIONS['GET /v1/operator/tenants/:tenant/apps']!.description,
    ONLY_WITH_OPERATOR_TOKEN,
    'a note without words of its own has the sentence alone',
  );
  t.match(
    OPERATOR_OPERATIONS['POST /v1/operator/tenants']!.description,
    /^With an app `default`.*\n\nServed only/s,
    'its own words first',
  );
});

t.test("the success status of each command is its endpoint's", async (t) => {
  for (const name of Object.keys(OPERATOR_ENDPOINTS) as OperatorCommandName[]) {
    const { method, path, status } = OPERATOR_ENDPOINTS[name];
    t.equal(OPERATOR_OPERATIONS[noteKey(method, path)]!.answers[0]!.status, status, name);
  }
});

t.test('request examples are bodies the server accepts', async (t) => {
  let checked = 0;
  for (const name of Object.keys(OPERATOR_ENDPOINTS) as OperatorCommandName[]) {
    const { method, path } = OPERATOR_ENDPOINTS[name];
    const note = OPERATOR_OPERATIONS[noteKey(method, path)]!;
    const route = ROUTES.find((r) => r.method === method && r.path === path)!;
    const params = Object.fromEntries([...path.matchAll(/:([a-z]+)/g)].map((m) => [m[1]!, randomUUID()]));
    if (route.validate?.body) t.ok(Object.keys(note.body?.examples ?? {}).length > 0, `${name}: a request example`);
    for (const [example, body] of Object.entries(note.body?.examples ?? {})) {
      const shape = route.validate!.body!(body);
      t.ok(
        shape.success,
        `${name} ${example}: the route's validator accepts it`,
        shape.success ? {} : { errors: shape.errors },
      );
      // The CLI's rules at the examples' own time (an expiry must be in the future).
      t.doesNotThrow(
        () => operatorCommand(name, params, body as Record<string, unknown>, Date.parse(CREATED)),
        `${name} ${example}: the CLI's rules accept it`,
      );
      checked++;
    }
  }
  t.ok(checked >= 7, `${checked} request examples`);
});

t.test('answer examples are values of their types', async (t) => {
  let checked = 0;
  for (const [key, note] of Object.entries(OPERATOR_OPERATIONS)) {
    for (const a of note.answers) {
      for (const [example, value] of Object.entries(a.examples ?? {})) {
        const result = validateCatalogValues({ [a.type!]: [value] } as CatalogValues);
        t.ok(result.success, `${key} ${example} is a ${a.type}`, result.success ? {} : { errors: result.errors });
        checked++;
      }
    }
  }
  t.ok(checked >= 9, `${checked} answer examples`);
});
