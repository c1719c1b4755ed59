/**
 * The reference document of this version: the route table given, with the notes its routes carry,
 * the unbuilt endpoints and the catalog's JSON schemas. The server serves it (routes/reference.ts)
 * and the build writes it to docs/openapi.json (write.ts), so the two are the same bytes.
 */
import { CATALOG_SCHEMAS } from '../contract/catalog.js';
import { UNBUILT } from '../http/unbuilt.js';
import { API_DESCRIPTION } from './description.js';
import { buildDocument, type OpenApiDocument, type RouteShape, type SchemaCollection } from './document.js';
import { ERROR_EXAMPLES } from './examples.js';
import { TAGS } from './tags.js';

export function referenceDocument(routes: readonly RouteShape[], version: string): OpenApiDocument {
  return buildDocument({
    version,
    description: API_DESCRIPTION,
    routes,
    unbuilt: UNBUILT,
    tagOrder: TAGS,
    // typia's schema interfaces have no index signature; the document reads them as plain records.
    catalog: CATALOG_SCHEMAS as SchemaCollection,
    errorExamples: ERROR_EXAMPLES,
  });
}

/** The document as the file and the endpoint carry it: indented JSON and a final newline. */
export function documentText(doc: OpenApiDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
