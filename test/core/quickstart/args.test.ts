/** `tracelake quickstart`'s command line: flags, the environment's fallbacks, and usage errors. */
import t from 'tap';
import { UsageError } from '../../../src/core/cliArgs.js';
import { parseQuickstartArgs, QUICKSTART_USAGE } from '../../../src/core/quickstart/args.js';

const APP = '3F2A9C1E-7B4D-4E21-9A0C-5D8E6F1B2C34';
const KEY = 'sk_service_abc';

t.test('defaults: the local server, and the app asked of it', async (t) => {
  t.same(parseQuickstartArgs(['--key', KEY], {}), { url: 'http://127.0.0.1:4318', key: KEY, appId: null });
  t.same(
    parseQuickstartArgs([], {
      TRACELAKE_API_KEY: ` ${KEY} `,
      TRACELAKE_URL: 'https://tl.example.com//',
      TRACELAKE_APP_ID: APP,
    }),
    { url: 'https://tl.example.com', key: KEY, appId: APP.toLowerCase() },
    'the variables agents sync reads',
  );
  t.same(
    parseQuickstartArgs(['--key', KEY], { TRACELAKE_URL: '', TRACELAKE_APP_ID: '' }),
    { url: 'http://127.0.0.1:4318', key: KEY, appId: null },
    'empty variables are unset ones',
  );
});

t.test('flags win over the environment', async (t) => {
  const env = {
    TRACELAKE_API_KEY: 'sk_service_env',
    TRACELAKE_URL: 'http://env:1',
    TRACELAKE_APP_ID: '8c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
  };
  t.same(parseQuickstartArgs([`--key=${KEY}`, '--url', 'http://127.0.0.1:43001/', `--app=${APP}`], env), {
    url: 'http://127.0.0.1:43001',
    key: KEY,
    appId: APP.toLowerCase(),
  });
  t.equal(
    parseQuickstartArgs(['--key', ''], env)!.key,
    'sk_service_env',
    'an empty --key (an unset variable in the shell) falls back',
  );
});

t.test('help', async (t) => {
  t.equal(parseQuickstartArgs(['--help'], {}), null);
  t.equal(parseQuickstartArgs(['--key', KEY, '-h'], {}), null);
  t.match(QUICKSTART_USAGE, /tracelake quickstart --key KEY \[--url URL\] \[--app APP_ID\]/);
  t.match(QUICKSTART_USAGE, /npm run demo -- --key KEY/);
});

t.test('usage errors', async (t) => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [[], {}, /^no API key: give --key .* or set TRACELAKE_API_KEY$/],
    [['--key', '  '], {}, /no API key/],
    [['stray'], {}, /takes no argument "stray"/],
    [['--token', 'x'], {}, /takes no --token/],
    [['--key'], {}, /--key needs a value/],
    [['--key', '--url', 'http://x'], {}, /--key needs a value/],
    [['--key', KEY, '--key', KEY], {}, /--key is given twice/],
    [['--key', KEY, '--url', 'localhost:4318'], {}, /--url must be an http\(s\) URL, got "localhost:4318"/],
    [['--key', KEY], { TRACELAKE_URL: 'ftp://x' }, /--url must be an http\(s\) URL/],
    [['--key', KEY, '--app', 'my-app'], {}, /--app must be a UUID, got "my-app"/],
  ];
  for (const [argv, env, message] of cases) {
    let error: unknown = null;
    try {
      parseQuickstartArgs(argv, env);
    } catch (e) {
      error = e;
    }
    t.ok(error instanceof UsageError, `${JSON.stringify(argv)}: a usage error`);
    t.match((error as Error | null)?.message, message);
  }
});
