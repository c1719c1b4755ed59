import t from 'tap';
import { UsageError } from '../../../src/core/cliArgs.js';
import { parseWorkerArgs, WORKER_USAGE } from '../../../src/core/workers/workerArgs.js';

const APP = '0f8fad5b-d9cb-469f-a165-70867728950e';
const ENV = { TRACELAKE_API_KEY: 'sk_service_k', TRACELAKE_APP_ID: APP, TRACELAKE_GIT_ROOT: '/srv/git' };
const name = (dir: string) => `host-${dir.length}`;
const parse = (argv: string[], env: Record<string, string | undefined> = ENV) =>
  parseWorkerArgs(argv, env, '/home/dev', name);

t.test('defaults from the environment', async (t) => {
  t.same(parse([]), {
    url: 'http://127.0.0.1:4318',
    key: 'sk_service_k',
    appId: APP,
    profilesFile: null,
    profiles: [],
    workDir: '/home/dev/.local/state/tracelake/worker',
    gitRoot: '/srv/git',
    concurrency: 1,
    name: `host-${'/home/dev/.local/state/tracelake/worker'.length}`,
    pollSeconds: 20,
    graceSeconds: 10,
    evalCommand: null,
    evalTimeoutSeconds: 1800,
    evalMaxOutputBytes: 8 * 1024 * 1024,
  });
  t.match(
    parse([], {
      ...ENV,
      XDG_STATE_HOME: '/state',
      TRACELAKE_URL: 'https://t.example.com/',
      TRACELAKE_WORKER_PROFILES: '/etc/p.json',
    }),
    { workDir: '/state/tracelake/worker', url: 'https://t.example.com', profilesFile: '/etc/p.json' },
  );
  t.match(parse([], { ...ENV, TRACELAKE_WORKER_DIR: '/w' }), { workDir: '/w' });
});

t.test('flags win', async (t) => {
  const o = parse([
    '--url',
    'http://gw:1/',
    '--key=sk_service_x',
    '--app',
    APP.toUpperCase(),
    '--git-root',
    '/g',
    '--profiles',
    'p.json',
    '--profile',
    'fake',
    '--profile=codex',
    '--work-dir',
    '/wd',
    '--concurrency',
    '4',
    '--name',
    'w-1',
    '--poll-seconds',
    '0',
    '--grace-seconds',
    '30',
  ]);
  t.same(o, {
    url: 'http://gw:1',
    key: 'sk_service_x',
    appId: APP,
    profilesFile: 'p.json',
    profiles: ['fake', 'codex'],
    workDir: '/wd',
    gitRoot: '/g',
    concurrency: 4,
    name: 'w-1',
    pollSeconds: 0,
    graceSeconds: 30,
    evalCommand: null,
    evalTimeoutSeconds: 1800,
    evalMaxOutputBytes: 8388608,
  });
  t.match(
    parse([
      '--eval-command',
      '/usr/bin/node  run.mjs --fast',
      '--eval-timeout-seconds',
      '60',
      '--eval-max-output-bytes',
      '1024',
    ]),
    { evalCommand: ['/usr/bin/node', 'run.mjs', '--fast'], evalTimeoutSeconds: 60, evalMaxOutputBytes: 1024 },
  );
  t.match(
    parse(['--eval-command=["/opt/my evals/run", "a b"]']),
    { evalCommand: ['/opt/my evals/run', 'a b'] },
    'a JSON array keeps spaces',
  );
  t.equal(parse(['--help']), null);
  t.equal(parse(['-h']), null);
  t.match(WORKER_USAGE, /Usage: tracelake worker/);
});

t.test('usage errors', async (t) => {
  const refused = (argv: string[], message: RegExp, env = ENV) =>
    t.throws(() => parse(argv, env), message instanceof RegExp ? { message } : message, argv.join(' '));
  refused(['run'], /takes no argument "run"/);
  refused(['--colour', 'x'], /takes no --colour/);
  refused(['--url'], /--url needs a value/);
  refused(['--url', '--key'], /--url needs a value/);
  refused(['--profile', 'Bad'], /--profile must be a profile name/);
  refused(['--url', 'a', '--url', 'b'], /--url is given twice/);
  refused(['--url', 'ftp://x'], /--url must be an http\(s\) URL/);
  refused([], /no worker key/, { ...ENV, TRACELAKE_API_KEY: undefined as unknown as string });
  refused([], /no app id/, { ...ENV, TRACELAKE_APP_ID: undefined as unknown as string });
  refused(['--app', 'nope'], /--app must be a UUID/);
  refused([], /no git root/, { ...ENV, TRACELAKE_GIT_ROOT: undefined as unknown as string });
  refused(['--name=-bad'], /--name must be/);
  refused(['--name', '-bad'], /--name needs a value \(one that starts with "-" is written --name=VALUE\)/);
  refused(['--concurrency', '0'], /--concurrency must be a whole number in 1\.\.64/);
  refused(['--eval-command', '[1]'], /--eval-command: expected a non-empty JSON array of strings/);
  refused(['--eval-command=  '], /--eval-command: expected a program/);
  refused(['--eval-timeout-seconds', '0'], /--eval-timeout-seconds must be a whole number/);
  refused(['--concurrency', '1.5'], /--concurrency/);
  refused(['--poll-seconds', '31'], /--poll-seconds/);
  t.throws(
    () => parse(['--colour', 'x']),
    { constructor: UsageError, message: 'worker takes no --colour' },
    'a usage error (exit 2), not any error',
  );
});
