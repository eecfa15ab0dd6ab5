/**
 * When the pool boots a replacement worker. Booting loads pyodide: about 3 s of one core (20 s
 * on a loaded machine), taken from the workers that serve. So replacements back off when they
 * keep being needed:
 *
 * - after workers are killed by limits or crashes: none while the kills of the last minute are at
 *   most as many as the pool's workers (spares included: a burst the pool absorbs), then 1 s, 2 s,
 *   4 s... (at most 30 s) for each further one, but only while some worker is still loaded (when
 *   none is, callers are waiting and the pool boots at once);
 * - after a worker fails to start (pyodide missing, a broken install): 1 s, 2 s, 4 s... (at most
 *   30 s) until one starts, whether or not a worker is loaded.
 */

/** Longest pause before a replacement boot, in ms. */
export const MAX_RESTART_DELAY_MS = 30_000;
/** Kills older than this no longer slow replacements down, in ms. */
const KILL_WINDOW_MS = 60_000;
/** The first pause, doubled for each further kill or failed start, in ms. */
const FIRST_DELAY_MS = 1000;

/** Counts kills and failed starts and derives the pause before the next boot. */
export class RestartPolicy {
  /** Clock readings of recent kills, oldest first. */
  private readonly kills: number[] = [];
  private failedStarts = 0;

  /**
   * @param freeKills - kills in a minute that do not delay replacements (the pool's worker count).
   * @param clock - milliseconds from a monotonic clock (`performance.now` by default; tests pass their own).
   */
  constructor(
    private readonly freeKills: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** A loaded worker was killed after a timeout, memory excess or crash. */
  workerKilled(): void {
    this.kills.push(this.clock());
  }

  /** A worker failed to start. */
  startFailed(): void {
    this.failedStarts++;
  }

  /** A worker started: start failures no longer count. */
  startSucceeded(): void {
    this.failedStarts = 0;
  }

  /**
   * The pause before the next replacement boot, in ms (0: boot now).
   *
   * @param anyWorkerLoaded - whether a loaded worker still serves; kills do not delay boots when none does.
   */
  delayMs(anyWorkerLoaded: boolean): number {
    const now = this.clock();
    while (this.kills.length > 0 && now - this.kills[0] > KILL_WINDOW_MS) this.kills.shift();
    const afterFailedStarts = this.failedStarts === 0 ? 0 : doubling(this.failedStarts - 1);
    const afterKills = anyWorkerLoaded && this.kills.length > this.freeKills ? doubling(this.kills.length - this.freeKills - 1) : 0;
    return Math.max(afterFailedStarts, afterKills);
  }
}

/** `FIRST_DELAY_MS × 2^steps`, at most {@link MAX_RESTART_DELAY_MS}. */
function doubling(steps: number): number {
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(steps, 16));
}
