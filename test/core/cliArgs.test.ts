/** src/core/cliArgs.ts: parseArgs as every command line's tokenizer, and its errors as UsageError. */
import t from 'tap';
import { parseFlags, UsageError, wantsHelp, type ArgsSpec } from '../../src/core/cliArgs.js';

const SPEC: ArgsSpec = {
  command: 'demo',
  strings: ['url', 'key'],
  lists: ['tag'],
  switches: ['watch'],
  positionals: true,
};

t.test('values, lists, switches and positionals, in the order given', async (t) => {
  const args = parseFlags(
    ['a', '--key=k', '--tag', 'x', '--watch', 'b', '--url', 'http://h', '--tag=y', '--', '--not-a-flag'],
    SPEC,
  );
  t.same(
    [...args.values],
    [
      ['key', 'k'],
      ['url', 'http://h'],
    ],
  );
  t.same([...args.lists], [['tag', ['x', 'y']]]);
  t.same([...args.switches], ['watch']);
  t.same(args.positionals, ['a', 'b', '--not-a-flag'], 'after "--" every word is a positional');
  t.same(
    [...parseFlags(['--key=--odd', '--url='], SPEC).values],
    [
      ['key', '--odd'],
      ['url', ''],
    ],
    'with "=", any value, an empty one too',
  );
  t.same(parseFlags([], { strings: [] }), {
    values: new Map(),
    lists: new Map(),
    switches: new Set(),
    positionals: [],
  });
});

t.test('usage errors name the flag', async (t) => {
  const refused = (argv: string[], spec: ArgsSpec, message: string, flag?: string) => {
    let error: unknown;
    try {
      parseFlags(argv, spec);
    } catch (e) {
      error = e;
    }
    t.ok(error instanceof UsageError, `${JSON.stringify(argv)}: a usage error`);
    t.same([(error as UsageError).message, (error as UsageError).flag], [message, flag], JSON.stringify(argv));
  };
  refused(['--colour', 'red'], SPEC, 'demo takes no --colour', 'colour');
  refused(['--colour=red'], { strings: [] }, 'unknown option --colour', 'colour');
  refused(['-x'], SPEC, 'demo takes no -x', 'x');
  refused(['run'], { command: 'demo', strings: [] }, 'demo takes no argument "run"');
  refused(['run'], { strings: [] }, 'unexpected argument "run"');
  refused(['--url'], SPEC, '--url needs a value', 'url');
  refused(['--url', '--watch'], SPEC, '--url needs a value (one that starts with "-" is written --url=VALUE)', 'url');
  refused(['--watch=yes'], SPEC, '--watch takes no value', 'watch');
  refused(['--url', 'a', '--url=b'], SPEC, '--url is given twice', 'url');
  t.same(
    [...parseFlags(['--url', 'a', '--url=b'], { strings: ['url'], repeats: 'last wins' }).values],
    [['url', 'b']],
    'unless a later one wins',
  );
});

t.test('an error that is not about the command line passes through', async (t) => {
  t.throws(() => parseFlags('--url' as unknown as string[], SPEC), { code: 'ERR_INVALID_ARG_TYPE' });
});

t.test('help: --help or -h anywhere', async (t) => {
  t.ok(wantsHelp(['--port', '1', '--help']));
  t.ok(wantsHelp(['-h']));
  t.notOk(wantsHelp(['--port', '1', '--help=no']));
  t.notOk(wantsHelp([]));
});
