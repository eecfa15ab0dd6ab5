/**
 * Long loops that let the event loop turn now and then, so that a large price list or quote does
 * not hold every other request behind it (fix, issue 24: `/healthcheck` waited seconds behind a
 * 280,000-rule price list read and planned in one go).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Steps of a long loop between two turns of the event loop: a few milliseconds of work each. */
export const STEPS_PER_TURN = 5000;

/**
 * Counts a loop's steps: `await turns.step()` in the loop lets the event loop turn (timers, I/O,
 * other requests) every `every` steps, and costs a resolved `await` otherwise.
 */
export class EventLoopTurns {
  private steps = 0;

  /** @param every - steps between two turns (default {@link STEPS_PER_TURN}). */
  constructor(private readonly every = STEPS_PER_TURN) {}

  /** Counts one step; resolves after a turn of the event loop every `every` steps, at once otherwise. */
  step(): Promise<void> | undefined {
    this.steps += 1;
    return this.steps % this.every === 0 ? nextTurn() : undefined;
  }
}
