/**
 * The state directory of a test run's shared Keystone (shared.ts): one per vitest run, under the
 * OS tmp dir, named for the vitest process (`tariff-keystone-run-<pid>`), with an `owner` file
 * naming that process by pid and start time (a reused pid is not taken for it). The global setup
 * (global-setup.ts) makes it and, at the end of the run, stops its Keystone and removes it. A run
 * killed before its teardown leaves it behind: the watchdog started with the Keystone stops it,
 * and failing that the next run's setup does ({@link removeAbandonedRunDirectories}).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { identityPid, processIdentity, processIsAlive, processStartTime } from '../helpers/process-identity.js';
import { stopKeystone } from './keystone.js';

const PREFIX = 'tariff-keystone-run-';
const STOP_SCRIPT = fileURLToPath(new URL('stop.sh', import.meta.url));

/** Makes (or finds) the run directory of this process, the vitest main process, which it names as owner. */
export function makeRunDirectory(): string {
  const directory = join(tmpdir(), `${PREFIX}${process.pid}`);
  mkdirSync(directory, { recursive: true });
  const owner = join(directory, 'owner');
  if (!existsSync(owner) || !processIsAlive(readFileSync(owner, 'utf8'))) writeFileSync(owner, processIdentity());
  return directory;
}

/**
 * Starts, detached, a watchdog that runs stop.sh on `directory` once the owner (the vitest
 * process) is gone: a run killed before its teardown leaves no Keystone behind. Its identity is
 * kept in `<directory>/watchdog`, for {@link removeRunDirectory} to end it.
 */
export function startWatchdog(directory: string): void {
  const owner = identityPid(readFileSync(join(directory, 'owner'), 'utf8'));
  const log = openSync(join(directory, 'watchdog.log'), 'a');
  try {
    const watchdog = spawn(
      'bash',
      [
        '-c',
        'while kill -0 "$1" 2>/dev/null; do sleep 2; done; exec bash "$2" --purge "$3"',
        'tariff-keystone-watchdog',
        String(owner),
        STOP_SCRIPT,
        directory,
      ],
      { detached: true, stdio: ['ignore', log, log] },
    );
    watchdog.unref();
    if (watchdog.pid === undefined) throw new Error('the Keystone watchdog did not start');
    writeFileSync(join(directory, 'watchdog'), processIdentity(watchdog.pid));
  } finally {
    closeSync(log);
  }
}

/** Ends the watchdog of `directory` (its process group: bash and its sleep), if it still runs. */
function endWatchdog(directory: string): void {
  let identity: string;
  try {
    identity = readFileSync(join(directory, 'watchdog'), 'utf8');
  } catch {
    return;
  }
  if (!processIsAlive(identity)) return;
  try {
    process.kill(-identityPid(identity), 'SIGTERM');
  } catch {
    // ended meanwhile
  }
}

/** Stops the Keystone of a run directory and its watchdog, and removes the directory. */
export async function removeRunDirectory(directory: string): Promise<void> {
  endWatchdog(directory);
  if (existsSync(join(directory, 'keystone.conf'))) await stopKeystone(directory, { purge: true });
  rmSync(directory, { recursive: true, force: true });
}

/**
 * Removes the run directories whose owner is gone (runs killed before their teardown), stopping
 * their Keystone. Other runs' directories (other vitest processes on the machine) are left alone.
 *
 * @returns the directories removed.
 */
export async function removeAbandonedRunDirectories(): Promise<string[]> {
  const abandoned = readdirSync(tmpdir())
    .filter((name) => name.startsWith(PREFIX))
    .map((name) => join(tmpdir(), name))
    .filter((directory) => {
      try {
        return !processIsAlive(readFileSync(join(directory, 'owner'), 'utf8'));
      } catch {
        // No owner file: the pid in the name is the owner's.
        return processStartTime(Number(directory.slice(directory.lastIndexOf(PREFIX) + PREFIX.length))) === undefined;
      }
    });
  for (const directory of abandoned) await removeRunDirectory(directory);
  return abandoned;
}
