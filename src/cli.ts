#!/usr/bin/env node
/**
 * `tracelake`: `tracelake serve [settings]` runs the server in this process; `tracelake agents sync`
 * sends coding-agent transcripts to a running server; `tracelake worker` runs the turns of worker
 * runs for a server (src/worker); `tracelake quickstart` sends it a sample agent trace; every other command is the operator's command
 * line (tenants, apps, environments, keys, session tokens), sent to a running server's operator API
 * or, with no server up, worked directly on the data dir. See `tracelake --help`.
 */
const argv = process.argv.slice(2);

if (argv[0] === 'serve') {
  // Imported on demand: the server's main thread never loads DuckDB, the offline CLI does.
  const { serve } = await import('./serve.js');
  await serve(argv.slice(1));
} else {
  const { runCli } = await import('./cli/run.js');
  process.exitCode = await runCli(argv, {
    env: process.env,
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    nowMs: () => Date.now(),
    tty: process.stderr.isTTY === true,
  });
}
