/**
 * `GET /v1/agents/blob/{sha256}`: the raw bytes of a stored blob (large span fields, media) with its
 * stored media type, scoped to the key's tenant, app and (when pinned) environment: a pinned key
 * reads the blobs its environment's spans refer to. Reading spans' content needs trace.read.
 */
import { validateBlobParams } from '../../contract/apps.js';
import { ApiError } from '../../core/errors.js';
import { blobHeaders } from '../../core/media.js';
import { bytes } from '../reply.js';
import { readScopeOf } from '../principal.js';
import { route } from '../route.js';

export const blobRoutes = [
  route({
    method: 'GET',
    path: '/v1/agents/blob/:sha256',
    permission: 'trace.read',
    validate: { params: validateBlobParams },
    note: {
      tag: 'Blobs',
      summary: 'A stored blob',
      description: 'Large span fields and media, stored out of line; the bytes with their stored media type.',
      params: 'BlobParams',
      answers: [
        {
          status: 200,
          description: 'The bytes.',
          media: { 'application/octet-stream': 'The blob, with its stored media type as Content-Type.' },
          headers: {
            'Cache-Control': 'Immutable: a blob never changes.',
            'X-Content-Type-Options': 'nosniff: the stored type is the only one.',
            'Content-Security-Policy': "default-src 'none'; sandbox: nothing in a blob runs or loads.",
            'Content-Disposition':
              'attachment, for every type but passive media (images, audio, video, plain text, JSON).',
          },
        },
      ],
    },
    async handler({ params }, ctx) {
      const blob = await ctx.services.store.run('readBlob', { ...readScopeOf(ctx.principal), sha256: params.sha256 });
      if (!blob) throw new ApiError('not_found', `Blob ${params.sha256} not found`);
      return bytes(blob.data, blob.mediaType, 200, {
        'Cache-Control': 'private, max-age=31536000, immutable',
        ...blobHeaders(blob.mediaType),
      });
    },
  }),
];
