/** `tracelake agents sync`'s command line: flags, the environment's fallbacks, and usage errors. */
import t from 'tap';
import { parseSyncArgs, SYNC_USAGE } from '../../../src/core/agents/syncArgs.js';
import { UsageError } from '../../../src/core/cliArgs.js';

const APP = '3F2A9C1E-7B4D-4E21-9A0C-5D8E6F1B2C34';
const env = { TRACELAKE_API_KEY: 'sk_env', TRACELAKE_APP_ID: APP };
const parse = (argv: string[], e: Record<string, string | undefined> = env, tty = false) =>
  parseSyncArgs(argv, e, '/home/dev', tty);

t.test('defaults come from the environment and the home directory', async (t) => {
  t.same(parse([]), {
    url: 'http://127.0.0.1:4318',
    key: 'sk_env',
    appId: APP.toLowerCase(),
    paths: [],
    stateFile: '/home/dev/.local/state/tracelake/agents-sync.json',
    watch: false,
    intervalSec: 2,
    idleMinutes: 60,
    batchBytes: 8 * 1024 * 1024,
    batchSessions: 100,
    environment: null,
    claudeDir: '/home/dev/.claude',
    codexDir: '/home/dev/.codex',
    progress: false,
  });
  const o = parse(
    [],
    {
      ...env,
      TRACELAKE_URL: 'https://tl.example.com//',
      XDG_STATE_HOME: '/state',
      CLAUDE_CONFIG_DIR: '/cc',
      CODEX_HOME: '/cx',
    },
    true,
  )!;
  t.same(
    [o.url, o.stateFile, o.claudeDir, o.codexDir, o.progress],
    ['https://tl.example.com', '/state/tracelake/agents-sync.json', '/cc', '/cx', true],
    'trailing slashes dropped; progress on a terminal',
  );
  t.equal(parse([], { ...env, TRACELAKE_AGENTS_STATE: '/s.json', XDG_STATE_HOME: '' })!.stateFile, '/s.json');
  t.equal(
    parse([], { ...env, XDG_STATE_HOME: '', CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' })!.claudeDir,
    '/home/dev/.claude',
    'empty variables are unset ones',
  );
});

t.test('flags win over the environment; paths are kept in order', async (t) => {
  const o = parse([
    'a.jsonl',
    '--url=http://h:1/',
    '--key',
    'sk_flag',
    '--app',
    '8c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
    '--environment',
    'prod',
    '--state',
    '/st',
    'dir',
    '--watch',
    '--interval',
    '0.5',
    '--idle-minutes=0',
    '--batch-bytes',
    '2048.9',
    '--batch-sessions',
    '7',
    '--claude-dir',
    '/c',
    '--codex-dir',
    '/x',
    '--progress',
  ])!;
  t.same(o, {
    url: 'http://h:1',
    key: 'sk_flag',
    appId: '8c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
    paths: ['a.jsonl', 'dir'],
    stateFile: '/st',
    watch: true,
    intervalSec: 0.5,
    idleMinutes: 0,
    batchBytes: 2048,
    batchSessions: 7,
    environment: 'prod',
    claudeDir: '/c',
    codexDir: '/x',
    progress: true,
  });
  t.equal(parse(['--no-progress'], env, true)!.progress, false, '--no-progress on a terminal');
});

t.test('help', async (t) => {
  t.equal(parse(['--help']), null);
  t.equal(parse(['x', '-h', '--bogus']), null, 'help wins over what follows');
  t.match(SYNC_USAGE, /--batch-sessions N/);
});

t.test('usage errors', async (t) => {
  const cases: [string[], Record<string, string | undefined>, RegExp][] = [
    [['--bogus'], env, /takes no --bogus/],
    [['--watch=yes'], env, /--watch takes no value/],
    [['--url'], env, /--url needs a value/],
    [['--url', '--watch'], env, /--url needs a value/],
    [['--key', 'a', '--key=b'], env, /--key is given twice/],
    [['--progress', '--no-progress'], env, /at most one of --progress and --no-progress/],
    [['--url', 'ftp://h'], env, /--url must be an http\(s\) URL, got "ftp:\/\/h"/],
    [[], { TRACELAKE_APP_ID: APP }, /no API key/],
    [['--key='], env, /no API key/],
    [[], { TRACELAKE_API_KEY: 'k' }, /no app id/],
    [['--app', 'shop'], env, /--app must be a UUID, got "shop"/],
    [['--interval', 'soon'], env, /--interval must be a number in 0.05..3600, got "soon"/],
    [['--interval', '0.01'], env, /--interval must be a number in 0.05..3600/],
    [['--interval=-1'], env, /--interval must be a number/],
    [['--batch-sessions', '1001'], env, /--batch-sessions must be a number in 1..1000/],
    [['--batch-bytes', '1023'], env, /--batch-bytes must be a number in 1024/],
    [['--idle-minutes', '1e3'], env, /--idle-minutes must be a number/],
  ];
  for (const [argv, e, message] of cases)
    t.throws(() => parse(argv, e), { message }, argv.join(' ') || '(no arguments)');
  let error: unknown;
  try {
    parse(['--bogus']);
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof UsageError, 'a usage error (exit 2), not any error');
});
