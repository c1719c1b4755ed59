/**
 * The CLI's way to a running server: it asks the server at the configured address which store it
 * serves, and sends a command to its operator API only when that is the CLI's own store — a command
 * meant for one data dir must never land on a server of another.
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ServerTarget } from '../core/admin/cliArgs.js';
import { OPERATOR_SERVER_PATH, type OperatorRequest } from '../core/admin/operatorApi.js';

/** How long the question "who are you" may take before the server counts as not there. */
const PROBE_TIMEOUT_MS = 5_000;
/** A command is one short transaction; this bounds a server that stopped answering. */
const COMMAND_TIMEOUT_MS = 120_000;

/** What the CLI found at the server's address. */
export type Reach =
  | { kind: 'same store' }
  | { kind: 'no server' }
  | { kind: 'other store'; dataDir: string }
  | { kind: 'operator api off' }
  | { kind: 'token refused' };

export interface Answer {
  status: number;
  /** The parsed JSON body; undefined when it was not JSON. */
  body: unknown;
}

export async function reachServer(server: ServerTarget & { token: string }, dataDir: string): Promise<Reach> {
  let answer: Answer;
  try {
    answer = await send(server, { method: 'GET', path: OPERATOR_SERVER_PATH }, PROBE_TIMEOUT_MS);
  } catch {
    // Refused, unreachable or silent: no server there (the store itself will say whether one holds it).
    return { kind: 'no server' };
  }
  const code = errorCode(answer.body);
  if (answer.status === 401 && code === 'unauthorized') return { kind: 'token refused' };
  if (answer.status === 404 && code === 'not_found') return { kind: 'operator api off' };
  const served = (answer.body as { data?: { data_dir?: unknown } } | undefined)?.data?.data_dir;
  if (answer.status !== 200 || typeof served !== 'string') return { kind: 'no server' };
  return served === canonicalDir(dataDir) ? { kind: 'same store' } : { kind: 'other store', dataDir: served };
}

/** Runs one operator request; rejects only when the server could not be reached. */
export function sendCommand(server: ServerTarget & { token: string }, request: OperatorRequest): Promise<Answer> {
  return send(server, request, COMMAND_TIMEOUT_MS);
}

async function send(
  server: ServerTarget & { token: string },
  request: OperatorRequest,
  timeoutMs: number,
): Promise<Answer> {
  const res = await fetch(server.url + request.path, {
    method: request.method,
    headers: {
      authorization: `Bearer ${server.token}`,
      ...(request.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body };
}

/** The error code of a Tracelake error body, if it is one. */
export function errorCode(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A data dir as the server reports its own: absolute, links resolved (routes/operator.ts). */
function canonicalDir(dataDir: string): string {
  const dir = resolve(dataDir);
  return existsSync(dir) ? realpathSync(dir) : dir;
}
