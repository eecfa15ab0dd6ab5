/**
 * Hostile callers all at once against one real server process (issue 24): uploads that stall
 * halfway, readers that stop reading a large answer, 80 concurrent 50,000-point v2 quotes, and
 * 100 header-only price-list requests declaring 70 MB. Throughout, a prober in a process of its
 * own asks `/healthcheck` every 100 ms: every answer must come within 1 s. The server's RSS is
 * sampled and must stay under {@link RSS_BOUND_MB} (docs/operators/configuration.md, "Limits"). Each client gets what its
 * kind calls for: a stalled upload its 408 at TARIFF_STALL_TIMEOUT, a reader that stops is cut at
 * the same time-out, a quote its 200 or an immediate 503 with `Retry-After`, a header-only
 * price list its 413.
 *
 * The counts are bounded so the run takes well under a minute on a 2-core machine; the time-outs
 * are set small (seconds) for the same reason.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHealthProbe } from '../helpers/health-probe.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';

/** The bound docs/operators/configuration.md documents for a server under this load (default settings but the time-outs). */
const RSS_BOUND_MB = 768;
/** Settings of the server under load: the defaults, with time-outs short enough for a test. */
const STALL_SECONDS = 3;
const SERVER_SETTINGS = { TARIFF_STALL_TIMEOUT: String(STALL_SECONDS) };

const QUOTES = 80;
const QUOTE_POINTS = 50_000;
const STALLED_UPLOADS = 20;
const STOPPED_READERS = 8;
const HEADER_ONLY_PRICE_LISTS = 100;

let server: ServerProcess;

beforeAll(async () => {
  const directory = mkdtempSync(join(tmpdir(), 'tariff-load-'));
  server = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, SERVER_SETTINGS);
  const priceList = {
    modules: { hashmap: { enabled: true, priority: 1 } },
    services: {
      instance: {
        mappings: [{ type: 'rate', cost: '1.1' }],
        fields: {
          flavor: {
            mappings: ['m1.nano', 'm1.tiny', 'm1.small', 'm1.large'].map((value, index) => ({ value, type: 'flat', cost: `0.0${index + 1}` })),
          },
        },
      },
    },
  };
  const applied = await fetch(`${server.url}/v2/rating/price_list`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(priceList),
  });
  expect(applied.status, await applied.text()).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** A v2 quote body of `count` points over four flavors. */
function quoteBody(count: number, options: { explain?: boolean } = {}): Buffer<ArrayBuffer> {
  const flavors = ['m1.nano', 'm1.tiny', 'm1.small', 'm1.large'];
  const usage = Array.from({ length: count }, (_, index) => ({
    vol: { unit: 'instance', qty: String(1 + (index % 4)) },
    groupby: { flavor: flavors[index % 4], project_id: `p${index % 7}` },
    metadata: { memory: String(512 * (1 + (index % 8))) },
  }));
  return Buffer.from(JSON.stringify({ usage: { instance: usage }, explain: options.explain ?? false }));
}

/** How one raw connection ended. */
interface RawOutcome {
  /** The answer's status, when one came (0: none). */
  status: number;
  /** Milliseconds from the first byte sent to the close. */
  closedAfterMs: number;
  /** Bytes of answer read. */
  received: number;
}

/**
 * Sends `head` and the first `sendBytes` of `body`, then nothing more; reads `readBytes` of the
 * answer, then stops reading for `pauseMs` (the server's socket buffers fill and its writes stall)
 * and reads again: what was cut is never read. Resolves when the connection is closed.
 */
function rawClient(head: string, body: Buffer, { sendBytes = body.length, readBytes = Infinity, pauseMs = 0 } = {}): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket: Socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
    let received = 0;
    let first = '';
    socket.on('data', (chunk: Buffer) => {
      if (first.length < 64) first += chunk.toString('latin1', 0, 64);
      const before = received;
      received += chunk.length;
      if (before < readBytes && received >= readBytes) {
        socket.pause();
        setTimeout(() => socket.resume(), pauseMs);
      }
    });
    socket.on('error', () => undefined);
    // The server ended its side (an answer and a lingering close, or a cut): the connection is over.
    socket.on('end', () => socket.destroy());
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? 0), closedAfterMs: performance.now() - started, received }));
    socket.write(head);
    if (sendBytes > 0) socket.write(body.subarray(0, sendBytes));
  });
}

/** The server process's resident set, in MiB. */
function rssMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

describe('hostile callers at once', () => {
  it('keeps /healthcheck within 1 s and RSS bounded, and gives every client its time-out, 413 or 503', async () => {
    const explainedAnswerBytes = (
      await (
        await fetch(`${server.url}/v2/rating/quote`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: quoteBody(QUOTE_POINTS, { explain: true }),
        })
      ).arrayBuffer()
    ).byteLength;
    const pid = server.child.pid as number;
    let peakRss = rssMegabytes(pid);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMegabytes(pid))), 200);
    const probe = startHealthProbe(server.url, 100);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const bigQuote = quoteBody(QUOTE_POINTS);
    const explained = quoteBody(QUOTE_POINTS, { explain: true });
    // `close`: a raw client's connection ends with its answer; `keep-alive`: a refused upload's
    // connection stays open for the rest of the body, which stalls (cut at the stall time-out).
    const quoteHead = (length: number, connection = 'close') =>
      `POST /v2/rating/quote HTTP/1.1\r\nHost: tariff\r\nConnection: ${connection}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

    // The quotes first: they come from the same address as the attackers (one tenant), so whichever
    // reaches the quote budget first is admitted; a quarter of a second lets some quotes in before it
    // is taken (which ones is up to the event loop on both sides).
    const quotes = Array.from({ length: QUOTES }, async () => {
      const response = await fetch(`${server.url}/v2/rating/quote`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bigQuote,
        signal: AbortSignal.timeout(120_000),
      });
      const text = await response.text();
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        total: response.ok ? (JSON.parse(text) as { total: string }).total : undefined,
      };
    });
    await new Promise((resolve) => setTimeout(resolve, 250));

    const stalled = Array.from({ length: STALLED_UPLOADS }, (_, index) =>
      rawClient(quoteHead(2 * bigQuote.length, index % 2 === 0 ? 'keep-alive' : 'close'), bigQuote, { sendBytes: bigQuote.length }),
    );
    const stoppedReaders = Array.from({ length: STOPPED_READERS }, () =>
      rawClient(quoteHead(explained.length), explained, { readBytes: 1024, pauseMs: (STALL_SECONDS + 5) * 1000 }),
    );
    const headerOnly = Array.from({ length: HEADER_ONLY_PRICE_LISTS }, () =>
      rawClient('POST /v2/rating/price_list HTTP/1.1\r\nHost: tariff\r\nContent-Type: application/yaml\r\nContent-Length: 70000000\r\n\r\n', Buffer.alloc(0), {
        sendBytes: 0,
      }),
    );
    const [stalledOutcomes, readerOutcomes, headerOutcomes, quoteOutcomes] = await Promise.all([
      Promise.all(stalled),
      Promise.all(stoppedReaders),
      Promise.all(headerOnly),
      Promise.all(quotes),
    ]);
    const latencies = await probe.stop();
    clearInterval(sampler);

    // Stalled uploads: a 408 once the body has made no progress for the time-out, or a 503 at
    // once when the quote budget (they come from one address: one tenant) is taken.
    for (const outcome of stalledOutcomes) {
      expect([408, 503]).toContain(outcome.status);
      expect(outcome.closedAfterMs).toBeLessThan((STALL_SECONDS + 30) * 1000);
    }
    // Readers that stop: cut at the stall time-out, never reading the whole answer; or 503 at
    // once when the budget is taken.
    for (const outcome of readerOutcomes) {
      expect([200, 503]).toContain(outcome.status);
      if (outcome.status === 200) expect(outcome.received).toBeLessThan(explainedAnswerBytes / 2);
    }
    // Header-only price lists past the body limit: 413 at once.
    for (const outcome of headerOutcomes) expect(outcome.status).toBe(413);
    // Quotes: priced alike, or refused at once with Retry-After.
    const priced = quoteOutcomes.filter((outcome) => outcome.status === 200);
    expect(priced.length).toBeGreaterThan(0);
    expect(new Set(priced.map((outcome) => outcome.total)).size).toBe(1);
    for (const outcome of quoteOutcomes.filter((outcome) => outcome.status !== 200)) {
      expect(outcome.status).toBe(503);
      expect(Number(outcome.retryAfter)).toBeGreaterThan(0);
    }
    expect(latencies.length).toBeGreaterThan(5);
    expect(Math.max(...latencies), `health check latencies: ${latencies.map(Math.round).join(' ')}`).toBeLessThan(1000);
    expect(peakRss).toBeLessThan(RSS_BOUND_MB);
  }, 240_000);
});
