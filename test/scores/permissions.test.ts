/**
 * Integration: every route of the scores module against the spec's permission table — a key with
 * every permission but the one required gets 403 naming it, a key with only that one gets past
 * authorisation, and no credentials is 401. The routes are read from the module's own table, so a
 * route added later cannot skip this test.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { PERMISSIONS } from '../../src/core/permissions.js';
import { scoreRoutes } from '../../src/http/routes/scores.js';
import { call } from '../helpers/server.js';
import { keyWith, world } from './setup.js';

/** The spec's table (Authentication, rule 5), plus our decisions for configs and comments. */
const EXPECTED: Record<string, string> = {
  'POST /v1/scores': 'score.write',
  'POST /v1/scores/batch': 'score.write',
  'GET /v1/scores': 'score.read',
  'POST /v1/scores/search': 'score.read',
  'GET /v1/scores/:scoreId': 'score.read',
  'GET /v1/scores/aggregations': 'score.read',
  'GET /v1/scores/names': 'score.read',
  'DELETE /v1/scores/:scoreId': 'score.delete',
  'GET /v1/score-configs': 'score_config.read',
  'GET /v1/score-configs/:name': 'score_config.read',
  'POST /v1/score-configs': 'admin',
  'PATCH /v1/score-configs/:name': 'admin',
  'POST /v1/comments': 'score.write',
  'GET /v1/comments': 'score.read',
  'GET /v1/comments/:commentId': 'score.read',
  'DELETE /v1/comments/:commentId': 'score.write',
};

t.test('permissions of every score route', async (t) => {
  const w = await world(t);
  t.same(
    Object.fromEntries(scoreRoutes.map((r) => [`${r.method} ${r.path}`, r.permission])),
    EXPECTED,
    'the route table says what the spec says',
  );

  const concrete = (path: string) =>
    path.replace(':scoreId', randomUUID()).replace(':commentId', randomUUID()).replace(':name', 'accuracy');
  const allBut = async (need: string) => keyWith(w, ...PERMISSIONS.filter((p) => p !== need));
  const only = async (need: string) => (need === 'admin' ? w.root : keyWith(w, need));
  const keys = new Map<
    string,
    { denied: Awaited<ReturnType<typeof allBut>>; allowed: Awaited<ReturnType<typeof only>> }
  >();
  for (const need of new Set(Object.values(EXPECTED)))
    keys.set(need, { denied: await allBut(need), allowed: await only(need) });

  for (const r of scoreRoutes) {
    const what = `${r.method} ${r.path}`;
    const path = concrete(r.path);
    const body = r.method === 'POST' || r.method === 'PATCH' ? {} : undefined;
    const { denied, allowed } = keys.get(r.permission)!;
    const refused = await call(w.server, r.method, path, { auth: denied, body });
    t.equal(refused.status, 403, `${what}: without ${r.permission}`);
    t.equal(refused.body.error.code, 'forbidden');
    t.equal(refused.body.error.required_permission, r.permission === 'admin' ? 'full_access' : r.permission, what);
    const passed = await call(w.server, r.method, path, { auth: allowed, body });
    t.not(passed.status, 403, `${what}: with ${r.permission} alone (${passed.status})`);
    t.not(passed.status, 401, what);
    const anonymous = await call(w.server, r.method, path, { body });
    t.equal(anonymous.status, 401, `${what}: without credentials`);
    t.equal(anonymous.body.error.code, 'unauthorized');
  }
});
