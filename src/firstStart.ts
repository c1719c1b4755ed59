/**
 * The plain-text block a store's first start writes to stderr (stdout carries the JSON log that
 * tools parse): where the UI is, the app id and key, the OpenTelemetry variables that send traces
 * here, and the demo command. Pure; app.ts writes it once, after the server listens.
 */

export interface FirstStart {
  /** The address the server listens on (`--host`). */
  host: string;
  port: number;
  /** `--public-url`: the address humans reach the server at, when it is not this machine's. */
  publicUrl?: string | undefined;
  appId: string;
  /** The bootstrap key, or null when the operator chose it (TRACELAKE_BOOTSTRAP_KEY): theirs already, not printed. */
  key: string | null;
}

/** Where `tracelake quickstart` looks when given no `--url`. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:4318';

/** What the commands say in place of a key the operator chose: it expands in their shell. */
const CHOSEN_KEY = '$TRACELAKE_BOOTSTRAP_KEY';

/**
 * The URL a browser on this machine opens for a server listening on `host`: a wildcard address
 * (0.0.0.0, ::) is reached on loopback, and an IPv6 address goes in brackets.
 */
export function localUrl(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const h = bare === '0.0.0.0' || bare === '::' ? '127.0.0.1' : bare;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** The block, ending with a newline. */
export function firstStartBlock(s: FirstStart): string {
  const url = (s.publicUrl ?? localUrl(s.host, s.port)).replace(/\/+$/, '');
  const key = s.key ?? CHOSEN_KEY;
  const shownKey =
    s.key === null ? 'the key you set in TRACELAKE_BOOTSTRAP_KEY (not printed)' : `${s.key}   (shown once: keep it)`;
  const demoUrl = url === DEFAULT_SERVER_URL ? '' : ` --url ${url}`;
  // OTEL_EXPORTER_OTLP_HEADERS is comma-separated key=value pairs with URL-encoded values; a key
  // (sk_service_ and letters and digits, checked at start) and a UUID need no encoding.
  return [
    'Tracelake is running. First start of this store:',
    `  UI        ${url}/   (sign in with the API key below)`,
    `  app id    ${s.appId}`,
    `  API key   ${shownKey}`,
    'Send OpenTelemetry traces (OTLP over HTTP, protobuf or JSON):',
    `  export OTEL_EXPORTER_OTLP_ENDPOINT=${url}`,
    `  export OTEL_EXPORTER_OTLP_HEADERS="Authorization=${key},X-Service-App-Id=${s.appId}"`,
    'Try it with a sample agent trace:',
    `  npm run demo -- --key ${s.key === null ? `"${key}"` : key}${demoUrl}`,
    '',
  ].join('\n');
}
