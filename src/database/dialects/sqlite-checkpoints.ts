/**
 * Checkpoints of the embedded database's write-ahead log in a worker thread (fix, issue 26). By
 * default SQLite checkpoints in the connection that commits, once the log passes 1,000 pages:
 * after a 140,000-rule price-list apply (its rules and their audit rows) that copy took 0.35 s
 * on an idle machine and 1.7 s under CI load, all of it on the event loop, where `/healthcheck`
 * waited. Here the server's connection never checkpoints (`wal_autocheckpoint = 0`); a worker
 * thread with a connection of its own does, once per {@link CHECKPOINT_INTERVAL_MS}, while the
 * event loop serves. A clean close stops the worker first, so that the server's connection is
 * the last one and checkpoints and removes the log as before.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';

/** How often the worker copies the log into the file, in ms. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/** Longest wait of a close for the worker to close its connection (a checkpoint under way), in ms. */
const STOP_WAIT_MS = 5000;

/**
 * The compiled worker module, beside this one in dist/. The in-process tests, which run the
 * sources, keep SQLite's default (as price-list reading does, reading.ts).
 */
const WORKER_URL = new URL('./sqlite-checkpoint-worker.js', import.meta.url);

/** A running checkpoint worker. */
export interface Checkpointer {
  /** Closes the worker's connection (waiting at most {@link STOP_WAIT_MS}) and ends it. */
  stop(): void;
}

/**
 * Moves the checkpoints of `connection` (open on `file`, in WAL mode) to a worker thread. When
 * the worker cannot start or fails later, the connection checkpoints by itself again (SQLite's
 * default of 1,000 pages), so the log never grows without bound.
 *
 * @returns the worker, or undefined when its module is missing (the connection keeps SQLite's default).
 */
export function checkpointInWorker(connection: DatabaseSync, file: string): Checkpointer | undefined {
  if (!existsSync(fileURLToPath(WORKER_URL))) return undefined;
  const closed = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_URL, { workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS, closed } });
  worker.unref();
  connection.exec('PRAGMA wal_autocheckpoint = 0');
  let stopped = false;
  const checkpointHere = () => {
    if (!stopped && connection.isOpen) connection.exec('PRAGMA wal_autocheckpoint = 1000');
  };
  worker.on('error', checkpointHere);
  worker.on('exit', checkpointHere);
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      worker.postMessage('stop');
      Atomics.wait(closed, 0, 0, STOP_WAIT_MS);
      void worker.terminate();
    },
  };
}
