/**
 * The API reference (unauthenticated, both modes): `GET /v1/openapi.json`, the OpenAPI 3.1 document
 * built from the documented route table (the same bytes as docs/openapi.json on every server, with
 * or without the operator API or the fault routes), and `GET /v1/reference`, the same document as
 * a page. Both are built once, at the first request, and their modules loaded then: they hold the
 * schema catalog, a large generated module, and imported at the start they made every start's main
 * thread slower (native-bench/RESULTS.md, "Figures behind the code"), for a page few servers are
 * asked for.
 */
import { bytes } from '../reply.js';
import { route, type AnyRoute } from '../route.js';

/** The page needs no script, and loads nothing but itself. */
const PAGE_HEADERS = { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" };

/** `documentedRoutes`: the table the reference describes (routeTable.ts), passed in so the two modules do not import each other. */
export function referenceRoutes(documentedRoutes: () => AnyRoute[]) {
  let built: Promise<{ json: string; html: string }> | null = null;
  const reference = (version: string) =>
    (built ??= (async () => {
      const [{ documentText, referenceDocument }, { renderReference }] = await Promise.all([
        import('../../openapi/reference.js'),
        import('../../openapi/html.js'),
      ]);
      const doc = referenceDocument(documentedRoutes(), version);
      return { json: documentText(doc), html: renderReference(doc) };
    })());
  return [
    route({
      method: 'GET',
      path: '/v1/openapi.json',
      permission: 'none',
      note: {
        tag: 'Reference',
        summary: 'This document',
        description: 'The OpenAPI 3.1 document, the same bytes as `docs/openapi.json` in the repository.',
        answers: [
          {
            status: 200,
            description: 'The OpenAPI document.',
            media: { 'application/json': 'An OpenAPI 3.1 document.' },
          },
        ],
      },
      handler: async (_input, ctx) => bytes((await reference(ctx.services.version)).json, 'application/json'),
    }),
    route({
      method: 'GET',
      path: '/v1/reference',
      permission: 'none',
      note: {
        tag: 'Reference',
        summary: 'This document as a page',
        description: 'The same document rendered as one self-contained HTML page (no scripts, nothing fetched).',
        answers: [{ status: 200, description: 'The reference page.', media: { 'text/html': 'An HTML page.' } }],
      },
      handler: async (_input, ctx) =>
        bytes((await reference(ctx.services.version)).html, 'text/html; charset=utf-8', 200, PAGE_HEADERS),
    }),
  ];
}
