/**
 * The web UI's entry: sign-in (an API key or a session token, and its app id — asked of the server
 * when not given — kept in session storage), the navigation built from the page table and the server's capabilities, and the
 * page of the current hash route.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  appOf,
  get,
  loadCredentials,
  saveCredentials,
  useCredentials,
  type Capabilities,
  type Credentials,
} from './api.js';
import { PAGES } from './pages.js';
import { href, match, useLocation } from './router.js';

declare const __TRACELAKE_VERSION__: string;

/**
 * An app id is a UUID. Browsers compile `pattern` with the `v` flag, where a bare `-` in a class is
 * an error that switches the check off: the hyphens stand outside the classes.
 */
const APP_ID_PATTERN = '[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}';

function SignIn({ onSignIn, reason }: { onSignIn: (c: Credentials) => void; reason: string | null }) {
  const [token, setToken] = useState('');
  const [appId, setAppId] = useState('');
  const [error, setError] = useState<string | null>(reason);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const credential = token.trim().replace(/^Bearer\s+/i, '');
    setBusy(true);
    try {
      // A key belongs to one app and a session token names one: the server says which.
      const c = { token: credential, appId: appId.trim() || (await appOf(credential)) };
      // Any read the credentials allow proves them; capabilities say which areas exist.
      await get('/v1/traces?limit=1', c).catch(async (err: { status?: number; code?: string }) => {
        if (err.status === 403) return; // valid, but may not list traces
        throw err;
      });
      onSignIn(c);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} aria-label="Sign in">
        <h1>Tracelake</h1>
        <p>Sign in with an API key (or a session token). It stays in this browser tab only.</p>
        <label>
          API key or session token
          <input
            name="token"
            type="password"
            autocomplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
            required
          />
        </label>
        <label>
          App id <span class="hint">(optional: found from the key when left empty)</span>
          <input
            name="app"
            value={appId}
            onInput={(e) => setAppId((e.target as HTMLInputElement).value)}
            pattern={APP_ID_PATTERN}
            title="An app id: a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e"
          />
        </label>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function App() {
  const [credentials, setCredentials] = useState<Credentials | null>(loadCredentials);
  const [reason, setReason] = useState<string | null>(null);
  const [caps, setCaps] = useState<Capabilities | null>(null);
  const loc = useLocation();
  useCredentials(credentials, () => {
    saveCredentials(null);
    setCredentials(null);
    setReason('Your credentials were refused (revoked or expired?): sign in again.');
  });
  useEffect(() => {
    get<{ data: Capabilities }>('/v1/capabilities', null).then(
      (r) => setCaps(r.data),
      () => undefined,
    );
  }, []);
  if (!credentials) {
    return (
      <SignIn
        reason={reason}
        onSignIn={(c) => {
          saveCredentials(c);
          useCredentials(c, () => undefined);
          setCredentials(c);
          setReason(null);
        }}
      />
    );
  }
  const features = caps?.features ?? {};
  const offered = (feature?: string) => !feature || !caps || features[feature] === true;
  const found = PAGES.map((p) => ({ page: p, params: match(p.path, loc.path) })).find((x) => x.params !== null);
  const Page = found && offered(found.page.feature) ? found.page.component : null;
  return (
    <div class="shell">
      <nav class="top" aria-label="Areas">
        <a class="brand" href={href('/traces')}>
          Tracelake
        </a>
        {PAGES.filter((p) => p.nav && offered(p.feature)).map((p) => (
          <a
            key={p.path}
            href={href(p.path)}
            class={loc.path === p.path || loc.path.startsWith(`${p.path}/`) ? 'current' : ''}
          >
            {p.nav}
          </a>
        ))}
        <span class="spacer" />
        <span class="who" title={credentials.appId}>
          app {credentials.appId.slice(0, 8)} · {caps?.mode ?? ''} · v{__TRACELAKE_VERSION__}
        </span>
        <button
          type="button"
          class="link"
          onClick={() => {
            saveCredentials(null);
            setCredentials(null);
          }}
        >
          Sign out
        </button>
      </nav>
      <main>
        {Page ? (
          <Page loc={loc} params={found!.params!} features={features} />
        ) : (
          <p class="error">Nothing at {loc.path} on this server.</p>
        )}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
