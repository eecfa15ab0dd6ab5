/**
 * The worker thread of sqlite-checkpoints.ts: a connection of its own to the database file,
 * which copies the write-ahead log into the file once (`PRAGMA wal_checkpoint(PASSIVE)`: as much
 * as no reader or writer waits for, never blocking them), closes, sets `done[0]` to 1, wakes a
 * thread waiting on it, and ends.
 */
import { DatabaseSync } from 'node:sqlite';
import { workerData } from 'node:worker_threads';

const { file, done } = workerData as { file: string; done: Int32Array };
try {
  const database = new DatabaseSync(file, { timeout: 0 });
  try {
    database.exec('PRAGMA wal_checkpoint(PASSIVE)');
  } finally {
    database.close();
  }
} catch {
  // Busy (another process checkpoints) or the disk is full: the next check tries again.
} finally {
  Atomics.store(done, 0, 1);
  Atomics.notify(done, 0);
}
