/**
 * A git connection's life: the handshake a human completes, and what the API shows of it (spec:
 * "Git connection status"). Pure rules; the store keeps the rows, src/git talks to providers.
 *
 *   pending ──(the human picks a repository: local, or a token)──────────────▶ connected
 *   pending ──(GitHub installs the App and sends the human back)──▶ authorised ──(picks)──▶ connected
 *
 * `authorised` is the spec's "completed authorisation, repository not selected yet": connected is
 * true and repository null. A handshake not finished within HANDSHAKE_TTL_MS is void.
 */
import { createHash, randomBytes } from 'node:crypto';

export const GIT_PROVIDERS = ['local', 'github'] as const;
export type GitProviderName = (typeof GIT_PROVIDERS)[number];
export type Phase = 'pending' | 'authorised' | 'connected';

/** How long a human has to finish a handshake once it is started. */
export const HANDSHAKE_TTL_MS = 60 * 60 * 1000;

/** A connection as the store keeps it, without its credentials. */
export interface ConnectionState {
  provider: GitProviderName;
  phase: Phase;
  installationId: number | null;
  repository: string | null;
  branch: string | null;
  /** When the handshake's state token stops working; null once connected. */
  stateExpiresAtMs: number | null;
}

/** The spec's "Git connection status". */
export interface GitStatus {
  connected: boolean;
  provider: GitProviderName | null;
  installation_id: number | null;
  repository: string | null;
  branch: string | null;
}

/** What `GET …/git` answers for a connection (or none). A void handshake is no connection. */
export function statusOf(c: ConnectionState | null, nowMs: number): GitStatus {
  if (c === null || (c.phase === 'pending' && !handshakeOpen(c, nowMs))) {
    return { connected: false, provider: null, installation_id: null, repository: null, branch: null };
  }
  if (c.phase === 'pending')
    return { connected: false, provider: c.provider, installation_id: null, repository: null, branch: null };
  return {
    connected: true,
    provider: c.provider,
    installation_id: c.installationId,
    repository: c.phase === 'connected' ? c.repository : null,
    branch: c.phase === 'connected' ? c.branch : null,
  };
}

/** Whether the human may still use the handshake's state token (pick a repository, come back from GitHub). */
export function handshakeOpen(c: ConnectionState, nowMs: number): boolean {
  return c.stateExpiresAtMs !== null && nowMs < c.stateExpiresAtMs;
}

/** Whether the provider's repositories may be listed: authorisation is complete. */
export function isAuthorised(c: ConnectionState | null): c is ConnectionState {
  return c !== null && c.phase !== 'pending';
}

/** The repository and branch prompts and templates are read from; null until one is picked. */
export function selection(c: ConnectionState | null): { repository: string; branch: string } | null {
  if (c === null || c.phase !== 'connected' || c.repository === null || c.branch === null) return null;
  return { repository: c.repository, branch: c.branch };
}

/** A new handshake state token: 256 random bits, base64url. Only its hash is stored. */
export function newStateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the store keeps of a state token (a high-entropy token needs no slow hash). */
export function stateHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The web address of a GitHub whose REST API is `apiUrl`: github.com, or a GitHub Enterprise host. */
export function githubWebUrl(apiUrl: string): string {
  const url = new URL(apiUrl);
  if (url.hostname === 'api.github.com') return 'https://github.com';
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/v3$/, '');
  return `${url.origin}${path}`;
}

/** Where a human installs the GitHub App `slug`; GitHub sends them back with `state` (and the installation id). */
export function installationUrl(webUrl: string, slug: string, state: string): string {
  const apps = webUrl === 'https://github.com' ? 'apps' : 'github-apps';
  return `${webUrl}/${apps}/${encodeURIComponent(slug)}/installations/new?state=${encodeURIComponent(state)}`;
}

/** A repository a git provider serves, as the connection lists it. */
export interface RepositoryInfo {
  name: string;
  /** `owner/repo`. */
  full_name: string;
  default_branch: string;
}
