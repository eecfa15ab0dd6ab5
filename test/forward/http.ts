/**
 * A raw HTTP/1.1 client for the forwarding tests: unlike fetch it sends any header (Connection,
 * Keep-Alive, TE, Proxy-*), a body with any method (a GET's, as WSME reads it), and shows every
 * header of the answer as received.
 */
import { request as httpRequest } from 'node:http';
import type { Readable } from 'node:stream';

/** An answer as the caller received it. */
export interface RawAnswer {
  status: number;
  /** Lowercase names; repeated ones joined by Node's rules. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  /** From sending the request to the end of the answer (or the failure). */
  milliseconds: number;
}

/** Options of {@link send}. */
export interface SendOptions {
  headers?: Record<string, string>;
  /** A body of any method; a stream is sent chunked unless a Content-Length header is given. */
  body?: string | Buffer | Readable;
  timeoutMs?: number;
}

/**
 * Sends one request on a connection of its own and reads the whole answer.
 *
 * @throws the socket's error (a cut connection), or a timeout after `timeoutMs` (default 30 s).
 */
export function send(baseUrl: string, method: string, path: string, options: SendOptions = {}): Promise<RawAnswer> {
  const started = Date.now();
  const headers = { ...options.headers };
  if ((typeof options.body === 'string' || Buffer.isBuffer(options.body)) && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve, reject) => {
    // The path as given, not through URL parsing (which would resolve `%2e%2e` segments).
    const { hostname, port } = new URL(baseUrl);
    const request = httpRequest({ hostname, port, path, method, headers, agent: false, timeout: options.timeoutMs ?? 30_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text: body.toString('utf8'), milliseconds: Date.now() - started });
      });
    });
    request.on('timeout', () => request.destroy(new Error(`no answer to ${method} ${path} within ${options.timeoutMs ?? 30_000} ms`)));
    request.on('error', reject);
    const body = options.body;
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) request.end(body);
    else body.pipe(request);
  });
}

/** The value of one series in Prometheus text (`name{labels} value`), 0 when absent. */
export function seriesValue(metricsText: string, series: string): number {
  const line = metricsText.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
