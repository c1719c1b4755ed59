/**
 * Integration: score configs — create and update (admins), read (score_config.read), and scores
 * judged against the config of their name: range, data type, categories.
 */
import t from 'tap';
import { call } from '../helpers/server.js';
import { keyWith, world } from './setup.js';

t.test('score configs', async (t) => {
  const w = await world(t);
  const create = (body: unknown, auth = w.root) => call(w.server, 'POST', '/v1/score-configs', { auth, body });
  const score = (body: Record<string, unknown>) =>
    call(w.server, 'POST', '/v1/scores', { auth: w.root, body: { resource_id: w.traceId, ...body } });
  const configs: Record<string, string> = {};

  t.test('create', async (t) => {
    const accuracy = await create({
      name: 'accuracy',
      data_type: 'numeric',
      min_value: 0,
      max_value: 1,
      description: 'share of facts right',
    });
    t.equal(accuracy.status, 201);
    t.match(accuracy.body.data, {
      name: 'accuracy',
      data_type: 'NUMERIC',
      min_value: 0,
      max_value: 1,
      categories: null,
      description: 'share of facts right',
      created_by: /^key:/,
    });
    t.match(accuracy.body.data.created_at, /Z$/);
    configs.accuracy = accuracy.body.data.id;
    const verdict = await create({
      name: 'verdict',
      data_type: 'CATEGORICAL',
      categories: [
        { label: 'pass', value: 1 },
        { label: 'fail', value: 0 },
        { label: 'unsure', value: 0.5 },
      ],
    });
    t.equal(verdict.status, 201);
    configs.verdict = verdict.body.data.id;
    const flag = await create({ name: 'needs review / human', data_type: 'BOOLEAN' });
    t.equal(flag.status, 201);
    configs.flag = flag.body.data.id;

    const dup = await create({ name: 'accuracy', data_type: 'BOOLEAN' });
    t.equal(dup.status, 409);
    t.equal(dup.body.error.code, 'conflict');

    const bad = await create({
      name: 'bad',
      data_type: 'NUMERIC',
      min_value: 1,
      max_value: 0,
      categories: [{ label: 'a', value: 1 }],
    });
    t.equal(bad.status, 400);
    t.same(bad.body.error.details, {
      max_value: 'must be at least min_value (1)',
      categories: 'only CATEGORICAL configs have categories',
    });
    t.equal((await create({ name: 'bad', data_type: 'CATEGORICAL' })).status, 400);
    t.equal((await create({ name: 'bad', data_type: 'TEXT' })).status, 400);
    t.equal(
      (await create({ name: 'bad', data_type: 'NUMERIC', colour: 'red' })).body.error.details.colour,
      'unknown property',
    );
  });

  t.test('read', async (t) => {
    const all = await call(w.server, 'GET', '/v1/score-configs', { auth: w.root });
    t.equal(all.status, 200);
    t.same(
      all.body.data.map((c: { name: string }) => c.name),
      ['accuracy', 'needs review / human', 'verdict'],
      'by name',
    );
    t.same(all.body.pagination, { total: 3, limit: 50, offset: 0 });
    const page = await call(w.server, 'GET', '/v1/score-configs?limit=1&offset=1', { auth: w.root });
    t.same(
      page.body.data.map((c: { name: string }) => c.name),
      ['needs review / human'],
    );
    const one = await call(w.server, 'GET', `/v1/score-configs/${encodeURIComponent('needs review / human')}`, {
      auth: w.root,
    });
    t.equal(one.status, 200);
    t.match(one.body.data, { id: configs.flag, data_type: 'BOOLEAN' });
    t.same((await call(w.server, 'GET', '/v1/score-configs/verdict', { auth: w.root })).body.data.categories, [
      { label: 'pass', value: 1 },
      { label: 'fail', value: 0 },
      { label: 'unsure', value: 0.5 },
    ]);
    t.equal((await call(w.server, 'GET', '/v1/score-configs/nothing', { auth: w.root })).status, 404);
    const theirs = await call(w.server, 'GET', '/v1/score-configs/accuracy', { auth: w.other.auth });
    t.equal(theirs.status, 404, "another app's config is not found");
    t.equal(theirs.body.error.code, 'not_found');
    t.same((await call(w.server, 'GET', '/v1/score-configs', { auth: w.other.auth })).body.data, []);
    const reader = await keyWith(w, 'score_config.read');
    t.equal(
      (await call(w.server, 'GET', '/v1/score-configs/accuracy', { auth: reader })).status,
      200,
      'score_config.read is enough',
    );
  });

  t.test('scores are judged against the config of their name', async (t) => {
    const ok = await score({ name: 'accuracy', score: 0.75 });
    t.equal(ok.status, 201);
    t.equal(ok.body.data.config_id, configs.accuracy);
    t.same((await score({ name: 'accuracy', score: 1.5 })).body.error.details, {
      score: 'must be at most 1 (score config "accuracy")',
    });
    t.same((await score({ name: 'accuracy', score: -1 })).body.error.details, {
      score: 'must be at least 0 (score config "accuracy")',
    });
    t.same((await score({ name: 'accuracy', score: 1, dataType: 'BOOLEAN' })).body.error.details, {
      data_type: 'the score config "accuracy" is NUMERIC, not BOOLEAN',
    });

    const category = await score({ name: 'verdict', label: 'unsure' });
    t.equal(category.status, 201);
    t.match(
      category.body.data,
      { data_type: 'CATEGORICAL', label: 'unsure', score: 0.5, config_id: configs.verdict },
      'the type and the value come from the config',
    );
    t.equal((await score({ name: 'verdict', label: 'pass', score: 1, data_type: 'CATEGORICAL' })).status, 201);
    t.same((await score({ name: 'verdict', label: 'pass', score: 0 })).body.error.details, {
      score: 'the category "pass" has the value 1, got 0',
    });
    t.same((await score({ name: 'verdict', label: 'maybe' })).body.error.details, {
      label: 'must be one of "pass", "fail", "unsure" (score config "verdict")',
    });
    t.same((await score({ name: 'verdict', score: 1 })).body.error.details, {
      label: 'is required for a CATEGORICAL score',
    });

    t.equal((await score({ name: 'needs review / human', score: 1 })).body.data.data_type, 'BOOLEAN');
    t.same((await score({ name: 'needs review / human', score: 2 })).body.error.details, {
      score: 'a BOOLEAN score is 0 or 1, got 2',
    });

    const batch = await call(w.server, 'POST', '/v1/scores/batch', {
      auth: w.root,
      body: {
        scores: [
          { name: 'accuracy', score: 0.5, resource_id: w.traceId },
          { name: 'accuracy', score: 5, resource_id: w.traceId },
          { name: 'verdict', label: 'fail', resource_id: w.rootSpanId },
        ],
      },
    });
    t.equal(batch.status, 207, 'batches use the configs too');
    t.same(
      batch.body.data.results.map((r: { status: string }) => r.status),
      ['success', 'error', 'success'],
    );

    const free = await call(w.server, 'POST', '/v1/scores', {
      auth: w.other.auth,
      body: { name: 'accuracy', score: 7, resource_id: w.other.traceId },
    });
    t.equal(free.status, 201, 'configs belong to their app: another app scores "accuracy" freely');
    t.equal(free.body.data.config_id, null);
  });

  t.test('update', async (t) => {
    const patch = (name: string, body: unknown, auth = w.root) =>
      call(w.server, 'PATCH', `/v1/score-configs/${encodeURIComponent(name)}`, { auth, body });
    const widened = await patch('accuracy', { max_value: 10, description: null });
    t.equal(widened.status, 200);
    t.match(widened.body.data, { id: configs.accuracy, min_value: 0, max_value: 10, description: null });
    t.ok(Date.parse(widened.body.data.updated_at) >= Date.parse(widened.body.data.created_at));
    t.equal((await score({ name: 'accuracy', score: 5 })).status, 201, 'the new range applies at once');
    const bad = await patch('accuracy', { min_value: 20 });
    t.equal(bad.status, 400, 'the merged definition is checked whole');
    t.same(bad.body.error.details, { max_value: 'must be at least min_value (20)' });
    t.equal(
      (await patch('accuracy', { data_type: 'BOOLEAN' })).body.error.details.data_type,
      'unknown property',
      'the data type never changes',
    );
    t.equal((await patch('verdict', { categories: null })).status, 400, 'a CATEGORICAL config keeps categories');
    const recategorised = await patch('verdict', {
      categories: [
        { label: 'pass', value: 10 },
        { label: 'fail', value: 0 },
      ],
    });
    t.equal(recategorised.status, 200);
    t.equal((await score({ name: 'verdict', label: 'pass' })).body.data.score, 10);
    t.equal((await patch('nothing', { max_value: 1 })).status, 404);
    t.equal((await patch('accuracy', { max_value: 1 }, w.other.auth)).status, 404, "another app's config");
    t.equal(
      (await call(w.server, 'GET', '/v1/score-configs/accuracy', { auth: w.root })).body.data.max_value,
      10,
      'unchanged by them',
    );
  });

  t.test('only admins create and update', async (t) => {
    const everything = await keyWith(
      w,
      'trace.write',
      'trace.read',
      'span.read',
      'session.read',
      'score.write',
      'score.read',
      'score.delete',
      'score_config.read',
      'metrics.read',
      'experiment.read',
      'template.read',
    );
    const created = await create({ name: 'sneaky', data_type: 'NUMERIC' }, everything);
    t.equal(created.status, 403);
    t.equal(created.body.error.required_permission, 'full_access');
    const patched = await call(w.server, 'PATCH', '/v1/score-configs/accuracy', {
      auth: everything,
      body: { max_value: 100 },
    });
    t.equal(patched.status, 403);
    const reader = await keyWith(w, 'score.read');
    const read = await call(w.server, 'GET', '/v1/score-configs', { auth: reader });
    t.equal(read.status, 403);
    t.equal(read.body.error.required_permission, 'score_config.read');
  });
});
