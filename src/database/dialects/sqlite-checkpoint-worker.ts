/**
 * The worker thread of sqlite-checkpoints.ts: its own connection to the database file, which
 * copies the write-ahead log into the file every `intervalMs` (`PRAGMA wal_checkpoint(PASSIVE)`:
 * as much as no reader or writer is waiting for, never blocking them). On `stop` it closes its
 * connection, sets `closed[0]` to 1 and wakes the waiting thread.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { file, intervalMs, closed } = workerData as { file: string; intervalMs: number; closed: Int32Array };
const database = new DatabaseSync(file, { timeout: 0 });
const checkpoint = () => {
  try {
    database.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // Busy (another process checkpoints) or the disk is full: the next turn tries again.
  }
};
const timer = setInterval(checkpoint, intervalMs);
parentPort?.postMessage('ready');
parentPort?.on('message', () => {
  clearInterval(timer);
  database.close();
  Atomics.store(closed, 0, 1);
  Atomics.notify(closed, 0);
  parentPort?.close();
});
