/**
 * Secret scrubbing of agent sessions before anything is stored. Detection is secretlint's maintained
 * rule set (preset-recommend: OpenAI, Anthropic, AWS, GitHub, Slack, GCP, npm, SendGrid, Shopify,
 * Linear, 1Password, private keys, basic auth and database URLs), run by its engine, plus pattern
 * rules for what it lacks: GitLab, Stripe and Google API keys, JWTs, Authorization and API key
 * headers, our own `sk_service_` keys, secret-named assignments anywhere, and every value of a
 * `.env` file (a tool result of a tool call that names one). Each finding is replaced by
 * `[REDACTED:<kind>]`.
 *
 * The texts of many sessions are linted as one document (one engine run per request, not per session
 * or string); the separator cannot be part of any rule's match, so nothing is joined across texts.
 */
import type { AgentEvent, AgentSession, ContentPart } from './session.js';

const SEPARATOR = '\n\u0000\n';

/** Our pattern rules: kind → regular expressions (secretlint's string form). */
const PATTERNS: Record<string, string[]> = {
  gitlab_token: ['/\\b(?:glpat|gldt|glrt|glptt|glsoat|glcbt|glimt|glagent|glffct|glft|glwt)-[0-9A-Za-z_-]{20,}/g'],
  stripe_key: ['/\\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\\b/g', '/\\bwhsec_[0-9A-Za-z]{24,}\\b/g'],
  aws_credentials: [
    '/\\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)(?![A-Z2-7]*EXAMPLE)[A-Z2-7]{16}\\b/g',
    '/(?<=\\baws_(?:secret_access_key|session_token)["\']?[ \\t]*[:=][ \\t]*["\']?)[A-Za-z0-9/+=]{16,}/gi',
  ],
  google_api_key: ['/\\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g'],
  jwt: ['/\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}/g'],
  authorization_header: [
    '/(?<=\\b(?:Proxy-)?Authorization"?\\s*[:=]\\s*"?)(?:(?:Bearer|Basic|Token|Digest|ApiKey)\\s+)?[^\\s"\',;]+/gi',
  ],
  api_key_header: ['/(?<=\\b(?:x-api-key|api-key|x-goog-api-key|x-auth-token)"?\\s*[:=]\\s*"?)[^\\s"\',;]+/gi'],
  tracelake_key: ['/\\bsk_service_[0-9A-Za-z]{32,}\\b/g'],
  secret_assignment: [
    '/(?<=\\b[A-Za-z0-9_]*(?:API_KEY|APIKEY|SECRET|TOKEN|PASSWORD|PASSWD|PRIVATE_KEY|ACCESS_KEY|CLIENT_SECRET|CREDENTIALS)[A-Za-z0-9_]*["\']?[ \\t]*[:=][ \\t]*["\']?)[^\\s"\'`,;]{8,}/g',
  ],
};

/** Every value of a `.env` file, when the text is known to be one. */
const DOTENV = {
  name: 'dotenv_value',
  filePathGlobs: ['**/.env', '**/.env.*', '.env', '.env.*'],
  patterns: ['/(?<=^[ \\t]*(?:export[ \\t]+)?[A-Za-z_][A-Za-z0-9_.]*[ \\t]*=[ \\t]*)\\S.*$/gm'],
};

/**
 * secretlint's engine with our rules, loaded at the first scrub rather than by every compute thread's
 * start (native-bench/RESULTS.md, "Figures behind the code"): most deployments never sync an agent
 * session.
 */
let engine: ReturnType<typeof importEngine> | undefined;
const loadEngine = () => (engine ??= importEngine());

function importEngine() {
  return Promise.all([
    import('@secretlint/core'),
    import('@secretlint/profiler'),
    import('@secretlint/secretlint-rule-pattern'),
    import('@secretlint/secretlint-rule-preset-recommend'),
  ]).then(([core, profiler, { creator: pattern }, { creator: recommended }]) => {
    // secretlint's engine marks the start and end of each rule on one profiler per thread, which
    // keeps every mark it ever saw and, for each new one, searches all it kept (and Node's timeline
    // keeps the marks too). Scrubbing many sessions in one long-lived worker so grew quadratically,
    // until a large sync spent most of its time there (native-bench/RESULTS.md, "Figures behind the
    // code"). Nothing reads those measures; the marks are turned off.
    profiler.secretLintProfiler.mark = () => undefined;
    return {
      lintSource: core.lintSource,
      rules: [
        { id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended },
        ...Object.entries(PATTERNS).map(([kind, patterns]) => ({
          id: `tracelake/${kind}`,
          rule: pattern,
          options: { patterns: [{ name: kind, patterns }] },
        })),
        { id: 'tracelake/dotenv_value', rule: pattern, options: { patterns: [DOTENV] } },
      ],
    };
  });
}

/** Kinds of secretlint's own rules, by rule id suffix. */
const KINDS: Record<string, string> = {
  openai: 'openai_api_key',
  anthropic: 'anthropic_api_key',
  aws: 'aws_credentials',
  github: 'github_token',
  slack: 'slack_token',
  gcp: 'gcp_credentials',
  npm: 'npm_token',
  sendgrid: 'sendgrid_key',
  shopify: 'shopify_token',
  linear: 'linear_key',
  '1password': 'onepassword_token',
  privatekey: 'private_key',
  basicauth: 'basic_auth',
  'database-connection-string': 'database_url',
};

const GENERIC = new Set(['secret_assignment', 'dotenv_value']);

/** The marker that replaces a secret of `kind`. */
export function marker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

/** `@secretlint/secretlint-rule-github` → github_token; `tracelake/jwt` → jwt. */
export function kindOf(ruleId: string): string {
  if (ruleId.startsWith('tracelake/')) return ruleId.slice('tracelake/'.length);
  const name = ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
  return KINDS[name] ?? name;
}

/** How many secrets of each kind were replaced. */
export type Findings = Record<string, number>;

/**
 * The texts with every secret replaced. `filePath` names the file the texts came from, when known
 * (a `.env` file has all its values redacted).
 */
export async function scrubTexts(
  texts: readonly string[],
  filePath = 'session.txt',
  findings: Findings = {},
): Promise<string[]> {
  if (texts.length === 0) return [];
  const content = texts.join(SEPARATOR);
  const { lintSource, rules } = await loadEngine();
  const result = await lintSource({
    source: { content, filePath, ext: '', contentType: 'text' },
    options: { config: { rules } },
  });
  // At one place the specific rule's name wins over the generic ones (an assignment, a .env value).
  const ranges = result.messages
    .map((m) => ({ start: m.range[0], end: m.range[1], kind: kindOf(m.ruleId) }))
    .sort((a, b) => a.start - b.start || Number(GENERIC.has(a.kind)) - Number(GENERIC.has(b.kind)) || b.end - a.end);
  const out: string[] = [];
  let offset = 0;
  let r = 0;
  for (const text of texts) {
    const end = offset + text.length;
    let pieces = '';
    let at = offset;
    // Ranges are sorted: the ones inside this text come next; an overlapped range is folded in.
    for (; r < ranges.length && ranges[r]!.start < end; r++) {
      const { start, end: stop, kind } = ranges[r]!;
      if (stop <= at) continue;
      if (start < at) {
        // Overlaps the secret just replaced: one marker for both.
        at = Math.min(stop, end);
        continue;
      }
      pieces += content.slice(at, start) + marker(kind);
      findings[kind] = (findings[kind] ?? 0) + 1;
      at = Math.min(stop, end);
    }
    out.push(pieces + content.slice(at, end));
    offset = end + SEPARATOR.length;
  }
  return out;
}

/** A string of the session that may hold a secret, and where to put its scrubbed text. */
interface Slot {
  text: string;
  set(text: string): void;
}

/** Paths of `.env` files named in a tool call's input (a read of one, `cat .env`, …). */
const DOTENV_NAMED = /(?:^|[\s/'"=])\.env(?:\.[\w.-]+)?(?=$|[\s'",;)\]])/;

/**
 * The session with every secret in its texts replaced (a new object). Texts are message and tool
 * contents, tool inputs (every string inside), reasoning, sub-agent prompts and results, system
 * notices, the title and the git repository URL (which may carry credentials).
 */
export async function scrubSession(session: AgentSession, findings: Findings = {}): Promise<AgentSession> {
  return (await scrubSessions([session], findings))[0]!;
}

/**
 * Many sessions scrubbed as one: their texts go through the engine in one run (and the texts of
 * `.env` files in a second), since each run has a fixed cost — the rules are built and their
 * patterns compiled anew — that one run per session paid again and again.
 */
export async function scrubSessions(
  sessions: readonly AgentSession[],
  findings: Findings = {},
): Promise<AgentSession[]> {
  const general: Slot[] = [];
  const dotenv: Slot[] = [];
  const slot = (to: Slot[], get: () => string | null | undefined, set: (v: string) => void) => {
    const text = get();
    if (typeof text === 'string' && text !== '') to.push({ text, set });
  };
  const out = sessions.map((session) => {
    const s = structuredClone(session);
    slot(
      general,
      () => s.title,
      (v) => (s.title = v),
    );
    if (s.git)
      slot(
        general,
        () => s.git!.repository,
        (v) => (s.git!.repository = v),
      );
    const envCalls = new Set(
      s.events
        .filter((e) => e.type === 'tool_call' && DOTENV_NAMED.test(JSON.stringify(e.input ?? '')))
        .map((e) => (e as { callId: string }).callId),
    );
    for (const e of s.events) {
      const to = e.type === 'tool_result' && envCalls.has(e.callId) ? dotenv : general;
      slotsOf(e, to, slot);
    }
    return s;
  });
  for (const [slots, path] of [
    [general, 'session.txt'],
    [dotenv, '.env'],
  ] as const) {
    const clean = await scrubTexts(
      slots.map((x) => x.text),
      path,
      findings,
    );
    for (const [i, x] of slots.entries()) x.set(clean[i]!);
  }
  return out;
}

type SlotFn = (to: Slot[], get: () => string | null | undefined, set: (v: string) => void) => void;

function slotsOf(e: AgentEvent, to: Slot[], slot: SlotFn): void {
  switch (e.type) {
    case 'user_message':
    case 'assistant_message':
    case 'tool_result':
      contentSlots(e.content, to, slot);
      break;
    case 'reasoning':
      slot(
        to,
        () => e.text,
        (v) => (e.text = v),
      );
      break;
    case 'tool_call':
      if (typeof e.input === 'string')
        slot(
          to,
          () => e.input as string,
          (v) => (e.input = v),
        );
      else jsonSlots(e.input, to, slot, 0);
      break;
    case 'subagent_start':
      slot(
        to,
        () => e.prompt,
        (v) => (e.prompt = v),
      );
      break;
    case 'subagent_end':
      slot(
        to,
        () => e.result,
        (v) => (e.result = v),
      );
      break;
    case 'system':
      slot(
        to,
        () => e.text,
        (v) => (e.text = v),
      );
      break;
  }
}

function contentSlots(parts: ContentPart[], to: Slot[], slot: SlotFn): void {
  for (const p of parts)
    if (p.type === 'text')
      slot(
        to,
        () => p.text,
        (v) => (p.text = v),
      );
}

/** How deep tool arguments may nest; the sync endpoint rejects a session with deeper ones. */
export const MAX_INPUT_DEPTH = 64;

/** Stands in for arguments nested past MAX_INPUT_DEPTH: nothing is kept that was not scrubbed. */
export const TOO_DEEP = `[nested deeper than ${MAX_INPUT_DEPTH} levels: not kept]`;

/**
 * Every string inside a JSON value (tool arguments) of at most MAX_INPUT_DEPTH levels of objects
 * and arrays (`depth`: the levels above `v`); one nested deeper is replaced by TOO_DEEP rather than
 * left unscrubbed.
 */
function jsonSlots(v: unknown, to: Slot[], slot: SlotFn, depth: number): void {
  if (typeof v !== 'object' || v === null) return;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (typeof x === 'string')
      slot(
        to,
        () => x,
        (s) => (o[k] = s),
      );
    else if (typeof x === 'object' && x !== null && depth + 1 >= MAX_INPUT_DEPTH) o[k] = TOO_DEEP;
    else jsonSlots(x, to, slot, depth + 1);
  }
}

/** Levels of objects and arrays in a JSON value (a scalar 0, `{}` 1, `{a: []}` 2); past `limit + 1` it stops counting. */
export function nestingDepth(v: unknown, limit: number): number {
  if (typeof v !== 'object' || v === null) return 0;
  if (limit < 0) return 1;
  let deepest = 0;
  for (const x of Object.values(v)) {
    deepest = Math.max(deepest, nestingDepth(x, limit - 1));
    if (deepest > limit) break;
  }
  return 1 + deepest;
}

/** Media types whose blobs are text, and so scrubbed like any text. */
export function isTextMedia(mediaType: string): boolean {
  const t = mediaType.split(';')[0]!.trim().toLowerCase();
  return (
    t.startsWith('text/') ||
    t === 'application/json' ||
    t.endsWith('+json') ||
    t === 'application/xml' ||
    t.endsWith('+xml') ||
    t === 'application/x-ndjson' ||
    t === 'application/javascript' ||
    t === 'application/x-sh' ||
    t === 'application/yaml' ||
    t === 'application/x-yaml'
  );
}
