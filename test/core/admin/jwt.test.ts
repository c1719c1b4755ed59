import t from 'tap';
import {
  deriveSessionKey,
  hkdfSha256,
  hs256,
  MAX_SESSION_TTL_SEC,
  SESSION_KEY_INFO,
  sessionClaims,
  signJwt,
  signSessionToken,
  verifyJwt,
  verifySessionToken,
} from '../../../src/core/admin/jwt.js';

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** RFC 7515 Appendix A.1 (also the example of RFC 7519 §3.1): an HS256 JWS and its key. */
const RFC7515 = {
  key: Buffer.from(
    'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow',
    'base64url',
  ),
  input:
    'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9' +
    '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ',
  signature: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
};

const KEY = deriveSessionKey(Buffer.alloc(32, 7));
const TENANT = '0b7c2f4e-9d1a-4c55-8e3f-2a6b1c9d0e11';
const APP = '5f0e3d2c-1b4a-4958-8776-a5b4c3d2e1f0';
const NOW = 1_800_000_000;
const claims = () =>
  sessionClaims({ tenantId: TENANT, appId: APP, subject: 'ops@example.com', nowSec: NOW, ttlSec: 3600 });

t.test('HKDF-SHA256 matches RFC 5869 test case 3 (empty salt and info)', async (t) => {
  const okm = '8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8';
  t.equal(hkdfSha256(Buffer.alloc(22, 0x0b), '', 42).toString('hex'), okm, 'salt defaults to empty');
  t.equal(hkdfSha256(Buffer.alloc(22, 0x0b), '', 42, new Uint8Array(0)).toString('hex'), okm);
});

t.test('the session key is HKDF of the secret with its own info', async (t) => {
  const secret = Buffer.alloc(32, 7);
  t.equal(KEY.length, 32);
  t.same(KEY, hkdfSha256(secret, 'tracelake session token v1', 32));
  t.equal(SESSION_KEY_INFO, 'tracelake session token v1');
  t.notSame(KEY, secret, 'not the secret itself');
  t.notSame(deriveSessionKey(Buffer.alloc(32, 8)), KEY, 'another secret, another key');
});

t.test('HS256 and JWS checks against RFC 7515 A.1', async (t) => {
  t.equal(hs256(RFC7515.key, RFC7515.input), RFC7515.signature);
  const token = `${RFC7515.input}.${RFC7515.signature}`;
  const verified = verifyJwt(token, RFC7515.key);
  t.same(verified, {
    ok: true,
    header: { typ: 'JWT', alg: 'HS256' },
    payload: { iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true },
  });
  t.same(verifyJwt(token, KEY), { ok: false, reason: 'bad signature' }, 'another key');
  t.same(
    verifySessionToken(token, RFC7515.key, 1300819000),
    { ok: false, reason: 'wrong issuer' },
    'a valid JWS is not a session token',
  );
});

t.test('signJwt writes an HS256 JWT header', async (t) => {
  const token = signJwt({ a: 1 }, KEY);
  const [h, p] = token.split('.');
  t.same(JSON.parse(Buffer.from(h!, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' });
  t.same(JSON.parse(Buffer.from(p!, 'base64url').toString()), { a: 1 });
  t.same(verifyJwt(token, KEY), { ok: true, header: { alg: 'HS256', typ: 'JWT' }, payload: { a: 1 } });
});

/** A token with any header and payload text, correctly signed with KEY. */
function crafted(header: unknown, payload: unknown, key = KEY): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${hs256(key, input)}`;
}

t.test('verifyJwt refuses malformed and unsafe tokens', async (t) => {
  const good = signJwt({ a: 1 }, KEY);
  const [h, p, s] = good.split('.') as [string, string, string];
  const cases: [string, string][] = [
    ['x'.repeat(4097), 'token too long'],
    ['a.b', 'not a compact JWS'],
    [`${good}.x`, 'not a compact JWS'],
    [`${h}..${s}`, 'not a compact JWS'],
    [`${h}.${p}.${s}=`, 'not a compact JWS'],
    [`${h}.${p}.${s.slice(0, -1)}`, 'bad signature'],
    [`${h}.${p}.${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`, 'bad signature'],
    [`${h}.${b64({ a: 2 })}.${s}`, 'bad signature'],
    [crafted('not json', { a: 1 }), 'header and payload must be JSON objects'],
    [crafted({ alg: 'HS256' }, [1, 2]), 'header and payload must be JSON objects'],
    [crafted(null, { a: 1 }), 'header and payload must be JSON objects'],
    [crafted({ alg: 'HS256' }, 'plain'), 'header and payload must be JSON objects'],
    [crafted({ alg: 'none' }, { a: 1 }), 'alg must be HS256'],
    [crafted({ typ: 'JWT' }, { a: 1 }), 'alg must be HS256'],
    [crafted({ alg: 'HS256', typ: 'JOSE' }, { a: 1 }), 'typ must be JWT'],
    [crafted({ alg: 'HS256', crit: ['exp'] }, { a: 1 }), 'critical header extensions are not supported'],
  ];
  for (const [token, reason] of cases) t.same(verifyJwt(token, KEY), { ok: false, reason }, reason);
  t.ok(verifyJwt(crafted({ alg: 'HS256' }, { a: 1 }), KEY).ok, 'typ may be absent');
});

t.test('session tokens: sign and verify', async (t) => {
  const c = claims();
  t.same(c, {
    iss: 'tracelake',
    sub: 'ops@example.com',
    tenant_id: TENANT,
    app_id: APP,
    role: 'admin',
    iat: NOW,
    exp: NOW + 3600,
  });
  const token = signSessionToken(c, KEY);
  t.same(verifySessionToken(token, KEY, NOW), { ok: true, claims: c });
  t.same(verifySessionToken(token, KEY, NOW + 3599), { ok: true, claims: c }, 'valid until the last second');
  t.same(verifySessionToken(token, KEY, NOW + 3600), { ok: false, reason: 'expired' });
  t.same(verifySessionToken(token, KEY, NOW - 60), { ok: true, claims: c }, 'a minute of clock skew');
  t.same(verifySessionToken(token, KEY, NOW - 61), { ok: false, reason: 'issued in the future' });
  t.same(verifySessionToken(token, deriveSessionKey(Buffer.alloc(32, 9)), NOW), { ok: false, reason: 'bad signature' });
  const extra = crafted({ alg: 'HS256', typ: 'JWT' }, { ...c, extra: true });
  t.same(verifySessionToken(extra, KEY, NOW), { ok: true, claims: c }, 'unknown claims are ignored, not returned');
});

t.test('session tokens: every claim is checked', async (t) => {
  const c = claims();
  const cases: [Record<string, unknown>, string][] = [
    [{ iss: 'joe' }, 'wrong issuer'],
    [{ iss: undefined }, 'wrong issuer'],
    [{ role: 'reader' }, 'wrong role'],
    [{ sub: '' }, 'no subject'],
    [{ sub: 42 }, 'no subject'],
    [{ tenant_id: 'acme' }, 'tenant_id must be a UUID'],
    [{ tenant_id: TENANT.toUpperCase() }, 'tenant_id must be a UUID'],
    [{ tenant_id: 1 }, 'tenant_id must be a UUID'],
    [{ app_id: undefined }, 'app_id must be a UUID'],
    [{ app_id: 'x' }, 'app_id must be a UUID'],
    [{ iat: '1800000000' }, 'iat and exp must be integers'],
    [{ exp: NOW + 0.5 }, 'iat and exp must be integers'],
    [{ exp: NOW }, 'lifetime out of range'],
    [{ exp: NOW + MAX_SESSION_TTL_SEC + 1 }, 'lifetime out of range'],
  ];
  for (const [change, reason] of cases) {
    const token = crafted({ alg: 'HS256', typ: 'JWT' }, { ...c, ...change });
    t.same(verifySessionToken(token, KEY, NOW), { ok: false, reason }, `${JSON.stringify(change)}: ${reason}`);
  }
  const longest = crafted({ alg: 'HS256' }, { ...c, exp: NOW + MAX_SESSION_TTL_SEC });
  t.ok(verifySessionToken(longest, KEY, NOW).ok, 'the longest lifetime is allowed');
});
