/**
 * `GET /metrics` on the API port, only with `--metrics-listen api`: the operator asked for the
 * operations metrics there, unauthenticated like a scrape target expects (Prometheus sends no API key).
 */
import { ApiError } from '../../core/errors.js';
import { bytes } from '../reply.js';
import { route } from '../route.js';

export const prometheusRoutes = [
  route({
    method: 'GET',
    path: '/metrics',
    permission: 'none',
    async handler(_input, ctx) {
      if (!ctx.services.ops) throw new ApiError('not_found');
      const { text, contentType } = await ctx.services.ops.scrape();
      return bytes(text, contentType);
    },
  }),
];
