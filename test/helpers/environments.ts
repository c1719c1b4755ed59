/** Environments a test makes in the bootstrap app. */
import type { Test } from 'tap';
import { call, createKey, type Credentials, type TestServer } from './server.js';

/** A development environment `dev` in the root's app; its id. */
export async function devEnvironment(t: Test, server: TestServer, root: Credentials): Promise<string> {
  const dev = await call(server, 'POST', '/v1/environments', {
    auth: root,
    body: { name: 'dev', kind: 'development' },
  });
  t.equal(dev.status, 201, 'a dev environment');
  return dev.body.data.id as string;
}

/** {@link devEnvironment}, and a Full Access key pinned to it. */
export async function devWithAdmin(
  t: Test,
  server: TestServer,
  root: Credentials,
): Promise<{ envId: string; devAdmin: Credentials }> {
  const envId = await devEnvironment(t, server, root);
  const devAdmin = await createKey(server, root, { name: 'dev-admin', role: 'Full Access', environment_name: 'dev' });
  return { envId, devAdmin };
}
