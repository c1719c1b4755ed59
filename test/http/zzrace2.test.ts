import t from 'tap';
import { call, rootCredentials, serverFor, type Answer } from '../helpers/server.js';
const codes = (as: Answer[]) => as.map((a) => a.status + (a.body?.error?.code ? ' ' + a.body.error.code : '')).join(',');
t.test('race2', async (t) => {
  const server = await serverFor(t, {});
  const root = rootCredentials(server);
  // environments: rename two to the same name at once
  const e1 = (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'e1', kind: 'preview' } })).body.data;
  const e2 = (await call(server, 'POST', '/v1/environments', { auth: root, body: { name: 'e2', kind: 'preview' } })).body.data;
  console.error('rename', codes(await Promise.all([e1, e2].map((e) => call(server, 'PATCH', `/v1/environments/${e.id}`, { auth: root, body: { name: 'same' } })))));
  // delete an env twice at once
  console.error('delete env', codes(await Promise.all([0, 1, 2].map(() => call(server, 'DELETE', `/v1/environments/${e2.id}`, { auth: root, body: { confirmation_name: 'e2' } })))));
  // prompt versions, labels moved at once
  for (let i = 0; i < 4; i++) await call(server, 'POST', '/v1/prompts', { auth: root, body: { name: 'p', prompt: `v${i}` } });
  const moves = await Promise.all([1, 2, 3, 4].map((v) => call(server, 'PATCH', `/v1/prompts/p/versions/${v}`, { auth: root, body: { labels: ['staging'] } })));
  console.error('labels', codes(moves));
  const versions = await call(server, 'GET', '/v1/prompts/p/versions', { auth: root });
  console.error('versions', versions.status, JSON.stringify((versions.body?.data ?? []).map((v: any) => [v.version, v.labels])));
  // apps: create then delete at once
  const app = (await call(server, 'POST', '/v1/apps', { auth: root, body: { name: 'gone' } })).body.data;
  console.error('delete app', codes(await Promise.all([0, 1, 2].map(() => call(server, 'DELETE', `/v1/apps/${app.id}`, { auth: root, body: { confirmation_name: 'gone' } })))));
  // keys: revoke at once
  const key = (await call(server, 'POST', '/v1/api-keys', { auth: root, body: { name: 'k', role: 'SDK' } })).body.data;
  console.error('revoke', codes(await Promise.all([0, 1, 2].map(() => call(server, 'DELETE', `/v1/api-keys/${key.id}`, { auth: root })))));
  // score config patch at once
  await call(server, 'POST', '/v1/score-configs', { auth: root, body: { name: 'c', data_type: 'NUMERIC', min_value: 0, max_value: 10 } });
  console.error('config patch', codes(await Promise.all([[5, null], [null, 1]].map(([min, max]) => call(server, 'PATCH', '/v1/score-configs/c', { auth: root, body: { ...(min !== null ? { min_value: min } : {}), ...(max !== null ? { max_value: max } : {}) } })))));
  const cfg = await call(server, 'GET', '/v1/score-configs/c', { auth: root });
  console.error('config', JSON.stringify(cfg.body?.data));
  console.error('failed', server.logs.filter((l) => l.msg === 'request failed').map((l) => (l.err as any)?.message?.slice(0, 150)).join(' | '));
  t.pass();
});
