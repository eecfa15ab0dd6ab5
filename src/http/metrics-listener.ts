/**
 * `TARIFF_METRICS_PORT`: `GET /metrics` on a port of its own, served by a small `node:http`
 * listener beside the API. It asks for no token, even in Keystone mode: the port is meant for the
 * Prometheus server, on an address only it reaches. Every other path is a 404.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TariffMetrics } from '../kernel/metrics.js';
import type { ConnectionTimeouts } from './http-server.js';

/** A running metrics listener. */
export interface MetricsListener {
  /** E.g. `http://127.0.0.1:9464`. */
  url: string;
  /** Stops accepting connections and closes the open ones. */
  close(): Promise<void>;
}

function answer(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

async function serve(metrics: TariffMetrics, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? '').split('?')[0].replace(/\/+$/, '');
  if (path !== '/metrics') return answer(response, 404, 'text/plain; charset=utf-8', 'Not found: metrics are at /metrics\n');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    return answer(response, 405, 'text/plain; charset=utf-8', 'Method not allowed\n');
  }
  answer(response, 200, metrics.contentType, await metrics.text());
}

/**
 * Listens on `host:port` for `GET /metrics`, with the API's connection time-outs
 * (`TARIFF_REQUEST_TIMEOUT`, `TARIFF_STALL_TIMEOUT`, `TARIFF_KEEP_ALIVE_TIMEOUT`): a connection
 * that stalls is closed without a word (fix, issue 24: the port kept Node's defaults).
 *
 * @throws the listen error (e.g. `EADDRINUSE`) when the port cannot be bound.
 */
export async function listenForMetrics(
  metrics: TariffMetrics,
  { host, port, timeouts }: { host: string; port: number; timeouts: ConnectionTimeouts },
): Promise<MetricsListener> {
  const server = createServer({ requestTimeout: timeouts.requestMs, headersTimeout: timeouts.headersMs }, (request, response) => {
    serve(metrics, request, response).catch((error: unknown) => {
      if (!response.headersSent) answer(response, 500, 'text/plain; charset=utf-8', `Metrics unavailable: ${String(error)}\n`);
      else response.destroy();
    });
  });
  server.keepAliveTimeout = timeouts.keepAliveMs;
  server.setTimeout(timeouts.stallMs, (socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
