/** src/http/cors.ts: which origins may call, and the headers that say so. */
import t from 'tap';
import { corsHeaders, preflightHeaders } from '../../../src/http/cors.js';

t.test('ordinary answers name the origin only when it is allowed', async (t) => {
  const list = ['https://app.example.com'];
  t.same(corsHeaders(list, 'https://app.example.com'), {
    'Access-Control-Allow-Origin': 'https://app.example.com',
    'Access-Control-Expose-Headers': 'Retry-After, X-Request-Id',
    Vary: 'Origin',
  });
  t.same(corsHeaders(list, 'https://evil.example.com'), {});
  t.same(corsHeaders(list, undefined), {}, 'no Origin: not a cross-origin browser request');
  t.same(corsHeaders([], 'https://app.example.com'), {}, 'CORS off');
  t.equal(
    corsHeaders('*', 'https://any.example.com')['Access-Control-Allow-Origin'],
    'https://any.example.com',
    'any origin is echoed (credentials travel in headers)',
  );
});

t.test('preflights allow the methods and the headers asked for', async (t) => {
  const h = preflightHeaders(
    ['https://app.example.com'],
    'https://app.example.com',
    'authorization, x-service-app-id, content-type',
  );
  t.equal(h['Access-Control-Allow-Origin'], 'https://app.example.com');
  t.equal(h['Access-Control-Allow-Methods'], 'GET, HEAD, POST, PUT, PATCH, DELETE');
  t.equal(h['Access-Control-Allow-Headers'], 'authorization, x-service-app-id, content-type');
  t.equal(h['Access-Control-Max-Age'], '600');
  t.notOk(
    'Access-Control-Allow-Headers' in preflightHeaders('*', 'https://a.example.com', undefined),
    'no headers asked for, none allowed',
  );
  t.same(
    preflightHeaders(['https://app.example.com'], 'https://evil.example.com', 'authorization'),
    {},
    'another origin: nothing',
  );
});
