/** src/http/refusalLog.ts: warn lines for refused OTLP exports, at most one per tenant, app and reason per interval. */
import t from 'tap';
import { keyPrefixOf, RefusalLog, type Refusal } from '../../../src/http/refusalLog.js';

const refusal = (reason: string, app = 'app-1'): Refusal => ({
  tenant_id: 'ten-1',
  app_id: app,
  key_prefix: 'sk_service_A',
  reason,
  status: 401,
  message: 'no',
});

t.test('one line per tenant, app and reason per interval, saying how many it folded in', async (t) => {
  const lines: { fields: Refusal & { folded?: number }; msg: string }[] = [];
  const log = new RefusalLog((fields, msg) => lines.push({ fields, msg }), 1_000);
  log.note(refusal('unauthorized'), 0);
  log.note(refusal('unauthorized'), 10);
  log.note(refusal('unauthorized'), 999);
  log.note(refusal('payload_too_large'), 20);
  log.note(refusal('unauthorized', 'app-2'), 30);
  t.same(
    lines.map((l) => [l.fields.reason, l.fields.app_id, l.fields.folded]),
    [
      ['unauthorized', 'app-1', undefined],
      ['payload_too_large', 'app-1', undefined],
      ['unauthorized', 'app-2', undefined],
    ],
  );
  t.equal(lines[0]!.msg, 'ingestion refused');
  log.note(refusal('unauthorized'), 1_000);
  t.same(lines.at(-1)!.fields, { ...refusal('unauthorized'), folded: 2 }, 'the next line counts the two folded in');
  log.note(refusal('unauthorized'), 2_500);
  t.notOk('folded' in lines.at(-1)!.fields, 'nothing folded since');
});

t.test('the remembered keys are bounded', async (t) => {
  let n = 0;
  const log = new RefusalLog(() => n++, 60_000);
  for (let i = 0; i < 10_001; i++) log.note(refusal('unauthorized', `app-${i}`), 0);
  log.note(refusal('unauthorized', 'app-0'), 1);
  t.equal(n, 10_002, 'past 10,000 keys the memory starts over, so a remembered key logs again');
});

t.test('the key prefix comes from the header, raw or Bearer, and only for API keys', async (t) => {
  t.equal(keyPrefixOf('sk_service_abcdefghijklmnop'), 'sk_service_a');
  t.equal(keyPrefixOf('Bearer sk_service_abcdefghijklmnop'), 'sk_service_a');
  t.equal(keyPrefixOf('Basic dXNlcjpwYXNz'), null);
  const basic = Buffer.from('6f1c1c8e-1111-4222-8333-944455556666:sk_service_abcdefghijklmnop').toString('base64');
  t.equal(keyPrefixOf(`Basic ${basic}`), 'sk_service_a', 'the key of Basic credentials (the password)');
  t.equal(keyPrefixOf(undefined), null);
});
