/**
 * The coding-agent session, version 1: one agent-neutral shape that every transcript reader
 * produces (core/agents/readers) and `POST /v1/agents/sync` takes. The typia tags are the wire
 * contract's limits; contract/agents.ts builds the validators from these types.
 *
 * A session is an ordered list of events. Every event has its own id (stable across re-reads of a
 * growing transcript), a timestamp, and `parentId`: the event it nests under — the `subagent_start`
 * of the sub-agent whose work it is — or null at the top level. Token counts follow Anthropic's
 * split: `inputTokens` excludes prompt-cache reads and writes, which are counted on their own.
 * Large contents are not inline: a content part names a blob (sent alongside) by its SHA-256.
 */
import type { tags } from 'typia';
import type { Count, DateTime, Id } from '../scalars.js';

export const SESSION_SCHEMA_VERSION = 1;

type Sha256 = string & tags.Pattern<'^[0-9a-f]{64}$'>;
/** Inline text; larger contents go in blobs. */
type Text = string & tags.MaxLength<1048576>;

export interface AgentSession {
  /** The agent's own session id (Claude Code's sessionId, Codex's session_meta id). */
  id: Id;
  agent: {
    /** `claude-code`, `codex`, `gemini-cli`, …: becomes the spans' service_name. */
    name: string & tags.Pattern<'^[a-z0-9][a-z0-9._-]{0,63}$'>;
    version?: (string & tags.MaxLength<64>) | null;
  };
  startedAt: DateTime;
  /** Set once the transcript is known to be finished; pending tool calls are then written without a result. */
  endedAt?: DateTime | null;
  /** A title (Claude Code's summary line), when the agent wrote one. */
  title?: (string & tags.MaxLength<1024>) | null;
  cwd?: (string & tags.MaxLength<4096>) | null;
  git?: {
    repository?: (string & tags.MaxLength<1024>) | null;
    branch?: (string & tags.MaxLength<256>) | null;
    commit?: (string & tags.MaxLength<64>) | null;
  } | null;
  /** Who ran the agent, when known (becomes the trace's user_id). */
  userId?: (string & tags.MaxLength<256>) | null;
  events: AgentEvent[] & tags.MaxItems<100000>;
}

export type AgentEvent =
  | UserMessageEvent
  | AssistantMessageEvent
  | ReasoningEvent
  | ToolCallEvent
  | ToolResultEvent
  | SubagentStartEvent
  | SubagentEndEvent
  | SystemEvent;

export interface EventBase {
  id: Id;
  parentId?: Id | null;
  timestamp: DateTime;
}

/** Text, or a blob sent in the same request (or an earlier one) named by its hash. */
export type ContentPart = { type: 'text'; text: Text } | BlobPart;

export interface BlobPart {
  type: 'blob';
  sha256: Sha256;
  mediaType: string & tags.MinLength<1> & tags.MaxLength<255>;
  bytes: Count;
  /** A file name, when the agent knew one. */
  name?: (string & tags.MaxLength<1024>) | null;
}

export interface UserMessageEvent extends EventBase {
  type: 'user_message';
  content: ContentPart[] & tags.MaxItems<1000>;
}

export interface TokenUsage {
  /** Input tokens not read from or written to a prompt cache. */
  inputTokens: Count;
  outputTokens: Count;
  cacheReadTokens?: Count;
  cacheCreationTokens?: Count;
  /** Part of `outputTokens` spent reasoning, when the agent reports it. */
  reasoningTokens?: Count;
}

export interface AssistantMessageEvent extends EventBase {
  type: 'assistant_message';
  model: string & tags.MinLength<1> & tags.MaxLength<256>;
  content: ContentPart[] & tags.MaxItems<1000>;
  usage?: TokenUsage | null;
  stopReason?: (string & tags.MaxLength<64>) | null;
}

export interface ReasoningEvent extends EventBase {
  type: 'reasoning';
  text: Text;
}

export interface ToolCallEvent extends EventBase {
  type: 'tool_call';
  /** The agent's id of the call; its result names it. */
  callId: Id;
  name: string & tags.MinLength<1> & tags.MaxLength<256>;
  /** The arguments as the agent sent them (an object, or text for free-form tools). */
  input?: unknown;
}

export interface ToolResultEvent extends EventBase {
  type: 'tool_result';
  callId: Id;
  content: ContentPart[] & tags.MaxItems<1000>;
  isError?: boolean;
}

export interface SubagentStartEvent extends EventBase {
  type: 'subagent_start';
  /** The agent's id of the sub-agent; its events name this event as their parent. */
  agentId: Id;
  name?: (string & tags.MaxLength<256>) | null;
  prompt?: Text | null;
  /** The tool call that launched it (Claude Code's Task), when known. */
  callId?: Id | null;
}

export interface SubagentEndEvent extends EventBase {
  type: 'subagent_end';
  agentId: Id;
  result?: Text | null;
}

export interface SystemEvent extends EventBase {
  type: 'system';
  /** `compaction` (a summary replaced earlier context), `error`, `info`, … */
  kind: string & tags.MinLength<1> & tags.MaxLength<64>;
  text?: Text | null;
}

/** A blob of the sync request (spec: Blob). */
export interface AgentBlob {
  sha256: Sha256;
  mediaType: string & tags.MinLength<1> & tags.MaxLength<255>;
  bytes: Count;
  /** Base64 of the bytes. */
  data: string;
}
