/**
 * The processes tests start run without the test runner's hook (test/helpers/unhooked.ts): tap's
 * processinfo, loaded into every server and each of its threads, nearly doubled a start's CPU.
 */
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { unhooked } from '../helpers/unhooked.js';

const PROBE = 'process.stdout.write(JSON.stringify({ options: process.env.NODE_OPTIONS ?? null, argv: process.argv.slice(1) }))';

t.test('a child runs without the runner hook and with its own arguments', async (t) => {
  t.match(process.env.NODE_OPTIONS ?? '', /@tapjs\/processinfo/, 'tap hooks this test process (else this test proves nothing)');
  const plain = JSON.parse(execFileSync(process.execPath, ['-e', PROBE], { encoding: 'utf8' }));
  t.match(plain.options, /processinfo/, 'a plain spawn gets the hook back whatever env it is given');
  const seen = JSON.parse(execFileSync(...unhooked(process.execPath, ['-e', PROBE, 'a=b', '--x']), { encoding: 'utf8' }));
  t.equal(seen.options, null, 'no NODE_OPTIONS left');
  t.same(seen.argv, ['a=b', '--x'], 'arguments with = and dashes reach the program as they are');
});

t.test('other NODE_OPTIONS are kept', async (t) => {
  const [, args] = unhooked(process.execPath, ['-e', PROBE], { NODE_OPTIONS: `${process.env.NODE_OPTIONS} --max-old-space-size=512` });
  const seen = JSON.parse(execFileSync('/usr/bin/env', args, { encoding: 'utf8' }));
  t.equal(seen.options, '--max-old-space-size=512');
});
