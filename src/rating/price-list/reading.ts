/**
 * Reads price-list documents off the event loop (fix, issue 24: parsing and checking a large
 * document held the event loop, so `/healthcheck` waited 5.5 s behind a refused 7 MB document and
 * 42 s behind a 32 MB dry run). Each read runs {@link checkDocument} in a worker thread of its own
 * (node:worker_threads), and a refusal's positions are found there too; the main thread gets plain
 * values back, in pieces it takes one per turn of its event loop (value-pieces.ts). At most `TARIFF_PRICE_LIST_READS` reads run at once per process: past it, 503 with
 * `Retry-After`, at once.
 *
 * Where the compiled worker module is not beside this one (the tests run the TypeScript sources),
 * the same functions run on the main thread.
 */
import { existsSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { TariffError } from '../../kernel/errors.js';
import type { DocumentPath } from '../contract/price-list-section.js';
import { checkDocument, locatePaths, type CheckedDocument, type CheckRequest, type LocateRequest } from './checked-document.js';
import type { TextPosition } from './problems.js';
import { ValueAssembly, type ValuePiece } from './value-pieces.js';

/** The compiled worker module, beside this one in dist/. */
const WORKER_URL = new URL('./reading-worker.js', import.meta.url);

/** Seconds a refused apply is told to wait: a large read takes a few seconds. */
export const PRICE_LIST_RETRY_AFTER_SECONDS = 5;

/**
 * 503 with `Retry-After`: `TARIFF_PRICE_LIST_READS` documents are being read already; this one was
 * not read.
 */
export class PriceListBusyError extends TariffError {
  /** Seconds after which a retry may find room. */
  readonly retryAfterSeconds = PRICE_LIST_RETRY_AFTER_SECONDS;

  constructor(reads: number) {
    super(
      503,
      `Price lists are busy: ${reads} are being read in this process, the most TARIFF_PRICE_LIST_READS allows; try again in ${PRICE_LIST_RETRY_AFTER_SECONDS} s.`,
    );
  }
}

/** Runs reads and locates, in worker threads when the compiled worker exists. */
export class DocumentReading {
  private inFlight = 0;
  private readonly useWorkers = WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));

  /** @param reads - reads at once at most (`TARIFF_PRICE_LIST_READS`). */
  constructor(private readonly reads: number) {}

  /**
   * Reads and checks a document's text.
   *
   * @throws PriceListBusyError (503) when `reads` are running already.
   */
  async check(request: Omit<CheckRequest, 'kind'>): Promise<CheckedDocument> {
    if (this.inFlight >= this.reads) throw new PriceListBusyError(this.reads);
    this.inFlight += 1;
    try {
      return await this.run<CheckedDocument>({ kind: 'check', ...request }, () => checkDocument({ kind: 'check', ...request }));
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Where each path is in the text (a refusal's positions), off the event loop too. */
  async locate(text: string, paths: DocumentPath[]): Promise<(path: DocumentPath) => TextPosition | undefined> {
    if (paths.length === 0) return () => undefined;
    const request: LocateRequest = { kind: 'locate', text, paths };
    const positions = await this.run<(TextPosition | undefined)[]>(request, () => locatePaths(request));
    const byPath = new Map(paths.map((path, index) => [JSON.stringify(path), positions[index]]));
    return (path) => byPath.get(JSON.stringify(path));
  }

  private run<T>(request: CheckRequest | LocateRequest, inline: () => T): Promise<T> {
    if (!this.useWorkers) return Promise.resolve().then(inline);
    const { port1, port2 } = new MessageChannel();
    const answered = new Promise<number>((resolve, reject) => {
      const worker = new Worker(WORKER_URL, { workerData: { request, port: port2 }, transferList: [port2] });
      let settled = false;
      worker.once('message', (message: { pieces?: number; error?: string }) => {
        settled = true;
        if (message.error !== undefined) reject(new Error(`price-list reader: ${message.error}`));
        else resolve(message.pieces ?? 0);
      });
      worker.once('error', (error: unknown) => {
        settled = true;
        reject(error instanceof Error ? error : new Error(`price-list reader: ${String(error)}`));
      });
      worker.once('exit', (code) => {
        if (!settled) reject(new Error(`price-list reader ended with code ${code} before answering`));
      });
    });
    return answered.then((pieces) => receivePieces<T>(port1, pieces)).finally(() => port1.close());
  }
}

/**
 * The answer's `count` pieces, queued on `port` already (they stay there after the worker ended),
 * taken one per turn of the event loop: each is deserialized when taken.
 */
async function receivePieces<T>(port: MessagePort, count: number): Promise<T> {
  const assembly = new ValueAssembly();
  for (let index = 0; index < count; index += 1) {
    const received = receiveMessageOnPort(port);
    if (received === undefined) throw new Error(`price-list reader: piece ${index + 1} of ${count} missing`);
    assembly.add(received.message as ValuePiece);
    if (index + 1 < count) await nextTurn();
  }
  return assembly.value as T;
}
