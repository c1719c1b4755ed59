/** src/http/operatorAuth.ts: the operator token opens the operator API; nothing else does. */
import t from 'tap';
import { authenticateOperator } from '../../../src/http/operatorAuth.js';
import { OPERATOR } from '../../../src/http/principal.js';

const TOKEN = 'op-0123456789abcdef0123456789abcdef';

t.test('the token, with or without Bearer', async (t) => {
  t.equal(authenticateOperator({ authorization: `Bearer ${TOKEN}` }, TOKEN), OPERATOR);
  t.equal(authenticateOperator({ authorization: ` bearer   ${TOKEN} ` }, TOKEN), OPERATOR, 'any case, trimmed');
  t.equal(authenticateOperator({ authorization: TOKEN }, TOKEN), OPERATOR);
  t.match(
    OPERATOR,
    { kind: 'operator', tenantId: '', appId: '', permissions: [] },
    'no tenant, app or permission of its own',
  );
});

t.test('anything else is 401', async (t) => {
  for (const [what, authorization] of [
    ['another token', 'Bearer op-fedcba9876543210fedcba9876543210'],
    ['a character more', `Bearer ${TOKEN}0`],
    ['a character less', `Bearer ${TOKEN.slice(0, -1)}`],
    ['an API key', `Bearer sk_service_${'A'.repeat(43)}`],
    ['Bearer alone', 'Bearer'],
  ] as const) {
    t.throws(
      () => authenticateOperator({ authorization }, TOKEN),
      { code: 'unauthorized', message: 'Invalid operator token' },
      what,
    );
  }
  const missing: Record<string, string>[] = [{}, { authorization: '   ' }];
  for (const headers of missing) {
    t.throws(() => authenticateOperator(headers, TOKEN), {
      code: 'unauthorized',
      message: /Missing Authorization header: the operator API takes the operator token/,
    });
  }
});

t.test('no token configured: the operator API is off', async (t) => {
  t.throws(() => authenticateOperator({ authorization: `Bearer ${TOKEN}` }, undefined), {
    code: 'not_found',
    message: /operator API is off/,
  });
});
