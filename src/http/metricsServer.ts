/**
 * The Prometheus scrape endpoint on an address of its own (`--metrics-listen host:port`): a plain
 * node:http server answering `GET /metrics`, unauthenticated, apart from the API so that
 * exposing one never exposes the other. A scrape every few seconds needs nothing faster.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpsMetrics } from './opsMetrics.js';

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

export function listenMetrics(
  ops: OpsMetrics,
  host: string,
  port: number,
  onError: (e: unknown) => void,
): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res
        .writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Not found: the Prometheus metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    ops.scrape().then(
      ({ text, contentType }) =>
        res.writeHead(200, { 'Content-Type': contentType }).end(req.method === 'HEAD' ? undefined : text),
      (e: unknown) => {
        onError(e);
        res
          .writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end('The metrics could not be collected; see the server log\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
