/**
 * The progress on stderr (src/client/progress.ts): nothing in the first second; then on a terminal
 * one line rewritten with the phase and the seconds, cleared at the end; elsewhere one line per phase.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Progress } from '../../src/client/progress.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('progress', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('stays silent for a quick exchange', () => {
    let now = 0;
    const terminal = stream(true);
    const progress = new Progress(terminal, () => now);
    progress.enter('reading prices.yaml');
    now = 400;
    progress.enter('sending 1.2 KB');
    progress.stop();
    expect(terminal.written).toEqual([]);
  });

  it('rewrites one terminal line with the phase and the seconds, and clears it', () => {
    vi.useFakeTimers();
    let now = 0;
    const terminal = stream(true);
    const progress = new Progress(terminal, () => now);
    progress.enter('sending 412 KB');
    now = 300;
    progress.enter('waiting for the server to apply');
    now = 1000;
    vi.advanceTimersByTime(1000);
    now = 2000;
    vi.advanceTimersByTime(1000);
    progress.stop();
    expect(terminal.written).toEqual(['\r\x1b[Kwaiting for the server to apply… 1 s', '\r\x1b[Kwaiting for the server to apply… 2 s', '\r\x1b[K']);
  });

  it('writes one line per phase past the first second when stderr is not a terminal', () => {
    vi.useFakeTimers();
    let now = 0;
    const log = stream(false);
    const progress = new Progress(log, () => now);
    progress.enter("waiting for the server's plan");
    now = 1500;
    vi.advanceTimersByTime(3000);
    now = 4200;
    progress.enter('waiting for the server to apply');
    progress.stop();
    expect(log.written).toEqual(["tariff: waiting for the server's plan… (1 s so far)\n", 'tariff: waiting for the server to apply… (4 s so far)\n']);
  });
});
