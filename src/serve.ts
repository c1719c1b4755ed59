/**
 * `tracelake serve` (and `npm start`, which execs it): reads the configuration, serves in this
 * process, and on SIGINT/SIGTERM drains in-flight requests, checkpoints DuckDB and exits 0.
 */
import { startTracelake } from './app.js';
import { StartRefusal } from './auth/secret.js';
import { type Config, loadConfig, settingsHelp } from './config.js';
import { wantsHelp } from './core/cliArgs.js';
import { createLogger, exitAfterFlush } from './log.js';
import { setDuckdbAllocatorDefaults } from './store/duckdbAllocator.js';

/**
 * How long the workers and the store may take to flush and checkpoint once requests have drained.
 * A supervisor's stop timeout must exceed the shutdown timeout plus this (docs/deploy.md).
 */
export const SHUTDOWN_GRACE_MS = 60_000;

/** Serves until a signal stops the process; `argv` are the settings flags (after `serve`). */
export async function serve(argv: readonly string[]): Promise<void> {
  // Before any thread opens DuckDB (this one never does; the store thread and the compute threads do, later).
  setDuckdbAllocatorDefaults();
  if (wantsHelp(argv)) {
    process.stdout.write(settingsHelp());
    return;
  }
  let config: Config;
  try {
    config = loadConfig(process.env, argv);
  } catch (e) {
    process.stderr.write(`tracelake: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const log = createLogger(config.logLevel);

  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  // A write past the file-size limit (ulimit -f, systemd LimitFSIZE) raises SIGXFSZ, whose default
  // action kills the process; caught, the write fails with EFBIG instead and the request gets 503.
  process.on('SIGXFSZ', () => undefined);

  // The signals are caught from here, before the start: the server logs "listening" (what
  // supervisors and tests wait for) inside the start, and a SIGTERM that came before the handlers
  // were set killed the process unflushed (4 of 24 stops right after "listening"). One
  // that comes during the start stops the server once it has started.
  let stopRequested: string | null = null;
  let onSignal: (signal: string) => void = (signal) => {
    stopRequested ??= signal;
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  try {
    const running = await startTracelake(config, log, {
      // Exit code 75 (EX_TEMPFAIL): "try again", for supervisors that restart on failure only.
      onFatal: () => setTimeout(() => exitAfterFlush(log, 75), 100),
    });
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'shutting down');
      // Nothing else holds the event loop open while the workers flush (their ports are unref'd):
      // without this timer the process ended mid-shutdown, unflushed, and could abort a worker inside
      // DuckDB. It also bounds a shutdown that hangs.
      setTimeout(() => {
        log.error('shutdown did not finish in time; exiting');
        exitAfterFlush(log, 1);
      }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS);
      running.stop().then(
        () => {
          log.info('stopped');
          exitAfterFlush(log, 0);
        },
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          exitAfterFlush(log, 1);
        },
      );
    };
    onSignal = shutdown;
    if (stopRequested) shutdown(stopRequested);
  } catch (err) {
    // A refusal is an operator's matter: one line saying what to do, no stack.
    if (err instanceof StartRefusal) {
      log.fatal(err.message);
      process.stderr.write(`tracelake: ${err.message}\n`);
    } else {
      log.fatal({ err }, 'cannot start');
    }
    exitAfterFlush(log, err instanceof StartRefusal ? err.exitCode : 1);
  }
}
