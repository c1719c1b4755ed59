/**
 * `npm start`: reads the configuration, serves, and on SIGINT/SIGTERM drains in-flight requests,
 * checkpoints DuckDB and exits 0.
 */
import { startTracelake } from './app.js';
import { StartRefusal } from './auth/secret.js';
import { loadConfig } from './config.js';
import { createLogger } from './log.js';

let config;
try {
  config = loadConfig(process.env, process.argv.slice(2));
} catch (e) {
  process.stderr.write(`tracelake: ${(e as Error).message}\n`);
  process.exit(2);
}
const log = createLogger(config.logLevel);

process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
// A write past the file-size limit (ulimit -f, systemd LimitFSIZE) raises SIGXFSZ, whose default
// action kills the process; caught, the write fails with EFBIG instead and the request gets 503.
process.on('SIGXFSZ', () => undefined);

try {
  const running = await startTracelake(config, log, {
    // Exit code 75 (EX_TEMPFAIL): "try again", for supervisors that restart on failure only.
    onFatal: () => setTimeout(() => process.exit(75), 100),
  });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    running.stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (err) {
  // A refusal is an operator's matter: one line saying what to do, no stack.
  if (err instanceof StartRefusal) {
    log.fatal(err.message);
    process.stderr.write(`tracelake: ${err.message}\n`);
  } else {
    log.fatal({ err }, 'cannot start');
  }
  process.exit(1);
}
