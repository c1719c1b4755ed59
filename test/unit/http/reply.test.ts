/** src/http/reply.ts: what handlers return. */
import t from 'tap';
import { bytes, data, file, json, stream } from '../../../src/http/reply.js';

t.test('json', async (t) => {
  t.strictSame(json({ a: 1 }), { kind: 'json', status: 200, body: { a: 1 } }, 'no headers key when none are given');
  t.strictSame(json(null, 202, { 'retry-after': '1' }), {
    kind: 'json',
    status: 202,
    body: null,
    headers: { 'retry-after': '1' },
  });
});

t.test('data: the {data} envelope', async (t) => {
  t.strictSame(data([1, 2]), { kind: 'json', status: 200, body: { data: [1, 2] } });
  t.strictSame(data({ id: 'x' }, 201), { kind: 'json', status: 201, body: { data: { id: 'x' } } });
});

t.test('bytes', async (t) => {
  const body = new Uint8Array([1, 2]);
  t.strictSame(bytes(body, 'application/x-protobuf'), {
    kind: 'bytes',
    status: 200,
    body,
    contentType: 'application/x-protobuf',
  });
  t.strictSame(bytes('a,b\n', 'text/csv', 206, { 'content-disposition': 'attachment' }), {
    kind: 'bytes',
    status: 206,
    body: 'a,b\n',
    contentType: 'text/csv',
    headers: { 'content-disposition': 'attachment' },
  });
});

t.test('file', async (t) => {
  t.strictSame(file('/tmp/x.csv', 'text/csv'), {
    kind: 'file',
    status: 200,
    path: '/tmp/x.csv',
    contentType: 'text/csv',
  });
  t.strictSame(file('/tmp/x.csv', 'text/csv', { 'x-a': '1' }), {
    kind: 'file',
    status: 200,
    path: '/tmp/x.csv',
    contentType: 'text/csv',
    headers: { 'x-a': '1' },
  });
});

t.test('stream', async (t) => {
  const open = () => () => undefined;
  t.strictSame(stream('text/event-stream', open), {
    kind: 'stream',
    status: 200,
    contentType: 'text/event-stream',
    open,
  });
  t.strictSame(stream('text/event-stream', open, { 'cache-control': 'no-store' }), {
    kind: 'stream',
    status: 200,
    contentType: 'text/event-stream',
    open,
    headers: { 'cache-control': 'no-store' },
  });
});
