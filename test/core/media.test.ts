/** src/core/media.ts: media objects in JSON text, turned into references and back. */
import t from 'tap';
import { blobHeaders, mediaReferences, mediaTypeOf, restoreMedia, rewriteJsonObjects } from '../../src/core/media.js';

const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47]);
const ref = (sha256: string, bytes: number, extra: Record<string, unknown> = {}) => ({
  type: 'image',
  mimeType: 'image/png',
  ...extra,
  sha256,
  bytes,
});

t.test('mediaTypeOf reads either spelling', async (t) => {
  t.equal(mediaTypeOf({ mimeType: 'image/png' }), 'image/png');
  t.equal(mediaTypeOf({ mediaType: 'audio/wav' }), 'audio/wav');
  t.equal(mediaTypeOf({ mimeType: 7 }), undefined);
});

t.test('rewriteJsonObjects replaces what it is told to, at any depth, and leaves other text alone', async (t) => {
  const text = '{"a": [{"x": 1}, {"y": 2}], "__proto__": {"z": 3}}';
  const out = JSON.parse(rewriteJsonObjects(text, (o) => ('x' in o ? { x: 'X' } : undefined)));
  t.same(out.a, [{ x: 'X' }, { y: 2 }]);
  t.same(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { z: 3 }, 'a __proto__ key stays data');
  const untouched = '{ "y" : 2 }';
  t.equal(
    rewriteJsonObjects(untouched, () => undefined),
    untouched,
    'nothing replaced: the text as it was, spacing included',
  );
  t.equal(
    rewriteJsonObjects('plain text', () => ({})),
    'plain text',
    'not JSON',
  );
  t.equal(
    rewriteJsonObjects('{not json', () => ({})),
    '{not json',
    'broken JSON',
  );
  let deep: unknown = { x: 1 };
  for (let i = 0; i < 70; i++) deep = [deep];
  const deepText = JSON.stringify(deep);
  t.equal(
    rewriteJsonObjects(deepText, (o) => ('x' in o ? { x: 2 } : undefined)),
    deepText,
    'beyond 64 levels nothing is touched',
  );
});

t.test('references are found once each, and only references', async (t) => {
  const text = JSON.stringify([
    ref('aa', 4),
    { nested: ref('aa', 4) },
    ref('bb', 2),
    { mimeType: 'image/png', base64: 'AA==' },
    { sha256: 'cc', bytes: 1 },
    { mimeType: 'x', sha256: 'dd', bytes: '1' },
  ]);
  t.same(mediaReferences(text), ['aa', 'bb']);
  t.same(mediaReferences('{"a": 1}'), [], 'no sha256 in the text: not even parsed');
});

t.test('restoreMedia puts the bytes back as base64 where the blob is known and the length agrees', async (t) => {
  const text = JSON.stringify({ content: [ref('aa', 4), ref('bb', 9), ref('cc', 4)] });
  const out = JSON.parse(
    restoreMedia(
      text,
      new Map([
        ['aa', png],
        ['bb', png],
      ]),
    ),
  );
  t.same(out.content[0], { type: 'image', mimeType: 'image/png', base64: Buffer.from(png).toString('base64') });
  t.same(out.content[1], ref('bb', 9), 'a length that disagrees stays a reference');
  t.same(out.content[2], ref('cc', 4), 'an unknown blob stays a reference');
  t.equal(restoreMedia(text, new Map()), text, 'no blobs: the text as it was');
});

t.test('blobHeaders: never sniffed, sandboxed, and a download unless passive media', async (t) => {
  for (const type of [
    'image/png',
    'IMAGE/JPEG',
    'audio/wav',
    'video/mp4',
    'text/plain; charset=utf-8',
    'application/json',
  ])
    t.same(
      blobHeaders(type),
      { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; sandbox" },
      `${type} inline`,
    );
  for (const type of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/javascript', 'application/pdf', ''])
    t.equal(blobHeaders(type)['Content-Disposition'], 'attachment', `${type || 'no type'} is a download`);
});
