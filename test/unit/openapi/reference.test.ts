/**
 * src/openapi/reference.ts: the reference of this version against the route table it describes
 * and the committed docs/openapi.json. Every route is in the document with its method, every note
 * agrees with its route's own validators, the operator API is described whatever a server has, and
 * the committed file is what the generator makes now
 * (so it cannot rot: change a route or a contract type, and this fails until the file is rebuilt
 * and committed).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { AnyRoute } from '../../../src/http/route.js';
import { validateAgentBlob, validateAgentSession, validateAgentSyncBody } from '../../../src/contract/agents.js';
import { validateWorkerEventsBody } from '../../../src/contract/workers.js';
import { allRoutes, documentedRoutes } from '../../../src/http/routeTable.js';
import { UNBUILT } from '../../../src/http/unbuilt.js';
import { noteKey, openApiPath, type OpenApiDocument } from '../../../src/openapi/document.js';
import { OPERATIONS } from '../../../src/openapi/operations.js';
import { OPERATOR_TAG } from '../../../src/openapi/operatorNotes.js';
import { documentText, referenceDocument } from '../../../src/openapi/reference.js';

const ROOT = new URL('../../../../', import.meta.url);
const FILE = new URL('docs/openapi.json', ROOT);
const VERSION = (JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version: string }).version;
const ROUTES = documentedRoutes();
const COMMITTED = readFileSync(FILE, 'utf8');
const DOC = JSON.parse(COMMITTED) as OpenApiDocument;
const key = (r: AnyRoute) => noteKey(r.method, r.path);

t.test('docs/openapi.json is what the generator makes from the route table now', async (t) => {
  const fresh = documentText(referenceDocument(ROUTES, VERSION));
  t.ok(fresh.endsWith('}\n'), 'indented JSON with a final newline');
  t.equal(COMMITTED, fresh, 'run `npm run build` and commit docs/openapi.json');
});

/** docs/openapi.json as committed (what a clone gets; the build rewrites the work tree's copy); null outside git. */
function committedFile(): string | null {
  try {
    return execFileSync('git', ['show', 'HEAD:docs/openapi.json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch {
    return null;
  }
}
const HEAD = committedFile();

t.test(
  'the committed docs/openapi.json is the generated one',
  { skip: HEAD === null ? 'not a git work tree with docs/openapi.json committed' : false },
  async (t) => {
    t.equal(
      HEAD,
      documentText(referenceDocument(ROUTES, VERSION)),
      'docs/openapi.json changed with the routes or contract types: commit it (a CI build is from scratch; locally, after changing a type in another module than src/contract/catalog.ts, `rm dist/.tsbuildinfo` first: an incremental tsc does not re-run typia on catalog.ts)',
    );
  },
);

t.test('every route of the route table is in the document with its method', async (t) => {
  t.ok(ROUTES.length > 40, `${ROUTES.length} routes`);
  for (const route of ROUTES) {
    const op = DOC.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    t.ok(op, key(route));
    t.equal(op?.['x-tracelake-implemented'], undefined, `${key(route)} is implemented`);
    t.equal(op?.['x-tracelake-permission'], route.permission, `${key(route)} needs ${route.permission}`);
  }
  for (const [method, path] of UNBUILT) {
    t.equal(
      DOC.paths[openApiPath(path)]?.[method.toLowerCase()]?.['x-tracelake-implemented'],
      false,
      `${method} ${path} is marked not implemented`,
    );
  }
  const operations = Object.values(DOC.paths).reduce((n, methods) => n + Object.keys(methods).length, 0);
  t.equal(operations, ROUTES.length + UNBUILT.length, 'and nothing else');
  t.notOk(DOC.paths['/v1/_faults/throw'], 'the test-only fault routes are no part of the API');
});

t.test(
  'the documented table: every route a server can serve but the fault routes, with or without an operator token',
  async (t) => {
    const documented = new Set(ROUTES.map(key));
    for (const operatorToken of [undefined, 'x'.repeat(32)]) {
      for (const faultInjection of [false, true]) {
        const served = allRoutes(Buffer.alloc(32), {
          faultInjection,
          ...(operatorToken === undefined ? {} : { operatorToken }),
        }).map(key);
        const missing = served.filter((k) => !documented.has(k) && !k.includes('/v1/_faults/'));
        t.same(
          missing,
          [],
          `a server with${operatorToken ? '' : 'out'} an operator token${faultInjection ? ' and the fault routes' : ''} serves nothing undocumented`,
        );
      }
    }
    const operator = ROUTES.filter((r) => r.permission === 'operator');
    t.ok(operator.length >= 12, `${operator.length} operator routes are documented`);
    t.notOk(
      ROUTES.some((r) => r.path.startsWith('/v1/_faults/')),
      'the fault routes are not',
    );
  },
);

t.test('the operator API in the document', async (t) => {
  // What the store refuses as a duplicate (store/admin/operator.ts): tenant, app and environment names.
  const NAMED = [
    'POST /v1/operator/tenants',
    'POST /v1/operator/tenants/:tenant/apps',
    'POST /v1/operator/apps/:app/environments',
  ];
  t.same(DOC.components.securitySchemes.operatorToken, {
    type: 'http',
    scheme: 'bearer',
    description: DOC.components.securitySchemes.operatorToken!.description,
  });
  t.match(DOC.components.securitySchemes.operatorToken!.description, /TRACELAKE_OPERATOR_TOKEN/);
  t.ok(
    DOC.tags.some((x) => x.name === OPERATOR_TAG),
    'its tag is listed',
  );
  for (const route of ROUTES) {
    const op = DOC.paths[openApiPath(route.path)]![route.method.toLowerCase()]!;
    if (route.permission !== 'operator') {
      t.equal(op['x-tracelake-requires'], undefined, `${key(route)} needs no operator token`);
      t.notSame(op.security, [{ operatorToken: [] }], `${key(route)} is not opened by the operator token`);
      continue;
    }
    t.ok(route.path.startsWith('/v1/operator/'), `${key(route)} is under /v1/operator`);
    t.same(op.tags, [OPERATOR_TAG], `${key(route)}: tag`);
    t.equal(op['x-tracelake-requires'], 'operator-token', `${key(route)}: marked`);
    t.same(op.security, [{ operatorToken: [] }], `${key(route)}: the operator token alone, no app id`);
    t.same(op['x-tracelake-surface'], ['cloud', 'local'], `${key(route)}: both modes`);
    t.match(op.description, /TRACELAKE_OPERATOR_TOKEN/, `${key(route)}: says it needs the token`);
    t.match(op.responses['404']!.description, /no operator token/, `${key(route)}: 404 when the operator API is off`);
    t.match(op.responses['401']!.description, /`unauthorized`/, `${key(route)}: 401`);
    t.notOk(op.responses['403'] || op.responses['429'], `${key(route)}: no 403 or 429 (one credential, no tenant)`);
    const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
    t.equal(success.length, 1, `${key(route)}: one success answer`);
    t.ok(op.responses[success[0]!]!.content?.['application/json']?.schema.$ref, `${key(route)}: a typed answer`);
    t.equal(
      op.responses['409'] !== undefined,
      NAMED.includes(key(route)),
      `${key(route)}: 409 where a name must be unique`,
    );
    if (op.requestBody) t.match(op.responses['400']!.description, /details/, `${key(route)}: 400 names the fields`);
  }
});

t.test('every route has a note, and every note a route', async (t) => {
  const keys = new Set(ROUTES.map(key));
  for (const route of ROUTES) t.ok(OPERATIONS[key(route)], `${key(route)} has a note in its declaration`);
  for (const noted of Object.keys(OPERATIONS)) t.ok(keys.has(noted), `the note ${noted} names a route of the table`);
});

/**
 * Routes that read their body raw and check it elsewhere, whose note still types it as JSON: the
 * checks that stand in for a body validator. `POST /v1/agents/sync` (ingest/agentsBatch.ts): the
 * envelope whole, then each session and each blob on its own. A worker's events
 * (ingest/workerEvents.ts): the body whole.
 */
type BodyCheck = (body: unknown) => { success: boolean; errors?: unknown };
const RAW_JSON_BODIES: Record<string, BodyCheck> = {
  'POST /v1/agents/sync': (body) => {
    const envelope = validateAgentSyncBody(body);
    if (!envelope.success) return envelope;
    const { sessions, blobs = [] } = envelope.data;
    const failed = [...sessions.map((s) => validateAgentSession(s)), ...blobs.map((b) => validateAgentBlob(b))].find(
      (r) => !r.success,
    );
    return failed ?? { success: true };
  },
  'POST /v1/workers/leases/:leaseId/events': (body) => validateWorkerEventsBody(body),
};

t.test("the notes agree with the routes' own validators", async (t) => {
  for (const route of ROUTES) {
    const note = OPERATIONS[key(route)];
    if (!note) continue;
    const v = route.validate ?? {};
    t.equal(
      note.params !== undefined,
      v.params !== undefined,
      `${key(route)}: path parameters typed in both or neither`,
    );
    t.equal(note.query !== undefined, v.query !== undefined, `${key(route)}: query typed in both or neither`);
    const raw = RAW_JSON_BODIES[key(route)];
    t.equal(
      raw !== undefined,
      route.body === 'raw' && note.body?.type !== undefined,
      `${key(route)}: a raw body typed in its note has its checks listed here`,
    );
    const check: BodyCheck | undefined = raw ?? v.body;
    t.equal(note.body?.type !== undefined, check !== undefined, `${key(route)}: JSON body typed in both or neither`);
    for (const [name, example] of Object.entries(note.body?.examples ?? {})) {
      const result = check!(example);
      t.ok(
        result.success,
        `${key(route)}: the request example ${name} passes the route's validator`,
        result.success ? {} : { errors: result.errors },
      );
    }
    if (v.query) {
      // The strict query validator lists the parameters it knows when it meets one it does not.
      const probe = v.query(new URLSearchParams({ __probe: '1' }));
      const known = probe.success
        ? []
        : /known: ([^)]*)\)/
            .exec(probe.errors[0]!.expected)![1]!
            .split(', ')
            .filter((n) => n !== 'none');
      const documented = DOC.paths[openApiPath(route.path)]![route.method.toLowerCase()]!.parameters.filter(
        (p) => p.in === 'query',
      ).map((p) => p.name);
      t.same(
        documented.sort(),
        known.sort(),
        `${key(route)}: the documented query parameters are the ones the route takes`,
      );
    }
  }
});

t.test('every reference in the document resolves', async (t) => {
  const refs = new Set<string>();
  JSON.stringify(DOC, (k, v: unknown) => {
    if (k === '$ref' && typeof v === 'string') refs.add(v);
    return v;
  });
  t.ok(refs.size > 50, `${refs.size} references`);
  for (const ref of refs) {
    const [, kind, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(ref) ?? [];
    t.ok(kind && (DOC.components as Record<string, Record<string, unknown>>)[kind]![name!], ref);
  }
});
