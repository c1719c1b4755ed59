/** src/auth/keys.ts: API key material, hashed under the secret. */
import t from 'tap';
import { generateKey, hashKey, isWellFormedKey, sameHash, shownPrefix } from '../../../src/auth/keys.js';

t.test('keys', async (t) => {
  const keys = new Set(Array.from({ length: 200 }, generateKey));
  t.equal(keys.size, 200, 'random');
  for (const k of keys) t.ok(isWellFormedKey(k) && k.length === 54, k);
  t.notOk(isWellFormedKey('sk_service_short'));
  t.notOk(isWellFormedKey('pk_service_' + 'a'.repeat(43)));
  const secret = Buffer.alloc(32, 7);
  const k = generateKey();
  const hash = hashKey(secret, k);
  t.match(hash, /^[0-9a-f]{64}$/);
  t.equal(hashKey(secret, k), hash, 'deterministic');
  t.not(hashKey(Buffer.alloc(32, 8), k), hash, 'keyed: another secret, another hash');
  t.ok(sameHash(hash, hashKey(secret, k)));
  t.notOk(sameHash(hash, hashKey(secret, generateKey())));
  t.notOk(sameHash(hash, hash.slice(0, 10)), 'different lengths never match');
  t.equal(shownPrefix(k), k.slice(0, 12));
});
