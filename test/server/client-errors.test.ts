/**
 * Requests Node's HTTP parser refuses (src/http/client-errors.ts), sent over raw TCP to a real
 * server process: a request line or headers past TARIFF_HEADER_LIMIT_KB, malformed request lines
 * and headers, each followed by a body written before reading, as a client does. Each gets the
 * fault (431 or 400) with `Connection: close`, never a reset, and the connection is closed; a
 * client still sending is cut after TARIFF_LINGER_TIMEOUT, or once past TARIFF_BODY_DRAIN_LIMIT_MB.
 * Requests Node refuses itself before routing (no Host, a foreign Expect, CONNECT) get the same
 * fault body (issue 24, finding 15); a malformed request pipelined behind a good one is refused
 * only after the good one's answer (finding 11).
 */
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { H } from '../helpers/app.js';

const HEADER_LIMIT_BYTES = 4 * 1024;
const LINGER_SECONDS = 2;
const DRAIN_BYTES = 1024 * 1024;

let server: ServerProcess;

beforeAll(async () => {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-client-errors-'));
  server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, {
    TARIFF_HEADER_LIMIT_KB: String(HEADER_LIMIT_BYTES / 1024),
    TARIFF_LINGER_TIMEOUT: String(LINGER_SECONDS),
    TARIFF_BODY_LIMIT_MB: '1',
    TARIFF_QUOTE_BODY_LIMIT_MB: '1',
    TARIFF_CLOUDKITTY_BODY_LIMIT_MB: '1',
    TARIFF_BODY_DRAIN_LIMIT_MB: String(DRAIN_BYTES / 1024 / 1024),
  });
});

afterAll(async () => {
  await server?.stop();
});

/** What came back on one connection. */
interface Exchange {
  answer: string;
  /** The socket error the client saw (`ECONNRESET`, `EPIPE`), if any. */
  error?: string;
  /** Milliseconds from the first byte sent to the connection's close. */
  closedAfterMs: number;
}

/**
 * Sends `head` and `body` in one write, then reads until the server closes the connection.
 * `halfOpen`: the client never ends its own side, as a client still waiting to send would.
 */
function exchange(head: string, body: Buffer, options: { halfOpen?: boolean; chunks?: number } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket: Socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: options.halfOpen ?? false });
    const received: Buffer[] = [];
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (failure: NodeJS.ErrnoException) => (error ??= failure.code ?? failure.message));
    socket.on('close', () => resolve({ answer: Buffer.concat(received).toString('utf8'), error, closedAfterMs: performance.now() - started }));
    socket.write(head);
    // A client that keeps sending: one chunk of the body each 20 ms until the server cuts it.
    const chunks = options.chunks ?? 1;
    const size = Math.ceil(body.length / chunks);
    let sent = 0;
    const sendNext = () => {
      if (socket.destroyed || sent >= body.length) return;
      socket.write(body.subarray(sent, sent + size));
      sent += size;
      if (sent < body.length) setTimeout(sendNext, 20);
    };
    sendNext();
  });
}

/** The status, headers (lower-case names) and body of a raw HTTP/1.1 answer. */
function parseAnswer(answer: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/** A request head the parser refuses, and the status it must get. */
interface Refused {
  kind: string;
  head: string;
  status: 400 | 405 | 417 | 431;
}

/** The faultstring each refusal status carries. */
const FAULTSTRINGS: Record<Refused['status'], RegExp> = {
  400: /^Malformed HTTP request: \S/,
  405: /^Method not allowed: CONNECT is not served\.$/,
  417: /^Expectation failed: only "Expect: 100-continue" is understood, got "[^"]+"\.$/,
  431: /^Request line and headers are too large: at most 4096 bytes are accepted \(TARIFF_HEADER_LIMIT_KB\)\.$/,
};

const path = fc.constantFrom('/v1/rating/quote', '/v1/rating/module_config/hashmap/services', '/healthcheck', '/v2/rating/price_list');
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE');
/** Header-safe filler, long enough to cross the limit with the rest of the head or alone. */
const filler = (minLength: number) => fc.integer({ min: minLength, max: 40_000 }).map((length) => 'a'.repeat(length));

const refused: fc.Arbitrary<Refused> = fc.oneof(
  fc.tuple(method, path, filler(HEADER_LIMIT_BYTES)).map(([verb, where, tail]) => ({
    kind: 'long URL',
    head: `${verb} ${where}/${tail} HTTP/1.1\r\nHost: tariff\r\n`,
    status: 431 as const,
  })),
  fc.tuple(method, path, filler(HEADER_LIMIT_BYTES)).map(([verb, where, value]) => ({
    kind: 'long header',
    head: `${verb} ${where} HTTP/1.1\r\nHost: tariff\r\nX-Filler: ${value}\r\n`,
    status: 431 as const,
  })),
  fc.tuple(method, path, fc.constantFrom('Bad Header', 'X-A\u0001: b', ': empty', 'X(y): z')).map(([verb, where, line]) => ({
    kind: 'malformed header',
    head: `${verb} ${where} HTTP/1.1\r\nHost: tariff\r\n${line}\r\n`,
    status: 400 as const,
  })),
  fc.tuple(fc.constantFrom('G@T', 'P\u0000ST', '{}'), path).map(([verb, where]) => ({
    kind: 'malformed method',
    head: `${verb} ${where} HTTP/1.1\r\nHost: tariff\r\n`,
    status: 400 as const,
  })),
  fc.tuple(method, path, fc.constantFrom('HTTP/9.9', 'HTTP/1.x', 'HTTPS/1.1')).map(([verb, where, version]) => ({
    kind: 'malformed version',
    head: `${verb} ${where} ${version}\r\nHost: tariff\r\n`,
    status: 400 as const,
  })),
  fc.tuple(fc.constantFrom('POST', 'PUT'), path).map(([verb, where]) => ({
    kind: 'length and chunked',
    head: `${verb} ${where} HTTP/1.1\r\nHost: tariff\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n`,
    status: 400 as const,
  })),
  // Refused by Node's HTTP server itself after parsing (fix, issue 24: an empty 400 or 417, and a reset for CONNECT).
  fc.tuple(method, path).map(([verb, where]) => ({
    kind: 'no Host',
    head: `${verb} ${where} HTTP/1.1\r\n`,
    status: 400 as const,
  })),
  fc.tuple(method, path, fc.constantFrom('200-ok', 'something', 'gzip')).map(([verb, where, expectation]) => ({
    kind: 'foreign Expect',
    head: `${verb} ${where} HTTP/1.1\r\nHost: tariff\r\nExpect: ${expectation}\r\n`,
    status: 417 as const,
  })),
  fc.constantFrom('tariff:443', '127.0.0.1:8889', 'example.com:80').map((authority) => ({
    kind: 'CONNECT',
    head: `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n`,
    status: 405 as const,
  })),
);

describe('requests the HTTP parser refuses', () => {
  it('get the fault with Connection: close and are read to their end (within the drain limit), never reset', { timeout: 180_000 }, async () => {
    const seen = new Set<string>();
    await fc.assert(
      // Bodies up to the drain limit: a longer one is cut (the last test).
      fc.asyncProperty(refused, fc.integer({ min: 0, max: DRAIN_BYTES - 4096 }), async (request, bodyLength) => {
        seen.add(request.kind);
        const body = Buffer.alloc(bodyLength, '{');
        const lengthHeader = request.kind === 'length and chunked' ? '' : `Content-Length: ${bodyLength}\r\n`;
        const { answer, error } = await exchange(`${request.head}Content-Type: application/json\r\n${lengthHeader}\r\n`, body);
        expect(error, request.kind).toBeUndefined();
        const { status, headers, body: text } = parseAnswer(answer);
        expect(status, answer.slice(0, 200)).toBe(request.status);
        expect(headers.connection).toBe('close');
        expect(headers['content-type']).toBe('application/json; charset=utf-8');
        const fault = JSON.parse(text) as { faultcode: string; faultstring: string; debuginfo: null };
        expect(fault).toMatchObject({ faultcode: 'Client', debuginfo: null });
        expect(fault.faultstring).toMatch(FAULTSTRINGS[request.status]);
      }),
      { numRuns: 90 },
    );
    expect([...seen].length).toBeGreaterThanOrEqual(7);
    // The server is none the worse.
    expect((await fetch(`${server.url}/healthcheck`)).status).toBe(200);
  });

  it('routes a head just within TARIFF_HEADER_LIMIT_KB as usual', async () => {
    const head = `GET /v1/rating/module_config/hashmap/services/${'a'.repeat(HEADER_LIMIT_BYTES - 200)} HTTP/1.1\r\nHost: tariff\r\nConnection: close\r\n\r\n`;
    expect(head.length).toBeLessThan(HEADER_LIMIT_BYTES);
    const { answer, error } = await exchange(head, Buffer.alloc(0));
    expect(error).toBeUndefined();
    // Too long to be any id: not found (api.md §1), as the router answers it.
    expect(parseAnswer(answer).status).toBe(404);
  });

  it('cuts a client that keeps sending slowly after TARIFF_LINGER_TIMEOUT', async () => {
    // A byte each 20 ms for 8 s, its side never ended: the server stops listening at the time-out,
    // and the client's next byte meets a closed connection.
    const { answer, closedAfterMs } = await exchange(`GET /${'a'.repeat(HEADER_LIMIT_BYTES)} HTTP/1.1\r\n\r\n`, Buffer.alloc(400, ' '), {
      halfOpen: true,
      chunks: 400,
    });
    expect(parseAnswer(answer).status).toBe(431);
    expect(closedAfterMs).toBeGreaterThanOrEqual(LINGER_SECONDS * 1000 - 50);
    expect(closedAfterMs).toBeLessThan(LINGER_SECONDS * 1000 + 4000);
  });

  it('cuts a client that keeps sending past TARIFF_BODY_DRAIN_LIMIT_MB, before the linger time-out', async () => {
    const body = Buffer.alloc(20 * DRAIN_BYTES, '{');
    const { answer, closedAfterMs } = await exchange(`POST /${'a'.repeat(HEADER_LIMIT_BYTES)} HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n`, body, {
      halfOpen: true,
      chunks: 160,
    });
    expect(parseAnswer(answer).status).toBe(431);
    // 20 MiB in 160 chunks 20 ms apart take over 3 s; the cut comes after the first MiB, about 160 ms in.
    expect(closedAfterMs).toBeLessThan(LINGER_SECONDS * 1000);
  });
});

/** The raw HTTP/1.1 answers one after another in `text` (each with `Content-Length`). */
function splitAnswers(text: string): string[] {
  const answers: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(rest.slice(0, headEnd))?.[1] ?? 0);
    const end = headEnd + 4 + length;
    answers.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest.length > 0) answers.push(rest);
  return answers;
}

describe('a request refused behind a good one on the same connection (issue 24, finding 11)', () => {
  it('answers the good one first (its 201), then the fault, then closes', { timeout: 180_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(refused, async (second) => {
        run += 1;
        const name = `pipelined-${run}-${Date.now()}`;
        const body = JSON.stringify({ name });
        const first = `POST ${H}/groups HTTP/1.1\r\nHost: tariff\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        const lengthHeader = second.kind === 'length and chunked' ? '' : 'Content-Length: 0\r\n';
        const { answer, error } = await exchange(first + `${second.head}${lengthHeader}\r\n`, Buffer.alloc(0));
        expect(error, second.kind).toBeUndefined();
        const answers = splitAnswers(answer);
        expect(answers.length, `${second.kind}: ${answer.slice(0, 400)}`).toBe(2);
        const created = parseAnswer(answers[0]);
        expect(created.status, answers[0]).toBe(201);
        expect(JSON.parse(created.body)).toMatchObject({ name });
        const refusal = parseAnswer(answers[1]);
        expect(refusal.status, answers[1]).toBe(second.status);
        expect(refusal.headers.connection).toBe('close');
        expect((JSON.parse(refusal.body) as { faultstring: string }).faultstring).toMatch(FAULTSTRINGS[second.status]);
      }),
      { numRuns: 30 },
    );
  });
});
