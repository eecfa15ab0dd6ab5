/**
 * Checkpoints of the embedded database's write-ahead log in a worker thread (fix, issue 26). By
 * default SQLite checkpoints in the connection that commits, once the log passes 1,000 pages:
 * after a 140,000-rule price-list apply (its rules and their audit rows) that copy took 0.35 s
 * on an idle machine and 1.7 s under CI load, all of it on the event loop, where `/healthcheck`
 * waited. Here the server's connection never checkpoints (`wal_autocheckpoint = 0`). Every
 * {@link CHECK_INTERVAL_MS} it looks at the log's size (one `stat`); past
 * {@link CHECKPOINT_AFTER_BYTES}, SQLite's own threshold, a worker thread with a connection of
 * its own copies the log and ends, while the event loop serves. No thread is kept between
 * checkpoints (a resident one held ~8 MB). A clean close waits for a checkpoint under way, so
 * that the server's connection is the last one and checkpoints and removes the log as before.
 */
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';

/** How often the log's size is looked at, in ms. */
export const CHECK_INTERVAL_MS = 1000;

/** The log's size past which it is copied: SQLite's default, 1,000 pages of 4 KiB. */
export const CHECKPOINT_AFTER_BYTES = 1000 * 4096;

/** Longest wait of a close for a checkpoint under way, in ms. */
const CLOSE_WAIT_MS = 5000;

/**
 * The compiled worker module, beside this one in dist/. The in-process tests, which run the
 * sources, keep SQLite's default (as price-list reading does, reading.ts).
 */
const WORKER_URL = new URL('./sqlite-checkpoint-worker.js', import.meta.url);

/** The checkpoints of one connection. */
export interface Checkpointer {
  /** Stops looking at the log and waits (at most {@link CLOSE_WAIT_MS}) for a checkpoint under way. */
  stop(): void;
}

/**
 * Moves the checkpoints of `connection` (open on `file`, in WAL mode) to worker threads. When a
 * worker cannot start or fails, the connection checkpoints by itself again (SQLite's default of
 * 1,000 pages), so the log never grows without bound.
 *
 * @returns the checkpointer, or undefined when the worker module is missing (the connection
 *   keeps SQLite's default).
 */
export function checkpointInWorker(connection: DatabaseSync, file: string): Checkpointer | undefined {
  if (!existsSync(fileURLToPath(WORKER_URL))) return undefined;
  connection.exec('PRAGMA wal_autocheckpoint = 0');
  const log = `${file}-wal`;
  let running: Int32Array | undefined;
  let stopped = false;
  const checkpointHere = () => {
    if (stopped || !connection.isOpen) return;
    stopped = true;
    clearInterval(timer);
    connection.exec('PRAGMA wal_autocheckpoint = 1000');
  };
  const check = () => {
    if (running !== undefined && Atomics.load(running, 0) === 0) return;
    running = undefined;
    let size = 0;
    try {
      size = statSync(log).size;
    } catch {
      return; // no log yet
    }
    if (size < CHECKPOINT_AFTER_BYTES) return;
    const done = new Int32Array(new SharedArrayBuffer(4));
    running = done;
    const worker = new Worker(WORKER_URL, { workerData: { file, done } });
    worker.unref();
    worker.on('error', checkpointHere);
  };
  const timer = setInterval(check, CHECK_INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (running !== undefined) Atomics.wait(running, 0, 0, CLOSE_WAIT_MS);
    },
  };
}
