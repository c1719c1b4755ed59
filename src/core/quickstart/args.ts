/**
 * `tracelake quickstart`'s command line: where the server is and which key to send with (flags,
 * else the variables `tracelake agents sync` reads: TRACELAKE_URL, TRACELAKE_API_KEY,
 * TRACELAKE_APP_ID). Without an app id the command asks the server for the key's app. Anything
 * wrong is a usage error (exit 2).
 */
import { parseFlags, UsageError, wantsHelp } from '../cliArgs.js';

export interface QuickstartOptions {
  /** The server's base URL, without a trailing slash. */
  url: string;
  key: string;
  /** Lowercase; null: asked of the server (`GET /v1/auth/app`). */
  appId: string | null;
}

export const QUICKSTART_USAGE = `Usage: tracelake quickstart --key KEY [--url URL] [--app APP_ID]
       npm run demo -- --key KEY [--url URL]

Sends a small sample agent trace to a running Tracelake server — an agent turn with two model
calls, a tool call between them, a session and a user — and three scores on it, then prints the
address of the trace in the web UI.

Options:
  --key KEY      an API key that may write traces and scores (default $TRACELAKE_API_KEY), such
                 as the one the server printed at its first start
  --url URL      the server (default $TRACELAKE_URL, else http://127.0.0.1:4318)
  --app APP_ID   the key's app (default $TRACELAKE_APP_ID, else asked of the server)
`;

type Env = Readonly<Record<string, string | undefined>>;

const FLAGS = { command: 'quickstart', strings: ['url', 'key', 'app'] };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses the arguments after `quickstart`; null when help was asked for. */
export function parseQuickstartArgs(argv: readonly string[], env: Env): QuickstartOptions | null {
  if (wantsHelp(argv)) return null;
  const { values } = parseFlags(argv, FLAGS);
  const url = (values.get('url') || env.TRACELAKE_URL || 'http://127.0.0.1:4318').replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new UsageError(`--url must be an http(s) URL, got "${url}"`);
  const key = (values.get('key') || env.TRACELAKE_API_KEY || '').trim();
  if (key === '')
    throw new UsageError('no API key: give --key (the server printed one at its first start) or set TRACELAKE_API_KEY');
  const appId = values.get('app') || env.TRACELAKE_APP_ID || null;
  if (appId !== null && !UUID.test(appId)) throw new UsageError(`--app must be a UUID, got "${appId}"`);
  return { url, key, appId: appId?.toLowerCase() ?? null };
}
