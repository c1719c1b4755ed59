/** Blob checks: base64 of exactly `bytes` bytes whose SHA-256 is `sha256`, or a reason why not. */
import { createHash } from 'node:crypto';
import t from 'tap';
import { checkBlob, sha256Hex } from '../../../src/core/agents/blobs.js';
import type { AgentBlob } from '../../../src/core/agents/session.js';

const bytes = Buffer.from('hello, blob\n', 'utf8');
const good: AgentBlob = {
  sha256: createHash('sha256').update(bytes).digest('hex'),
  mediaType: 'text/plain',
  bytes: bytes.length,
  data: bytes.toString('base64'),
};

t.test('sha256Hex', async (t) => {
  t.equal(
    sha256Hex(Buffer.from('abc')),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    'the FIPS 180-2 test vector',
  );
  t.equal(sha256Hex(new Uint8Array()), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
});

t.test('a good blob gives its bytes', async (t) => {
  const c = checkBlob(good);
  t.equal(c.ok, true);
  t.same(c.ok && Buffer.from(c.data), bytes);
  const wrapped = good.data.replace(/(.{4})/g, '$1\n ');
  const w = checkBlob({ ...good, data: wrapped });
  t.same(w.ok && Buffer.from(w.data), bytes, 'base64 broken over lines, as MIME writes it');
  const empty = checkBlob({ sha256: sha256Hex(new Uint8Array()), mediaType: 'text/plain', bytes: 0, data: '' });
  t.same(empty.ok && empty.data.length, 0, 'an empty blob');
});

t.test('a bad blob says why', async (t) => {
  t.same(
    checkBlob({ ...good, data: 'not base64!' }),
    { ok: false, reason: 'data is not base64' },
    'characters outside the alphabet',
  );
  t.same(
    checkBlob({ ...good, data: good.data.slice(1) }),
    { ok: false, reason: 'data is not base64' },
    'a length not a multiple of four',
  );
  t.same(checkBlob({ ...good, data: 'Q===' }), { ok: false, reason: 'data is not base64' }, 'three pads');
  t.same(checkBlob({ ...good, bytes: good.bytes + 1 }), {
    ok: false,
    reason: `bytes is ${good.bytes + 1} but data decodes to ${good.bytes} bytes`,
  });
  const other = 'f'.repeat(64);
  t.same(checkBlob({ ...good, sha256: other }), {
    ok: false,
    reason: `sha256 does not match the data (its SHA-256 is ${good.sha256})`,
  });
});
