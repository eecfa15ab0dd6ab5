// Child processes started by the bench, and their guaranteed shutdown.
//
// Every process the bench starts is registered here; `stopAll()` stops them (SIGTERM, then
// SIGKILL after a bounded wait) and is called from the normal exit path, from the error path and
// from SIGINT/SIGTERM handlers. A last-resort `process.on('exit')` hook sends SIGKILL
// synchronously to anything still alive.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const children = new Set();

process.on('exit', () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

/** Resolves with a TCP port that was free on `host` a moment ago. */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a process; its stdout and stderr go to `logFile`. Returns a handle with `child`,
 * `exited` (a promise of {code, signal}) and `stop()`.
 */
export function startProcess(command, args, { cwd, env, logFile }) {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  children.add(child);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      children.delete(child);
      resolve({ code: null, signal: null, error });
    });
  });
  let stopping;
  const stop = (graceMs = 10_000) =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        child.kill('SIGTERM');
        const timer = new Promise((resolve) => setTimeout(resolve, graceMs, 'timeout'));
        if ((await Promise.race([exited, timer])) === 'timeout') {
          process.stderr.write(`[bench] pid ${child.pid} did not stop within ${graceMs} ms: SIGKILL\n`);
          child.kill('SIGKILL');
          await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        }
      }
      const result = await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1_000, {}))]);
      await new Promise((resolve) => log.end(resolve));
      return result;
    })());
  return { child, exited, stop, logFile };
}

/** Stops every process still registered (bounded: at most ~15 s per process, in parallel). */
export async function stopAll(handles) {
  await Promise.allSettled(handles.filter(Boolean).map((handle) => handle.stop()));
}

/** Resident set size of a pid in MiB (Linux /proc), or null. */
export function rssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** User + system CPU clock ticks of a pid and its direct children (Linux /proc), or null. */
export function cpuTicksOfTree(pid) {
  const pids = [pid];
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    if (kids) pids.push(...kids.split(/\s+/).map(Number));
  } catch {
    return null;
  }
  let total = 0;
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // fields after the command name "(...)": state is field 3; utime 14, stime 15
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += Number(rest[11]) + Number(rest[12]);
    } catch {
      // process vanished between the two reads
    }
  }
  return total;
}
