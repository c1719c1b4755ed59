#!/usr/bin/env node
/**
 * `tracelake`: the operator's command line (tenants, apps, environments, keys, session tokens),
 * working directly on a stopped server's data dir, and `tracelake agents sync`, which sends coding-agent
 * transcripts to a running server. See `tracelake --help`.
 */
import { runCli } from './cli/run.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  nowMs: () => Date.now(),
  tty: process.stderr.isTTY === true,
});
