/**
 * The worker thread of a price-list read (reading.ts): one request in `workerData`, its answer
 * posted back in pieces on the port it was given (value-pieces.ts), then their count on the
 * parent port, and the thread ends (its heap, and the garbage of a large document, go with it).
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { checkDocument, locatePaths, type CheckRequest, type LocateRequest } from './checked-document.js';
import { valuePieces } from './value-pieces.js';

const { request, port } = workerData as { request: CheckRequest | LocateRequest; port: MessagePort };
try {
  const answer = request.kind === 'check' ? checkDocument(request) : locatePaths(request);
  let pieces = 0;
  for (const piece of valuePieces(answer)) {
    port.postMessage(piece);
    pieces += 1;
  }
  parentPort?.postMessage({ pieces });
} catch (error) {
  parentPort?.postMessage({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
}
