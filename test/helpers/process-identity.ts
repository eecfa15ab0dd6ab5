/**
 * Names a process by its pid and start time, so that a later process given the same pid is not
 * taken for it: the owners of the test run's locks and state directories.
 */
import { readFileSync } from 'node:fs';

/** The start time of process `pid` (clock ticks after boot: /proc/<pid>/stat's 22nd field), or undefined when there is no such process. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** `<pid> <start time>`: names a process so that another one given the same pid later is not taken for it. */
export function processIdentity(pid: number = process.pid): string {
  return `${pid} ${processStartTime(pid)}`;
}

/** Whether the process an identity ({@link processIdentity}) names still runs. */
export function processIsAlive(identity: string): boolean {
  const [pid, startTime] = identity.trim().split(' ');
  return Number(pid) > 0 && processStartTime(Number(pid)) === startTime;
}

/** The pid an identity names. */
export function identityPid(identity: string): number {
  return Number(identity.trim().split(' ')[0]);
}
