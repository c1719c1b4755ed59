import t from 'tap';
import * as otlp from '../../../src/core/otlp/index.js';
import { request, span } from './wire-builders.js';

t.test('the public API is reachable from the index', async (t) => {
  const functions = ['mapExportRequest', 'spanFields', 'flattenAttributes', 'anyValueToJson', 'eventSpanId', 'idToHex'];
  functions.push('toBigInt', 'toNanos', 'spanKindOf', 'textOf', 'splitNamespaces', 'tagsOf');
  for (const name of functions) {
    t.type((otlp as Record<string, unknown>)[name], 'function', name);
  }
  t.equal(otlp.MAX_DEPTH, 64);
  t.ok(otlp.MODEL_KEYS.includes('gen_ai.request.model'));
  t.equal(otlp.GRAPH_PREFIX, 'graph.node.');
  t.equal(otlp.mapExportRequest(request([span()])).spans.length, 1);
});
