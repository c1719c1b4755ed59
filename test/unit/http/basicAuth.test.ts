import t from 'tap';
import { basicCredentials } from '../../../src/http/basicAuth.js';

const encoded = (text: string) => Buffer.from(text).toString('base64');

t.test('Basic credentials: the user is the app id, the password the key', async (t) => {
  t.same(basicCredentials(`Basic ${encoded('app-1:sk_key:with:colons')}`), {
    appId: 'app-1',
    key: 'sk_key:with:colons',
  });
  t.same(
    basicCredentials(`  basic   ${encoded(' app-1 : sk_key ')}  `),
    { appId: 'app-1', key: 'sk_key' },
    'any case, trimmed',
  );
  t.same(basicCredentials(`Basic ${encoded('sk_key')}`), { appId: '', key: 'sk_key' }, 'no user');
});

t.test('anything else is no Basic credential', async (t) => {
  for (const header of [undefined, '', 'sk_key', 'Bearer sk_key', 'Basically sk_key'])
    t.equal(basicCredentials(header), null);
});
