/** The blobs a reader finds, each kept once by its SHA-256, and the parts that name them. */
import { createHash } from 'node:crypto';
import t from 'tap';
import { BlobBag, INLINE_TEXT_BYTES } from '../../../../src/core/agents/readers/blobBag.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

t.test('bytes become a blob, kept once', async (t) => {
  const bag = new BlobBag();
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
  const part = bag.add('image/png', png, 'shot.png');
  t.same(part, { type: 'blob', sha256: sha(png), mediaType: 'image/png', bytes: 4, name: 'shot.png' });
  t.same(
    bag.add('image/png', png),
    { type: 'blob', sha256: sha(png), mediaType: 'image/png', bytes: 4 },
    'no name, no name field',
  );
  t.equal(bag.blobs.size, 1, 'the same bytes twice are one blob');
  t.same(bag.blobs.get(sha(png)), { sha256: sha(png), mediaType: 'image/png', bytes: 4, data: png.toString('base64') });
});

t.test('base64 media', async (t) => {
  const bag = new BlobBag();
  const part = bag.addBase64('image/jpeg', Buffer.from('jpeg bytes').toString('base64'));
  t.same(part, { type: 'blob', sha256: sha(Buffer.from('jpeg bytes')), mediaType: 'image/jpeg', bytes: 10 });
  t.equal(bag.addBase64('image/jpeg', ''), undefined, 'nothing decoded, no part');
  t.equal(bag.addBase64('image/jpeg', '!!!'), undefined);
  t.equal(bag.blobs.size, 1);
});

t.test('text inline up to the limit, a text blob past it', async (t) => {
  const bag = new BlobBag();
  const limit = 'é'.repeat(INLINE_TEXT_BYTES / 2);
  t.same(bag.text(limit), { type: 'text', text: limit }, 'exactly the limit in UTF-8 bytes stays inline');
  const over = `${limit}x`;
  const part = bag.text(over);
  t.same(part, {
    type: 'blob',
    sha256: sha(Buffer.from(over, 'utf8')),
    mediaType: 'text/plain; charset=utf-8',
    bytes: INLINE_TEXT_BYTES + 1,
  });
  t.equal(bag.blobs.size, 1);
});

t.test('the blobs some parts name', async (t) => {
  const bag = new BlobBag();
  const a = bag.add('image/png', Buffer.from('a'));
  const b = bag.add('image/png', Buffer.from('b'));
  const foreign = { type: 'blob' as const, sha256: '0'.repeat(64), mediaType: 'image/png', bytes: 1 };
  t.same(
    bag.of([{ type: 'text', text: 'x' }, b, foreign, a]).map((x) => x.sha256),
    [b.sha256, a.sha256],
    "in the parts' order; blobs the bag does not hold are left out",
  );
  t.same(bag.of([]), []);
});
