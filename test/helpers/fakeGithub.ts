/**
 * A local fake of the few GitHub REST endpoints the `github` provider uses (docs/decisions.md,
 * "Git"), on 127.0.0.1 and a free port: App JWTs are verified against the App's public key,
 * installation tokens are minted and checked per installation, fine-grained tokens see every
 * repository. It records every request, so tests can say what the server asked for.
 */
import { createHash, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRepo {
  owner: string;
  name: string;
  defaultBranch: string;
  /** Branch → commit sha. */
  branches: Record<string, string>;
  /** Commit sha → the files of that commit (path → content). */
  commits: Record<string, Record<string, string>>;
}

export interface FakeOptions {
  app: { id: number; publicKey: KeyObject };
  /** Installation id → the full names of the repositories it reaches. */
  installations: Record<number, string[]>;
  /** The fine-grained token that sees every repository. */
  token: string;
  repos: FakeRepo[];
}

/** Git's blob id of `content`. */
export function blobSha(content: string): string {
  const bytes = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

type Caller = { kind: 'app' } | { kind: 'installation'; id: number } | { kind: 'token' } | null;

export class FakeGitHub {
  readonly requests: { method: string; path: string; caller: string }[] = [];

  private constructor(
    readonly url: string,
    private readonly close_: () => Promise<void>,
  ) {}

  static async start(options: FakeOptions): Promise<FakeGitHub> {
    let fake: FakeGitHub;
    const server = createServer((req, res) => void fake.handle(options, req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    fake = new FakeGitHub(`http://127.0.0.1:${port}`, () => new Promise((resolve) => server.close(() => resolve())));
    return fake;
  }

  close(): Promise<void> {
    return this.close_();
  }

  private caller(options: FakeOptions, header: string | undefined): Caller {
    const [scheme, value] = (header ?? '').split(' ');
    if (!value) return null;
    if (/^bearer$/i.test(scheme!) && value.split('.').length === 3)
      return verifyJwt(value, options.app) ? { kind: 'app' } : null;
    const inst = /^ghs_installation_(\d+)$/.exec(value);
    if (inst && options.installations[Number(inst[1])]) return { kind: 'installation', id: Number(inst[1]) };
    return value === options.token ? { kind: 'token' } : null;
  }

  private async handle(options: FakeOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
    for await (const _ of req);
    const url = new URL(req.url!, 'http://x');
    const caller = this.caller(options, req.headers.authorization);
    this.requests.push({ method: req.method!, path: url.pathname, caller: caller?.kind ?? 'none' });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!caller) return send(401, { message: 'Bad credentials' });
    const visible = (full: string) =>
      caller.kind === 'token' || (caller.kind === 'installation' && options.installations[caller.id]!.includes(full));
    const repoView = (r: FakeRepo) => ({
      name: r.name,
      full_name: `${r.owner}/${r.name}`,
      default_branch: r.defaultBranch,
      private: true,
    });
    let m: RegExpExecArray | null;

    if ((m = /^\/app\/installations\/(\d+)$/.exec(url.pathname)) && req.method === 'GET') {
      if (caller.kind !== 'app') return send(401, { message: 'A JSON web token could not be decoded' });
      const id = Number(m[1]);
      return options.installations[id]
        ? send(200, { id, app_id: options.app.id, account: { login: 'acme' } })
        : send(404, { message: 'Not Found' });
    }
    if ((m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname)) && req.method === 'POST') {
      if (caller.kind !== 'app') return send(401, { message: 'A JSON web token could not be decoded' });
      if (!options.installations[Number(m[1])]) return send(404, { message: 'Not Found' });
      return send(201, {
        token: `ghs_installation_${m[1]}`,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        permissions: { contents: 'read' },
        repository_selection: 'selected',
      });
    }
    if (url.pathname === '/installation/repositories' && caller.kind === 'installation') {
      const repos = options.repos.filter((r) => visible(`${r.owner}/${r.name}`)).map(repoView);
      return send(200, { total_count: repos.length, repositories: repos });
    }
    if (url.pathname === '/user/repos' && caller.kind === 'token') return send(200, options.repos.map(repoView));

    if ((m = /^\/repos\/([^/]+)\/([^/]+)\/(.+)$/.exec(url.pathname))) {
      const repo = options.repos.find((r) => r.owner === m![1] && r.name === m![2]);
      if (!repo || !visible(`${repo.owner}/${repo.name}`) || caller.kind === 'app')
        return send(404, { message: 'Not Found' });
      const rest = m[3]!;
      const commitOf = (ref: string) => repo.branches[ref] ?? (repo.commits[ref] ? ref : undefined);
      if (rest === 'branches')
        return send(
          200,
          Object.entries(repo.branches).map(([name, sha]) => ({ name, commit: { sha } })),
        );
      if ((m = /^commits\/(.+)$/.exec(rest))) {
        const sha = commitOf(decodeURIComponent(m[1]!));
        return sha ? send(200, { sha }) : send(422, { message: 'No commit found for SHA' });
      }
      if ((m = /^contents\/(.+)$/.exec(rest))) {
        const sha = commitOf(url.searchParams.get('ref') ?? repo.branches[repo.defaultBranch]!);
        const path = decodeURIComponent(m[1]!);
        const content = sha ? repo.commits[sha]![path] : undefined;
        if (content === undefined) return send(404, { message: 'Not Found' });
        return send(200, {
          type: 'file',
          encoding: 'base64',
          path,
          sha: blobSha(content),
          size: Buffer.byteLength(content),
          content: Buffer.from(content).toString('base64'),
        });
      }
      if ((m = /^git\/trees\/(.+)$/.exec(rest))) {
        const files = repo.commits[decodeURIComponent(m[1]!)];
        if (!files) return send(404, { message: 'Not Found' });
        return send(200, {
          sha: m[1],
          truncated: false,
          tree: Object.entries(files).map(([path, content]) => ({
            path,
            type: 'blob',
            mode: '100644',
            sha: blobSha(content),
            size: Buffer.byteLength(content),
          })),
        });
      }
    }
    return send(404, { message: 'Not Found' });
  }
}

/** An RS256 JWT of the App: signed by its key, issued by its id, not expired. */
function verifyJwt(token: string, app: FakeOptions['app']): boolean {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), app.publicKey, Buffer.from(signature, 'base64url')))
    return false;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iss?: unknown; exp?: number };
  return String(claims.iss) === String(app.id) && typeof claims.exp === 'number' && claims.exp * 1000 > Date.now();
}
