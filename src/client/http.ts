/**
 * One HTTP exchange with a deadline, over node:http(s) so the caller learns when the request body
 * has been sent (the progress shows "waiting for the server" only from then on). Network failures,
 * the deadline and an answer past its size limit become {@link ClientError}s naming the URL.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ClientError } from './errors.js';

/** The bounds of one exchange, from the client's settings. */
export interface ExchangeLimits {
  /** Longest wait for the whole answer, in milliseconds (`TARIFF_CLIENT_TIMEOUT_SECONDS`). */
  timeoutMs: number;
  /** Largest answer body read, in bytes (`TARIFF_CLIENT_MAX_ANSWER_MB`). */
  maxAnswerBytes: number;
}

/** What to send. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Longest wait for the whole answer, in milliseconds. */
  timeoutMs: number;
  /** Why the wait is bounded, for the timeout's message (e.g. `TARIFF_CLIENT_TIMEOUT_SECONDS`). */
  timeoutSetting: string;
  /** Added to the timeout's message (e.g. that an apply may still be running on the server). */
  timeoutHint?: string;
  /** Largest answer body read, in bytes (`TARIFF_CLIENT_MAX_ANSWER_MB`): past it the exchange fails. */
  maxAnswerBytes: number;
  /** Called once the request (with its body) has been handed to the network. */
  onSent?: () => void;
}

/** The setting that bounds an answer's size, named in the refusal. */
export const MAX_ANSWER_SETTING = 'TARIFF_CLIENT_MAX_ANSWER_MB';

/** `256 MB` for a byte count of whole mebibytes, else with one decimal. */
export function megabytes(bytes: number): string {
  const size = bytes / 1024 / 1024;
  return `${Number.isInteger(size) ? size : size.toFixed(1)} MB`;
}

/**
 * A URL as the CLI prints it: a user and password written in it (`https://u:p@host/`) shown as
 * `***` (issue 24, finding 8: no credential is printed); text that is not a URL as it is.
 */
export function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.username === '' && url.password === '') return text;
    url.username = '***';
    url.password = '';
    return url.href;
  } catch {
    return text;
  }
}

/** The answer, read whole. */
export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The one-line reason of a network error (`connection refused`, `host not found`, …). */
export function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running, and is this its address?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return error.message;
  }
}

/**
 * Sends `request` and reads the answer.
 *
 * @throws ClientError on a network failure, when no complete answer came within `timeoutMs`, or
 *   when the answer declares or grows past `maxAnswerBytes` (the rest is not read).
 */
export function exchange(request: HttpRequest): Promise<HttpAnswer> {
  const url = new URL(request.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const seconds = request.timeoutMs / 1000;
    let settled = false;
    const fail = (error: ClientError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      reject(error);
    };
    const headers = { ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) };
    const tooLarge = () =>
      fail(
        new ClientError(
          `The answer to ${request.method} ${url.origin}${url.pathname} is larger than ${megabytes(request.maxAnswerBytes)} (${MAX_ANSWER_SETTING}): not read further.`,
        ),
      );
    const outgoing = send(url, { method: request.method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      let received = 0;
      if (Number(incoming.headers['content-length']) > request.maxAnswerBytes) return tooLarge();
      incoming.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > request.maxAnswerBytes) return tooLarge();
        chunks.push(chunk);
      });
      incoming.on('error', (error) =>
        fail(new ClientError(`The answer of ${request.method} ${shownUrl(request.url)} broke off: ${describeNetworkError(error)}.`)),
      );
      incoming.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const timer = setTimeout(
      () =>
        fail(
          new ClientError(
            `No answer to ${request.method} ${url.origin}${url.pathname} within ${seconds} s (${request.timeoutSetting}).${request.timeoutHint ? ` ${request.timeoutHint}` : ''}`,
          ),
        ),
      request.timeoutMs,
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => fail(new ClientError(`Cannot reach ${url.origin}: ${describeNetworkError(error)}.`)));
    outgoing.on('finish', () => request.onSent?.());
    outgoing.end(request.body);
  });
}
