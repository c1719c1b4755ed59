/**
 * The processes tests start run without the test runner's hook (test/helpers/unhooked.ts): tap's
 * processinfo, loaded into every server and each of its threads, nearly doubled a start's CPU. And
 * they die with the test process, however it ends.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import t from 'tap';
import { unhooked } from '../helpers/unhooked.js';
import { until } from '../helpers/until.js';

const PROBE =
  'process.stdout.write(JSON.stringify({ options: process.env.NODE_OPTIONS ?? null, argv: process.argv.slice(1) }))';

t.test('a child runs without the runner hook and with its own arguments', async (t) => {
  t.match(
    process.env.NODE_OPTIONS ?? '',
    /@tapjs\/processinfo/,
    'tap hooks this test process (else this test proves nothing)',
  );
  const plain = JSON.parse(execFileSync(process.execPath, ['-e', PROBE], { encoding: 'utf8' }));
  t.match(plain.options, /processinfo/, 'a plain spawn gets the hook back whatever env it is given');
  const seen = JSON.parse(
    execFileSync(...unhooked(process.execPath, ['-e', PROBE, 'a=b', '--x']), { encoding: 'utf8' }),
  );
  t.equal(seen.options, null, 'no NODE_OPTIONS left');
  t.same(seen.argv, ['a=b', '--x'], 'arguments with = and dashes reach the program as they are');
});

t.test('other NODE_OPTIONS are kept', async (t) => {
  const seen = JSON.parse(
    execFileSync(
      ...unhooked(process.execPath, ['-e', PROBE], {
        NODE_OPTIONS: `${process.env.NODE_OPTIONS} --max-old-space-size=512`,
      }),
      { encoding: 'utf8' },
    ),
  );
  t.equal(seen.options, '--max-old-space-size=512');
});

/** Whether process `pid` exists (a zombie counts as ended: the kernel has killed it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

t.test('a child dies with the process that started it, even one killed without its exit handlers', async (t) => {
  // A stand-in for a test process: it starts a child that would run for good, says its pid, waits.
  const helper = new URL('../helpers/unhooked.js', import.meta.url).href;
  const parentScript = `
    const { spawn } = await import('node:child_process');
    const { unhooked } = await import(${JSON.stringify(helper)});
    const child = spawn(...unhooked(process.execPath, ['-e', 'setInterval(() => {}, 1000)']), { stdio: 'ignore' });
    console.log(child.pid);
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['--input-type=module', '-e', parentScript], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await createInterface({ input: parent.stdout! })
    [Symbol.asyncIterator]()
    .next()
    .then((r) => [r.value as string]);
  const child = Number(line);
  t.ok(child > 0 && alive(child), `the child runs (pid ${line})`);
  // setpriv asks for the signal, then execs env, which execs the program: once the program runs,
  // the request is made (a kill before it, on a loaded machine, would race setpriv itself).
  const program = () => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('setInterval');
    } catch {
      return false;
    }
  };
  t.ok(await until(program, 10_000), 'the program itself runs');
  parent.kill('SIGKILL');
  t.ok(await until(() => !alive(child), 10_000), 'and is gone once its parent is killed');
  if (alive(child)) process.kill(child, 'SIGKILL');
});
