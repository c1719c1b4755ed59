/**
 * `tracelake agents sync`: finds coding-agent transcripts on disk, reads them into sessions
 * (core/agents/readers), and sends the new and grown ones to a running server over HTTP in bounded
 * batches, remembering in a small state file what it sent. `--watch` keeps doing so as files grow.
 */
import { type Dirent, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { batchesOf, type SyncBatch, type SyncItem } from '../core/agents/batches.js';
import { BlobBag } from '../core/agents/readers/blobBag.js';
import { readClaudeCode, type TranscriptFile } from '../core/agents/readers/claudeCode.js';
import { readCodex } from '../core/agents/readers/codex.js';
import { emptyStats, type ReadStats } from '../core/agents/readers/jsonl.js';
import type { AgentSession, ContentPart } from '../core/agents/session.js';
import type { SyncOptions } from '../core/agents/syncArgs.js';
import { fingerprint, usageByModel, type ModelUsage } from '../core/agents/usage.js';
import { compilePriceTable, costOf, parsePriceTable } from '../core/cost/pricing.js';
import type { CostFn } from '../core/otlp/fields.js';

export interface SyncIo {
  out(text: string): void;
  err(text: string): void;
  nowMs(): number;
}

interface FileMark {
  size: number;
  mtimeMs: number;
}

/** What was sent to one server and app. */
interface TargetState {
  files: Record<string, FileMark>;
  sessions: Record<string, string>;
}

interface StateFile {
  version: 1;
  targets: Record<string, TargetState>;
}

export interface SyncSummary {
  files: number;
  sessions: { found: number; sent: number; accepted: number; rejected: number };
  events: number;
  bytes: number;
  requests: number;
  spanRows: number;
  blobsStored: number;
  tenantTier: string | null;
  rejected: { id: string; reason: string }[];
  models: Record<string, ModelUsage>;
  skippedLines: { unknown: number; malformed: number; truncated: number };
}

export class SyncFailure extends Error {}

const ROOT = new URL('../../../', import.meta.url);
const MAX_ATTEMPTS = 6;

export async function runAgentsSync(o: SyncOptions, io: SyncIo, signal?: AbortSignal): Promise<SyncSummary[]> {
  const prices = compilePriceTable(
    parsePriceTable(JSON.parse(readFileSync(new URL('data/pricing.json', ROOT), 'utf8'))),
  );
  const price: CostFn = (model, usage) => {
    const p = prices.find(model);
    return p ? costOf(p, usage) : undefined;
  };
  const summaries: SyncSummary[] = [];
  for (;;) {
    const summary = await syncOnce(o, io, price);
    if (!o.watch || summary.sessions.sent > 0 || summaries.length === 0) {
      io.out(`${JSON.stringify(summary, null, o.watch ? 0 : 2)}\n`);
      summaries.push(summary);
    }
    if (!o.watch || signal?.aborted) return summaries;
    await sleep(o.intervalSec * 1000, signal);
    if (signal?.aborted) return summaries;
  }
}

async function syncOnce(o: SyncOptions, io: SyncIo, price: CostFn): Promise<SyncSummary> {
  const stateAll = loadState(o.stateFile);
  const targetKey = `${o.url} ${o.appId}`;
  const state = (stateAll.targets[targetKey] ??= { files: {}, sessions: {} });
  const found = discover(o);
  const marks = new Map<string, FileMark>();
  for (const f of [...found.claude, ...found.codex]) {
    try {
      const s = statSync(f);
      marks.set(f, { size: s.size, mtimeMs: s.mtimeMs });
    } catch {
      // gone since it was listed
    }
  }
  const changed = (f: string) => {
    const was = state.files[f];
    const now = marks.get(f);
    return now !== undefined && (!was || was.size !== now.size || was.mtimeMs !== now.mtimeMs);
  };
  const stats = emptyStats();
  const bag = new BlobBag();
  const idleBefore = io.nowMs() - o.idleMinutes * 60_000;
  const sessions: AgentSession[] = [];

  // Claude Code: a session's lines can be in several files of its project directory (sub-agents).
  const groups = new Map<string, string[]>();
  for (const f of found.claude) {
    const g = claudeGroup(f);
    groups.set(g, [...(groups.get(g) ?? []), f]);
  }
  for (const files of groups.values()) {
    if (!files.some(changed)) continue;
    const read = readClaudeCode(readAll(files), bag);
    add(stats, read.stats);
    const idle = Math.max(...files.map((f) => marks.get(f)?.mtimeMs ?? 0)) < idleBefore;
    sessions.push(...read.sessions.map((s) => (idle ? ended(s) : s)));
  }
  for (const f of found.codex.filter(changed)) {
    const read = readCodex(readAll([f]), bag);
    add(stats, read.stats);
    const idle = (marks.get(f)?.mtimeMs ?? 0) < idleBefore;
    sessions.push(...read.sessions.map((s) => (idle ? ended(s) : s)));
  }

  const keyOf = (s: AgentSession) => `${s.agent.name}/${s.id}`;
  const toSend = sessions.filter((s) => state.sessions[keyOf(s)] !== fingerprint(s));
  const items: SyncItem[] = toSend.map((session) => ({ session, blobs: bag.of(session.events.flatMap(partsOf)) }));
  const batches = batchesOf(items, o.batchBytes, o.batchSessions);
  const summary: SyncSummary = {
    files: marks.size,
    sessions: { found: sessions.length, sent: toSend.length, accepted: 0, rejected: 0 },
    events: 0,
    bytes: 0,
    requests: 0,
    spanRows: 0,
    blobsStored: 0,
    tenantTier: null,
    rejected: [],
    models: {},
    skippedLines: { unknown: stats.unknown, malformed: stats.malformed, truncated: stats.truncated },
  };
  let sentSessions = 0;
  let sentEvents = 0;
  for (const batch of batches) {
    const answer = await send(o, batch, io);
    summary.requests++;
    summary.bytes += batch.bytes;
    summary.spanRows += answer.spanRows;
    summary.blobsStored += answer.blobsStored;
    summary.tenantTier = answer.tenantTier;
    summary.sessions.accepted += answer.accepted.length;
    summary.sessions.rejected += answer.rejected.length;
    const refused = answer.rejected.filter((r) => !r.reason.startsWith('blob'));
    for (const r of refused) summary.rejected.push({ id: r.id, reason: r.reason });
    // Events and usage are of what the server kept: a rejected session's are not in the store.
    const stored = storedOf(batch.sessions, refused);
    summary.events += stored.reduce((n, s) => n + s.events.length, 0);
    usageByModel(stored, price, summary.models);
    // Rejected sessions are recorded too: sent again only once they change.
    for (const s of batch.sessions) state.sessions[keyOf(s)] = fingerprint(s);
    sentSessions += batch.sessions.length;
    sentEvents += batch.sessions.reduce((n, s) => n + s.events.length, 0);
    if (o.progress)
      io.err(
        `\rsessions ${sentSessions}/${toSend.length} · events ${sentEvents} · ${(summary.bytes / 1e6).toFixed(1)} MB sent   `,
      );
    saveState(o.stateFile, stateAll);
  }
  if (o.progress && batches.length > 0) io.err('\n');
  for (const [f, mark] of marks) state.files[f] = mark;
  saveState(o.stateFile, stateAll);
  return summary;
}

/** The sessions of a batch the server did not reject (a session's rejection names its index in the batch). */
function storedOf(sessions: readonly AgentSession[], refused: readonly { index: number }[]): AgentSession[] {
  const gone = new Set(refused.map((r) => r.index));
  return sessions.filter((_, i) => !gone.has(i));
}

interface SyncAnswer {
  accepted: string[];
  rejected: { index: number; reason: string; id: string }[];
  blobsStored: number;
  spanRows: number;
  tenantTier: string;
}

/** One request; 429 and 503 are retried after their Retry-After, a few times. */
async function send(o: SyncOptions, batch: SyncBatch, io: SyncIo): Promise<SyncAnswer> {
  const body = JSON.stringify({ schemaVersion: 1, sessions: batch.sessions, blobs: batch.blobs });
  const headers: Record<string, string> = {
    authorization: `Bearer ${o.key}`,
    'x-service-app-id': o.appId,
    'content-type': 'application/json',
  };
  if (o.environment) headers['x-service-environment'] = o.environment;
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${o.url}/v1/agents/sync`, { method: 'POST', headers, body });
    } catch (e) {
      throw new SyncFailure(`cannot reach ${o.url}: ${(e as Error).message}`);
    }
    const text = await res.text();
    if (res.ok) return (JSON.parse(text) as { data: SyncAnswer }).data;
    if ((res.status === 429 || res.status === 503) && attempt < MAX_ATTEMPTS) {
      const wait = Math.min(30, Number(res.headers.get('retry-after')) || 1);
      io.err(`tracelake: the server answered ${res.status}; retrying in ${wait} s\n`);
      await sleep(wait * 1000);
      continue;
    }
    throw new SyncFailure(`the server answered ${res.status}: ${text.slice(0, 2000)}`);
  }
}

/** Transcript files: the paths given, else the agents' own directories. */
function discover(o: SyncOptions): { claude: string[]; codex: string[] } {
  const files =
    o.paths.length > 0
      ? o.paths.flatMap((p) => jsonlUnder(resolve(p)))
      : [...jsonlUnder(join(o.claudeDir, 'projects')), ...jsonlUnder(join(o.codexDir, 'sessions')).filter(isRollout)];
  return { claude: files.filter((f) => !isRollout(f)), codex: files.filter(isRollout) };
}

function isRollout(path: string): boolean {
  return /^rollout-.*\.jsonl$/.test(basename(path));
}

/** `.jsonl` files at `path` (a file, or a directory walked recursively), sorted. */
function jsonlUnder(path: string): string[] {
  let entries: Dirent[];
  try {
    if (statSync(path).isFile()) return path.endsWith('.jsonl') ? [path] : [];
    entries = readdirSync(path, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
    .sort();
}

/** The files read together: a Claude Code project directory (the one under `projects/`), else the file's own. */
function claudeGroup(file: string): string {
  const parts = file.split(sep);
  const at = parts.lastIndexOf('projects');
  return at >= 0 && at + 2 < parts.length ? parts.slice(0, at + 2).join(sep) : dirname(file);
}

function readAll(files: readonly string[]): TranscriptFile[] {
  return files.flatMap((path) => {
    try {
      return [{ path, text: readFileSync(path, 'utf8') }];
    } catch {
      return [];
    }
  });
}

function partsOf(e: AgentSession['events'][number]): ContentPart[] {
  return 'content' in e ? e.content : [];
}

/** A session whose files have been idle long enough: finished at its last event. */
function ended(s: AgentSession): AgentSession {
  return { ...s, endedAt: s.events[s.events.length - 1]?.timestamp ?? s.startedAt };
}

function add(into: ReadStats, from: ReadStats): void {
  into.lines += from.lines;
  into.unknown += from.unknown;
  into.malformed += from.malformed;
  into.truncated += from.truncated;
}

function loadState(path: string): StateFile {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as StateFile;
    if (parsed.version === 1 && typeof parsed.targets === 'object' && parsed.targets !== null) return parsed;
  } catch {
    // none yet, or unreadable: start afresh (the server stores nothing twice)
  }
  return { version: 1, targets: {} };
}

function saveState(path: string, state: StateFile): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(state));
  renameSync(temp, path);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((wake) => {
    const timer = setTimeout(wake, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        wake();
      },
      { once: true },
    );
  });
}
