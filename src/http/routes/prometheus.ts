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
    note: {
      tag: 'Metrics',
      summary: 'Operations metrics for Prometheus',
      description:
        "The server's own metrics in Prometheus text format, unauthenticated as scrapers expect: requests by route and status with latency histograms, spans ingested and refused, queues, store task latency, segments, database size, process figures. Served on the API port only by a server started with `--metrics-listen api` (404 otherwise); `--metrics-listen <port>` serves it on a listener of its own instead, off the API.",
      answers: [
        {
          status: 200,
          description: 'The exposition.',
          media: { 'text/plain; version=0.0.4': 'Prometheus text format 0.0.4.' },
        },
      ],
      errors: [{ status: 404, when: '`not_found`: the server was not started with `--metrics-listen api`.' }],
    },
    async handler(_input, ctx) {
      if (!ctx.services.ops) throw new ApiError('not_found');
      const { text, contentType } = await ctx.services.ops.scrape();
      return bytes(text, contentType);
    },
  }),
];
