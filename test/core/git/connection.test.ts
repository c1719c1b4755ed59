import t from 'tap';
import {
  githubWebUrl,
  handshakeOpen,
  installationUrl,
  isAuthorised,
  newStateToken,
  selection,
  stateHash,
  statusOf,
  type ConnectionState,
} from '../../../src/core/git/connection.js';

const base: ConnectionState = {
  provider: 'local',
  phase: 'pending',
  installationId: 3,
  repository: null,
  branch: null,
  stateExpiresAtMs: 1000,
};

t.test('the status of each phase (spec: Git connection status)', async (t) => {
  const none = { connected: false, provider: null, installation_id: null, repository: null, branch: null };
  t.same(statusOf(null, 0), none);
  t.same(statusOf(base, 999), { ...none, provider: 'local' }, 'pending: not connected yet');
  t.same(statusOf(base, 1000), none, 'an expired handshake is none');
  t.same(statusOf({ ...base, stateExpiresAtMs: null }, 0), none);
  const authorised = { ...base, provider: 'github' as const, phase: 'authorised' as const, installationId: 77 };
  t.same(
    statusOf(authorised, 5000),
    { connected: true, provider: 'github', installation_id: 77, repository: null, branch: null },
    'authorised: repository null',
  );
  const connected = { ...base, phase: 'connected' as const, repository: 'a/b', branch: 'main', stateExpiresAtMs: null };
  t.same(statusOf(connected, 5000), {
    connected: true,
    provider: 'local',
    installation_id: 3,
    repository: 'a/b',
    branch: 'main',
  });
  t.ok(handshakeOpen(base, 0));
  t.notOk(isAuthorised(null));
  t.notOk(isAuthorised(base));
  t.ok(isAuthorised(authorised));
  t.equal(selection(null), null);
  t.equal(selection(authorised), null);
  t.equal(selection({ ...connected, branch: null }), null);
  t.same(selection(connected), { repository: 'a/b', branch: 'main' });
});

t.test('state tokens', async (t) => {
  const a = newStateToken();
  t.match(a, /^[\w-]{43}$/);
  t.not(a, newStateToken());
  t.match(stateHash(a), /^[0-9a-f]{64}$/);
  t.equal(stateHash(a), stateHash(a));
});

t.test('GitHub web addresses', async (t) => {
  t.equal(githubWebUrl('https://api.github.com'), 'https://github.com');
  t.equal(githubWebUrl('https://ghe.example.com/api/v3/'), 'https://ghe.example.com');
  t.equal(githubWebUrl('http://127.0.0.1:9999'), 'http://127.0.0.1:9999');
  t.equal(
    installationUrl('https://github.com', 'my-app', 'a/b'),
    'https://github.com/apps/my-app/installations/new?state=a%2Fb',
  );
  t.equal(
    installationUrl('https://ghe.example.com', 'my-app', 's'),
    'https://ghe.example.com/github-apps/my-app/installations/new?state=s',
  );
});
