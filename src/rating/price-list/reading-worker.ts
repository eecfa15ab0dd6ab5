/**
 * The worker thread of a price-list read (reading.ts): one request in `workerData`, its answer
 * posted back, then the thread ends (its heap, and the garbage of a large document, go with it).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkDocument, locatePaths, type CheckRequest, type LocateRequest } from './checked-document.js';

const request = workerData as CheckRequest | LocateRequest;
try {
  parentPort?.postMessage({ ok: request.kind === 'check' ? checkDocument(request) : locatePaths(request) });
} catch (error) {
  parentPort?.postMessage({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
}
