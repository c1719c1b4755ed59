/** src/openapi/document.ts: the OpenAPI document from routes, notes and a schema collection. */
import t from 'tap';
import {
  buildDocument,
  canonical,
  catalogRef,
  noteKey,
  openApiPath,
  operationId,
  UNBUILT_TAG,
  type DocumentInput,
  type RouteShape,
} from '../../../src/openapi/document.js';

/** A catalog as typia emits it: `Catalog` names each type by a $ref. */
const CATALOG: DocumentInput['catalog'] = {
  components: {
    schemas: {
      Catalog: {
        type: 'object',
        properties: {
          ThingParams: { $ref: '#/components/schemas/ThingParams' },
          ThingQuery: { $ref: '#/components/schemas/ThingQuery' },
          Thing: { $ref: '#/components/schemas/Thing' },
          Empty: { $ref: '#/components/schemas/Empty' },
        },
      },
      ThingParams: {
        type: 'object',
        properties: { id: { type: 'string', format: 'uuid', description: 'The thing.' } },
        required: ['id'],
      },
      ThingQuery: {
        type: 'object',
        properties: { limit: { type: 'integer' }, q: { type: 'string' } },
        required: ['q'],
      },
      Thing: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], description: 'A thing.' },
      Empty: { type: 'object' },
      Recordstringunknown: {
        type: 'object',
        additionalProperties: {},
        description: 'Construct a type with a set of properties K of type T',
      },
    },
  },
};

const ROUTES: RouteShape[] = [
  { method: 'GET', path: '/v1/things/:id', permission: 'trace.read' },
  { method: 'POST', path: '/v1/things', permission: 'admin' },
  { method: 'POST', path: '/v1/ingest', permission: 'trace.write', body: 'raw', rawKeyOnly: true },
  { method: 'GET', path: '/health', permission: 'none' },
  { method: 'DELETE', path: '/v1/things/:id', permission: 'admin', body: 'json' },
  { method: 'GET', path: '/v1/traces/search', permission: 'trace.read' },
  { method: 'GET', path: '/v1/empty', permission: 'trace.read' },
  { method: 'POST', path: '/v1/operator/things', permission: 'operator' },
];

function input(over: Partial<DocumentInput> = {}): DocumentInput {
  return {
    version: '9.9.9',
    description: 'About.',
    routes: ROUTES,
    unbuilt: [['GET', '/v1/later/:laterId']],
    catalog: CATALOG,
    errorExamples: { 400: { bad: { error: { code: 'invalid_request_body', message: 'Invalid request body' } } } },
    notes: {
      'GET /v1/things/:id': {
        tag: 'Things',
        summary: 'One thing',
        description: 'By id.',
        params: 'ThingParams',
        query: 'ThingQuery',
        headers: { 'X-Wait': 'Wait for it.' },
        answers: [
          {
            status: 200,
            description: 'The thing.',
            type: 'Thing',
            examples: { one: { name: 'a' } },
            headers: { 'X-Total-Count': 'How many.' },
            media: { 'text/csv': 'As CSV.' },
          },
        ],
        errors: [
          { status: 409, when: 'Busy.' },
          { status: 409, when: 'Or locked.' },
          { status: 402, when: 'Pay.' },
        ],
      },
      'POST /v1/things': {
        tag: 'Things',
        summary: 'Make a thing',
        body: { type: 'Thing' },
        answers: [
          { status: 201, description: 'Made.', type: 'Thing' },
          { status: 400, description: 'Special failure body.', type: 'Thing' },
        ],
      },
      'POST /v1/ingest': {
        tag: 'Ingest',
        summary: 'Ingest',
        body: { media: { 'application/x-protobuf': 'Protobuf.' }, optional: true },
        answers: [{ status: 200, description: 'OK.' }],
      },
      'GET /v1/empty': {
        tag: 'Things',
        summary: 'Nothing',
        query: 'Empty',
        answers: [{ status: 200, description: 'OK.' }],
      },
    },
    ...over,
  };
}

t.test('names', async (t) => {
  t.equal(noteKey('GET', '/v1/traces/:traceId'), 'GET /v1/traces/:traceId');
  t.equal(openApiPath('/v1/traces/:traceId/spans/:spanId'), '/v1/traces/{traceId}/spans/{spanId}');
  t.equal(operationId('GET', '/v1/traces/:traceId/spans'), 'getTracesByTraceIdSpans');
  t.equal(operationId('GET', '/v1/openapi.json'), 'getOpenapiJson');
  t.equal(operationId('POST', '/v1/score-configs'), 'postScoreConfigs');
  t.equal(operationId('GET', '/health'), 'getHealth');
});

t.test('catalog references', async (t) => {
  t.equal(catalogRef(CATALOG, 'Thing'), '#/components/schemas/Thing');
  t.throws(() => catalogRef(CATALOG, 'Nope'), /"Nope" is not in the catalog/);
  t.throws(
    () => catalogRef({ components: {} }, 'Thing'),
    /not in the catalog/,
    'a collection without schemas names nothing',
  );
  t.throws(
    () =>
      buildDocument(input({ notes: { 'GET /v1/empty': { tag: 'x', summary: 'x', query: 'Missing', answers: [] } } })),
    /"Missing" is not in the catalog/,
  );
});

t.test('the document', async (t) => {
  const doc = buildDocument(input());
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '9.9.9');
  t.equal(doc.info.description, 'About.');
  t.same(
    doc.tags.map((x) => x.name),
    ['Things', 'Ingest', 'Other', UNBUILT_TAG],
    'tags in order of first use',
  );
  t.same(
    Object.keys(doc.components.schemas),
    ['Empty', 'Recordstringunknown', 'Thing', 'ThingParams', 'ThingQuery'],
    'sorted; the catalog itself is no component',
  );
  t.same(
    doc.components.schemas.Recordstringunknown,
    { type: 'object', additionalProperties: {} },
    "TypeScript's comment on Record is dropped",
  );
  t.equal(doc.components.schemas.Thing!.description, 'A thing.', 'own descriptions stay');
  t.same(Object.keys(doc.components.securitySchemes), ['apiKey', 'otlpKey', 'appId', 'operatorToken']);
  t.match(doc.components.securitySchemes.operatorToken, {
    type: 'http',
    scheme: 'bearer',
    description: /TRACELAKE_OPERATOR_TOKEN/,
  });

  const one = doc.paths['/v1/things/{id}']!.get!;
  t.equal(one.operationId, 'getThingsById');
  t.equal(one.description, 'By id.');
  t.equal(one['x-tracelake-permission'], 'trace.read');
  t.same(one['x-tracelake-surface'], ['cloud'], 'a path off the local surface is served by the cloud only');
  t.same(one.security, [{ apiKey: [], appId: [] }]);
  t.same(one.parameters, [
    { name: 'id', in: 'path', required: true, description: 'The thing.', schema: { type: 'string', format: 'uuid' } },
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } },
    { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
    { name: 'X-Wait', in: 'header', required: false, description: 'Wait for it.', schema: { type: 'string' } },
  ]);
  t.same(one.responses['200'], {
    description: 'The thing.',
    headers: { 'X-Total-Count': { description: 'How many.', schema: { type: 'string' } } },
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Thing' },
        examples: { one: { value: { name: 'a' } } },
      },
      'text/csv': { schema: { description: 'As CSV.' } },
    },
  });
  t.same(
    Object.keys(one.responses),
    ['200', '400', '401', '402', '403', '404', '409', '429', '500', '501', '503'],
    'statuses in order, common and extra',
  );
  t.same(one.responses['409'], { $ref: '#/components/responses/Error409', description: 'Busy. Or locked.' });
  t.match(one.responses['404']!.description, /^Not Found: `not_found`\.$/);
  t.equal(one.requestBody, undefined, 'a GET takes no body');

  const make = doc.paths['/v1/things']!.post!;
  t.same(make.requestBody, {
    required: true,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
  });
  t.same(
    make.responses['400'],
    {
      description: 'Special failure body.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
    },
    "an operation's own answer wins over the common error",
  );
  t.ok(make.responses['413'] && make.responses['415'], 'a JSON body can be too large or of another type');

  const ingest = doc.paths['/v1/ingest']!.post!;
  t.same(ingest.security, [{ otlpKey: [], appId: [] }]);
  t.same(ingest.requestBody, {
    required: false,
    content: { 'application/x-protobuf': { schema: { description: 'Protobuf.' } } },
  });
  t.same(ingest.responses['200'], { description: 'OK.' });

  const health = doc.paths['/health']!.get!;
  t.same(health.security, [], 'no credentials');
  t.equal(health.summary, 'GET /health', 'a route without a note still appears');
  t.same(health.tags, ['Other']);
  t.same(health['x-tracelake-surface'], ['cloud', 'local']);
  t.same(Object.keys(health.responses), ['200', '400', '500', '503']);
  t.same(health.responses['200'], { description: 'OK' });

  const remove = doc.paths['/v1/things/{id}']!.delete!;
  t.same(
    remove.parameters,
    [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    'a path parameter without a type is a string',
  );
  t.ok(remove.responses['413'], 'a DELETE that reads a body');
  t.notOk(doc.paths['/v1/traces/search']!.get!.responses['413'], 'a GET reads none');
  t.same(doc.paths['/v1/empty']!.get!.parameters, [], 'a query type without properties');

  const operator = doc.paths['/v1/operator/things']!.post!;
  t.equal(operator['x-tracelake-permission'], 'operator');
  t.equal(operator['x-tracelake-requires'], 'operator-token', 'marked as served only with an operator token');
  t.same(operator.security, [{ operatorToken: [] }], 'the operator token alone, no app id');
  t.same(operator['x-tracelake-surface'], ['cloud', 'local']);
  t.same(
    Object.keys(operator.responses),
    ['200', '400', '401', '404', '413', '415', '500', '503'],
    'no 403 or 429; 404 without a path parameter (the operator API may be off)',
  );
  t.equal(one['x-tracelake-requires'], undefined, 'other operations need no operator token');

  const later = doc.paths['/v1/later/{laterId}']!.get!;
  t.equal(later['x-tracelake-implemented'], false);
  t.same(later.tags, [UNBUILT_TAG]);
  t.same(Object.keys(later.responses), ['501']);
  t.same(
    later.parameters.map((p) => p.name),
    ['laterId'],
  );

  const errors = doc.components.responses;
  t.same(errors.Error400!.content!['application/json']!.examples, {
    bad: { value: { error: { code: 'invalid_request_body', message: 'Invalid request body' } } },
  });
  t.equal(errors.Error401!.content!['application/json']!.examples, undefined);
  t.match(errors.Error503!.description, /`overloaded`.*`unavailable`.*`storage_unavailable`/);
});

t.test('an operation that authenticates a credential sent alone', async (t) => {
  const doc = buildDocument(
    input({
      routes: [{ method: 'GET', path: '/v1/whose', permission: 'none' }],
      notes: {
        'GET /v1/whose': {
          tag: 'Auth',
          summary: 'Whose key',
          credentialAlone: true,
          answers: [{ status: 200, description: 'The app.' }],
          errors: [{ status: 401, when: 'No key.' }],
        },
      },
      unbuilt: [],
    }),
  );
  const whose = doc.paths['/v1/whose']!.get!;
  t.same(whose.security, [{ apiKey: [] }], 'the key, without the app id');
  t.equal(whose['x-tracelake-permission'], 'none', 'the router asks for nothing');
  t.same(
    Object.keys(whose.responses),
    ['200', '400', '401', '500', '501', '503'],
    'its own 401, beside the common errors of a cloud-only path',
  );
});

t.test('schemas in a canonical order, whatever order the compiler gave', async (t) => {
  const a = {
    type: 'object',
    properties: {
      b: { oneOf: [{ const: 'z' }, { const: 'a' }, { const: 'a' }] },
      a: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    },
    required: ['b', 'a'],
  };
  const b = {
    type: 'object',
    properties: {
      a: { type: 'array', items: { anyOf: [{ type: 'null' }, { type: 'string' }] } },
      b: { oneOf: [{ const: 'a' }, { const: 'z' }, { const: 'a' }] },
    },
    required: ['a', 'b'],
  };
  t.equal(JSON.stringify(canonical(a)), JSON.stringify(canonical(b)));
  t.same(canonical(a), {
    type: 'object',
    properties: {
      a: { type: 'array', items: { anyOf: [{ type: 'null' }, { type: 'string' }] } },
      b: { oneOf: [{ const: 'a' }, { const: 'a' }, { const: 'z' }] },
    },
    required: ['a', 'b'],
  });
  t.same(canonical([null, 1, 'x']), [null, 1, 'x'], 'plain values stay');
  t.same(
    canonical({ oneOf: 'odd', properties: [1], required: 'x' }),
    { oneOf: 'odd', properties: [1], required: 'x' },
    'only schema-shaped keys are sorted',
  );
  t.same(canonical({ properties: null }), { properties: null });
});

t.test('tags in the order of the notes, those without a note last', async (t) => {
  const notes = input().notes!;
  const reordered = {
    'POST /v1/ingest': notes['POST /v1/ingest']!,
    'GET /v1/things/:id': notes['GET /v1/things/:id']!,
  };
  t.same(
    buildDocument(input({ notes: reordered })).tags.map((x) => x.name),
    ['Ingest', 'Things', 'Other', UNBUILT_TAG],
  );
  t.same(
    buildDocument(input({ tagOrder: ['Ingest', 'Things'] })).tags.map((x) => x.name),
    ['Ingest', 'Things', 'Other', UNBUILT_TAG],
    'or in the order given',
  );
});

t.test('a note carried by its route is the one read', async (t) => {
  const notes = input().notes!;
  const { 'GET /v1/things/:id': carried, ...rest } = notes;
  const routes = ROUTES.map((r) => (r.method === 'GET' && r.path === '/v1/things/:id' ? { ...r, note: carried! } : r));
  t.same(
    buildDocument(input({ routes, notes: rest })),
    buildDocument(input()),
    'the same document as from the keyed note',
  );
  t.equal(
    buildDocument(input({ notes: rest })).paths['/v1/things/{id}']!.get!.summary,
    'GET /v1/things/:id',
    'without it, the route has no note',
  );
});

t.test('notes carried by every route need no table of notes', async (t) => {
  const notes = input().notes!;
  const routes = ROUTES.map((r) => {
    const note = notes[noteKey(r.method, r.path)];
    return note ? { ...r, note } : r;
  });
  t.same(
    buildDocument(input({ routes, notes: undefined })).tags,
    buildDocument(input()).tags,
    'the tags in the order the routes carry them',
  );
});

t.test('a collection without schemas gives no components', async (t) => {
  const doc = buildDocument(input({ catalog: { components: {} }, notes: {}, unbuilt: [] }));
  t.same(doc.components.schemas, {});
});

t.test('the same input gives the same document', async (t) => {
  t.equal(JSON.stringify(buildDocument(input())), JSON.stringify(buildDocument(input())));
});
