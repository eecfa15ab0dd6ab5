/**
 * Progress of a long exchange on stderr: the current phase ("reading plan.yaml", "sending 412 KB",
 * "waiting for the server") with the seconds elapsed. Silent for the first second, so quick commands
 * print nothing; then, on a terminal, one line rewritten every second, and elsewhere (a log) one
 * line per phase. A phase's detail (a bar and counts: `[####......] 12/31 windows`) shows on a
 * terminal only: a log gets no line per update.
 */

/** Where progress goes: stderr, or a test's stream. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** A terminal's width: the line is cut to it, so that rewriting it never wraps. */
  columns?: number;
}

/** `[#####...............]`: `fraction` (0 to 1) of `width` cells filled. */
export function progressBar(fraction: number, width = 20): string {
  const filled = Math.round(Math.min(Math.max(Number.isFinite(fraction) ? fraction : 0, 0), 1) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/** Nothing is shown before this many milliseconds. */
const QUIET_MS = 1000;

/** Reports the phases of one operation; {@link Progress.stop} before printing anything else. */
export class Progress {
  private readonly started: number;
  private phase = '';
  private detailText = '';
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
    this.detailText = '';
    this.render();
  }

  /** Sets what the terminal line shows after the phase (until the next phase), at the next second's render. */
  detail(text: string): void {
    this.detailText = text;
  }

  /** Seconds since the operation started, whole. */
  private elapsedSeconds(): number {
    return Math.floor((this.now() - this.started) / 1000);
  }

  /** Shows the current phase, once past the quiet second. */
  render(): void {
    if (this.phase === '' || this.now() - this.started < QUIET_MS) return;
    if (this.stream.isTTY) {
      const line = `${this.phase}${this.detailText === '' ? '' : ` ${this.detailText}`}… ${this.elapsedSeconds()} s`;
      const width = this.stream.columns;
      this.stream.write(`\r\x1b[K${width !== undefined && width > 1 && line.length >= width ? `${line.slice(0, width - 2)}…` : line}`);
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
