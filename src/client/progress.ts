/**
 * Progress of a long exchange on stderr: the current phase ("reading plan.yaml", "sending 412 KB",
 * "waiting for the server") with the seconds elapsed. Silent for the first second, so quick commands
 * print nothing; then, on a terminal, one line rewritten every second, and elsewhere (a log) one
 * line per phase.
 */

/** Where progress goes: stderr, or a test's stream. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Nothing is shown before this many milliseconds. */
const QUIET_MS = 1000;

/** Reports the phases of one operation; {@link Progress.stop} before printing anything else. */
export class Progress {
  private readonly started: number;
  private phase = '';
  private printedPhase = '';
  private lineShown = false;
  private readonly timer: NodeJS.Timeout;

  /**
   * @param stream - stderr (a terminal gets the rewritten line).
   * @param now - the clock, in milliseconds.
   */
  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
    this.timer = setInterval(() => this.render(), 1000);
    this.timer.unref();
  }

  /** Starts a phase, e.g. `waiting for the server`. */
  enter(phase: string): void {
    this.phase = phase;
    this.render();
  }

  /** Seconds since the operation started, whole. */
  private elapsedSeconds(): number {
    return Math.floor((this.now() - this.started) / 1000);
  }

  /** Shows the current phase, once past the quiet second. */
  render(): void {
    if (this.phase === '' || this.now() - this.started < QUIET_MS) return;
    if (this.stream.isTTY) {
      this.stream.write(`\r\x1b[K${this.phase}… ${this.elapsedSeconds()} s`);
      this.lineShown = true;
    } else if (this.printedPhase !== this.phase) {
      this.stream.write(`tariff: ${this.phase}… (${this.elapsedSeconds()} s so far)\n`);
      this.printedPhase = this.phase;
    }
  }

  /** Ends the report: clears the terminal line. */
  stop(): void {
    clearInterval(this.timer);
    if (this.lineShown) this.stream.write('\r\x1b[K');
    this.lineShown = false;
  }
}
