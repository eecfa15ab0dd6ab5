/**
 * A server process's children as `ps` sees them: the sandbox workers of test/sandbox/demand.test.ts
 * and test/server/drain.test.ts.
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

/** Whether `pid` runs (a zombie left to a container's init that does not reap it counts as gone). */
export function alive(pid: number): boolean {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false;
  }
}
