import t from 'tap';
import { openCredentials, sealCredentials } from '../../../src/core/git/credentials.js';

const secret = Buffer.alloc(32, 7);

t.test('sealed credentials open for their app under the same secret only', async (t) => {
  const value = { kind: 'token', token: 'github_pat_secret' };
  const sealed = sealCredentials(secret, 'tenant/app', value);
  t.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  t.notMatch(sealed, 'github_pat_secret');
  t.same(openCredentials(secret, 'tenant/app', sealed), value);
  t.not(sealCredentials(secret, 'tenant/app', value), sealed, 'a fresh IV each time');
  t.equal(openCredentials(Buffer.alloc(32, 8), 'tenant/app', sealed), null, 'another secret');
  t.equal(openCredentials(secret, 'tenant/other', sealed), null, 'another app');
  const parts = sealed.split('.');
  const flipped = [
    ...parts.slice(0, 3),
    Buffer.from(Buffer.from(parts[3]!, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64url'),
  ].join('.');
  t.equal(openCredentials(secret, 'tenant/app', flipped), null, 'tampered text');
  t.equal(openCredentials(secret, 'tenant/app', 'v2.a.b.c'), null, 'an unknown version');
  t.equal(openCredentials(secret, 'tenant/app', 'v1.a.b'), null, 'not four parts');
});
