/**
 * `tracelake quickstart` (`npm run demo`): sends the sample agent trace of core/quickstart over
 * plain HTTP — OTLP/JSON to `POST /v1/traces`, answered once the spans are readable — then its
 * scores, and prints where to look in the web UI. Usage errors exit 2; a server that cannot be
 * reached or refuses the key exits 1 with one line saying so.
 */
import { randomBytes } from 'node:crypto';
import { UsageError } from '../core/cliArgs.js';
import { parseQuickstartArgs, QUICKSTART_USAGE, type QuickstartOptions } from '../core/quickstart/args.js';
import { demoTrace } from '../core/quickstart/demoTrace.js';
import { usageFailure, type CliIo } from './io.js';

/** The export waits for its spans to be readable, which the server bounds at 30 s. */
const REQUEST_TIMEOUT_MS = 60_000;

class QuickstartFailure extends Error {}

interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function runQuickstart(argv: readonly string[], io: CliIo): Promise<number> {
  let options: QuickstartOptions | null;
  try {
    options = parseQuickstartArgs(argv, io.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageFailure(io, e.message, 'quickstart');
  }
  if (options === null) {
    io.out(QUICKSTART_USAGE);
    return 0;
  }
  try {
    io.out(await quickstart(options, io.nowMs()));
    return 0;
  } catch (e) {
    if (!(e instanceof QuickstartFailure)) throw e;
    io.err(`tracelake: ${e.message}\n`);
    return 1;
  }
}

/** Sends the trace and its scores; resolves with what to print. */
async function quickstart(o: QuickstartOptions, nowMs: number): Promise<string> {
  const appId = o.appId ?? (await appOfKey(o));
  const demo = demoTrace({ traceId: hex(16), spanIds: [hex(8), hex(8), hex(8), hex(8)] }, nowMs);
  const sent = await send(o, 'POST', '/v1/traces', demo.request, {
    // The spec's OTLP rule: the raw key, without "Bearer ".
    authorization: o.key,
    'x-service-app-id': appId,
    'x-tracelake-wait': 'visible',
  });
  expectOk(o, sent, 'sending the trace');
  const visible = sent.headers.get('x-tracelake-visible') !== 'false';
  const scored: string[] = [];
  for (const score of demo.scores) {
    const answer = await send(o, 'POST', '/v1/scores', score, {
      authorization: `Bearer ${o.key}`,
      'x-service-app-id': appId,
    });
    expectOk(o, answer, `scoring the trace (${score.name})`);
    scored.push(
      `${score.name} ${score.label ?? (score.data_type === 'BOOLEAN' ? String(score.score === 1) : String(score.score))}`,
    );
  }
  const s = demo.summary;
  return [
    `Sent a sample agent trace to ${o.url} (app ${appId}):`,
    `  trace     ${demo.traceId}  "${s.name}": ${s.spans} spans, ${s.modelCalls} calls to ${s.model} (${s.tokens} tokens) and ${s.toolCalls} tool call`,
    `  session   ${demo.sessionId}, user ${demo.userId}`,
    `  scores    ${scored.join(', ')}`,
    ...(visible ? [] : ['  (stored; the server is still writing it, so it may take a few seconds to show)']),
    'Open it in the web UI:',
    `  ${o.url}/#/traces/${demo.traceId}`,
    '',
  ].join('\n');
}

/** The key's app, asked of the server (`GET /v1/auth/app`). */
async function appOfKey(o: QuickstartOptions): Promise<string> {
  const answer = await send(o, 'GET', '/v1/auth/app', undefined, { authorization: `Bearer ${o.key}` });
  expectOk(o, answer, "looking up the key's app");
  const appId = (answer.body as { data?: { app_id?: unknown } } | undefined)?.data?.app_id;
  if (typeof appId !== 'string')
    throw new QuickstartFailure(
      `the server at ${o.url} did not say which app the key belongs to (is it a Tracelake server? give --app to skip the question)`,
    );
  return appId;
}

async function send(
  o: QuickstartOptions,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Reply> {
  let res: Response;
  try {
    res = await fetch(o.url + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (e as Error).message;
    throw new QuickstartFailure(
      `no Tracelake server answers at ${o.url} (${why}): start one with "npm start", or give its address with --url`,
    );
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Throws the one line to print when `answer` is not a success. */
function expectOk(o: QuickstartOptions, answer: Reply, step: string): void {
  if (answer.status >= 200 && answer.status < 300) return;
  const message = (answer.body as { error?: { message?: unknown } } | undefined)?.error?.message;
  const said = typeof message === 'string' ? `: ${message}` : '';
  if (answer.status === 401) throw new QuickstartFailure(`the server at ${o.url} refused the key${said}`);
  if (answer.status === 403)
    throw new QuickstartFailure(
      `the key may not do this (${step})${said}; use a key with trace.write and score.write, such as the first start's`,
    );
  throw new QuickstartFailure(`${step} failed: the server at ${o.url} answered ${answer.status}${said}`);
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
