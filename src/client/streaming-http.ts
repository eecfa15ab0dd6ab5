/**
 * One HTTP exchange whose body and answer are streams: a request body of any size read as it is
 * sent (a multi-GB usage file never sits in memory), and an answer read line by line as it comes
 * (an NDJSON stream of progress lines and one last line). http.ts's {@link exchange} reads its
 * answer whole and bounds the whole exchange in time; here the bound is the longest silence,
 * since a simulation may rightly take an hour while it keeps sending progress.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { ClientError } from './errors.js';
import { describeNetworkError, MAX_ANSWER_SETTING, megabytes, shownUrl } from './http.js';

/** A body streamed from `stream`, `length` bytes long (sent as `Content-Length`). */
export interface StreamedBody {
  stream: Readable;
  length: number;
}

/** What to send, and what to do with each line of a 200 answer. */
export interface StreamingRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: Buffer | StreamedBody;
  /** Longest time without a byte sent or received, in milliseconds. */
  idleTimeoutMs: number;
  /** Why the silence is bounded, for the timeout's message (`TARIFF_CLIENT_TIMEOUT_SECONDS`). */
  timeoutSetting: string;
  /** Largest line of a 200 answer, and largest other answer, in bytes (`TARIFF_CLIENT_MAX_ANSWER_MB`). */
  maxLineBytes: number;
  /** Called with each line of a 200 answer (without its `\n`; blank lines skipped); what it throws ends the exchange. */
  onLine: (line: string) => void;
  /** Called with the number of body bytes handed to the network so far. */
  onBodyProgress?: (sentBytes: number) => void;
  /** Called once the whole body has been handed to the network. */
  onSent?: () => void;
}

/** How the answer ended: its status and headers; a non-200 answer's body read whole (`''` for a 200). */
export interface StreamedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * Sends `request`, handing each line of a 200 answer to `onLine` as it arrives.
 *
 * @returns once the answer has ended cleanly.
 * @throws ClientError on a network failure, when the connection breaks off before the answer's
 *   end, after `idleTimeoutMs` of silence, when a line (or a non-200 answer) grows past
 *   `maxLineBytes`, when the body cannot be read, or with what `onLine` threw.
 */
export function streamingExchange(request: StreamingRequest): Promise<StreamedAnswer> {
  const url = new URL(request.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const where = `${request.method} ${url.origin}${url.pathname}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    let answered = false;
    const body = Buffer.isBuffer(request.body) ? undefined : request.body;
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      body?.stream.destroy();
    };
    const fail = (error: unknown) => {
      if (settled) return;
      finish();
      outgoing.destroy();
      reject(error instanceof ClientError ? error : new ClientError((error as Error).message));
    };
    const tooLarge = () =>
      fail(new ClientError(`A line of the answer to ${where} is larger than ${megabytes(request.maxLineBytes)} (${MAX_ANSWER_SETTING}): not read further.`));
    const length = Buffer.isBuffer(request.body) ? request.body.length : request.body.length;
    const outgoing = send(url, { method: request.method, headers: { ...request.headers, 'content-length': String(length) } }, (incoming) => {
      answered = true;
      timer.refresh();
      if (incoming.statusCode === 200) readLines(incoming);
      else readWhole(incoming);
    });
    const timer = setTimeout(
      () =>
        fail(
          new ClientError(
            `Nothing sent or received on ${where} for ${request.idleTimeoutMs / 1000} s (${request.timeoutSetting}): the exchange was given up, no result.`,
          ),
        ),
      request.idleTimeoutMs,
    );
    const brokeOff = (error?: NodeJS.ErrnoException) =>
      fail(
        new ClientError(
          `The answer of ${request.method} ${shownUrl(request.url)} broke off${error ? `: ${describeNetworkError(error)}` : ''}; no result was received.`,
        ),
      );

    /** A 200: NDJSON, each complete line handed on as soon as its `\n` arrives. */
    function readLines(incoming: IncomingMessage): void {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let ended = false;
      const deliver = (bytes: Buffer) => {
        const line = bytes.toString('utf8');
        if (line.trim() === '') return;
        try {
          request.onLine(line);
        } catch (error) {
          fail(error);
        }
      };
      incoming.on('data', (chunk: Buffer) => {
        timer.refresh();
        let start = 0;
        for (let newline = chunk.indexOf(10); newline !== -1 && !settled; newline = chunk.indexOf(10, start)) {
          if (pendingBytes + newline - start > request.maxLineBytes) return tooLarge();
          pending.push(chunk.subarray(start, newline));
          const line = Buffer.concat(pending);
          pending = [];
          pendingBytes = 0;
          start = newline + 1;
          deliver(line);
        }
        if (settled) return;
        pendingBytes += chunk.length - start;
        if (pendingBytes > request.maxLineBytes) return tooLarge();
        if (start < chunk.length) pending.push(chunk.subarray(start));
      });
      incoming.on('error', (error) => brokeOff(error));
      incoming.on('close', () => {
        if (!ended) brokeOff();
      });
      incoming.on('end', () => {
        ended = true;
        if (settled) return;
        if (pending.length > 0) deliver(Buffer.concat(pending));
        if (settled) return;
        finish();
        // The answer is complete: what is left of the body (an error line came first) is not sent.
        outgoing.destroy();
        resolve({ status: 200, headers: incoming.headers, text: '' });
      });
    }

    /** Another status: a fault, read whole (bounded), and the body no longer sent. */
    function readWhole(incoming: IncomingMessage): void {
      body?.stream.unpipe(outgoing);
      const chunks: Buffer[] = [];
      let received = 0;
      if (Number(incoming.headers['content-length']) > request.maxLineBytes) return tooLarge();
      incoming.on('data', (chunk: Buffer) => {
        timer.refresh();
        received += chunk.length;
        if (received > request.maxLineBytes) return tooLarge();
        chunks.push(chunk);
      });
      incoming.on('error', (error) => brokeOff(error));
      incoming.on('end', () => {
        if (settled) return;
        finish();
        outgoing.destroy();
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    }

    let sent = 0;
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return brokeOff(error);
      const reason = describeNetworkError(error);
      fail(
        new ClientError(
          sent > 0
            ? `The connection to ${url.origin} broke off after ${megabytes(sent)} of the request was sent: ${reason}.`
            : `Cannot reach ${url.origin}: ${reason}.`,
        ),
      );
    });
    outgoing.on('finish', () => request.onSent?.());
    if (body === undefined) {
      outgoing.end(request.body);
      return;
    }
    body.stream.on('data', (chunk: Buffer | string) => {
      sent += chunk.length;
      timer.refresh();
      request.onBodyProgress?.(sent);
    });
    body.stream.on('error', (error) => fail(error));
    // Backpressure: the stream is read as fast as the network takes it, never ahead of it.
    body.stream.pipe(outgoing);
  });
}
