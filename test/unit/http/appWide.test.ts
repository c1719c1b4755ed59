import t from 'tap';
import { permissionsFor } from '../../../src/core/permissions.js';
import { authorizeAppWide } from '../../../src/http/appWide.js';
import type { AnyRoute } from '../../../src/http/route.js';

t.test('authorizeAppWide: a pin below production changes app-wide objects under its own label only', async (t) => {
  const p = {
    kind: 'key' as const,
    tenantId: 't',
    appId: 'a',
    environmentId: 'e-dev',
    readEnvironmentId: 'e-dev',
    keyId: 'k',
    role: 'full_access' as const,
    permissions: permissionsFor('full_access'),
    plan: null,
  };
  const dev = { ...p, pin: { environmentId: 'e-dev', kind: 'development' as const, name: 'dev' } };
  const input = (labels: string[]) => ({ params: {}, query: {}, body: { labels }, headers: {} });
  const labelled = {
    appWide: { what: 'move prompt labels', labels: (i: { body: { labels: string[] } }) => i.body.labels },
  } as unknown as AnyRoute;
  const unlabelled = { appWide: { what: 'change score configs' } } as unknown as AnyRoute;
  t.doesNotThrow(() => authorizeAppWide(dev, {} as AnyRoute, input([])), 'a route that changes nothing app-wide');
  t.doesNotThrow(() => authorizeAppWide(p, unlabelled, input([])), 'an unpinned credential');
  t.doesNotThrow(() => authorizeAppWide(dev, labelled, input(['dev'])), 'its own label');
  t.throws(() => authorizeAppWide(dev, labelled, input(['production'])), {
    code: 'forbidden',
    message: /pinned to the development environment "dev" and may not move prompt labels.*for the "dev" label alone/,
  });
  t.throws(() => authorizeAppWide(dev, unlabelled, input([])), {
    code: 'forbidden',
    message: /may not change score configs: .*production-pinned credential may$/,
  });
});
