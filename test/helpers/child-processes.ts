/**
 * A process's children as `ps` sees them: a server's sandbox workers (test/sandbox/demand.test.ts,
 * test/server/drain.test.ts), npm's server (test/release/start-stop.test.ts).
 */
import { execFileSync } from 'node:child_process';

/** The pids of `pid`'s child processes (its sandbox workers), zombies left out; [] when it has none. */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([child, state]) => Number(child) > 0 && !state?.startsWith('Z'))
      .map(([child]) => Number(child));
  } catch {
    return [];
  }
}

/** `pid`'s descendants, deepest first: what to kill before it so that none is left orphaned. */
export function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [...descendantsOf(child), child]);
}

/** Whether `pid` runs (a zombie left to a container's init that does not reap it counts as gone). */
export function alive(pid: number): boolean {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false;
  }
}
