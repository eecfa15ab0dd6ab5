/**
 * The console's reading of a simulation (console/src/api/simulation.ts): the NDJSON answer read as
 * it streams, in chunks that cut lines anywhere, a result only from its own line, an `error` line
 * as the server's fault, an answer cut before its last line as no result; and the words the
 * impact section writes: a relative delta as a percentage worked out on its digits, the default
 * period (the last full month, UTC), a collection period.
 */
import { describe, expect, it } from 'vitest';
import { IncompleteAnswerError, readSimulationAnswer, SimulationError, type SimulationProgress } from '../../console/src/api/simulation.js';
import { percentText } from '../../console/src/decimal-text.js';
import { lastFullMonth, periodText } from '../../console/src/pages/price-list/impact-period.js';

/** A stream of `text` cut into chunks of `size` bytes (a multi-byte character cut too). */
function streamOf(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

const RESULT = { totals: { delta: '-0.000000000000000000000000001', points: 3 }, projects: [{ project_id: 'projé', delta: '1' }] };

describe('reading a simulation’s NDJSON answer', () => {
  it('calls back for each progress line and answers the result, whatever the chunks', async () => {
    const text = [
      { progress: { points: 0, windows: 0, windows_done: 0, elapsed_ms: 0 } },
      { progress: { points: 1500, windows: 24, windows_done: 3, elapsed_ms: 1004 } },
      { result: RESULT },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
    for (const size of [1, 3, 7, 1000]) {
      const progress: SimulationProgress[] = [];
      const result = await readSimulationAnswer(streamOf(`${text}\n`, size), (line) => progress.push(line));
      expect(result).toEqual(RESULT);
      expect(progress.map((line) => line.points)).toEqual([0, 1500]);
    }
    // The last line without its newline is read too.
    expect(await readSimulationAnswer(streamOf(text, 5), () => {})).toEqual(RESULT);
  });

  it('throws the error line’s fault with its status, and no result', async () => {
    const text = `${JSON.stringify({ progress: { points: 10, windows: 0, windows_done: 0, elapsed_ms: 5 } })}\n${JSON.stringify({
      error: { faultcode: 'Client', faultstring: 'Usage file line 2: "period" must be an object.', debuginfo: null, status: 400 },
    })}\n`;
    const error = await readSimulationAnswer(streamOf(text, 4), () => {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SimulationError);
    expect(error).toMatchObject({ status: 400, message: 'Usage file line 2: "period" must be an object.' });
  });

  it('throws when the answer ends before its result or error line', async () => {
    const text = `${JSON.stringify({ progress: { points: 10, windows: 0, windows_done: 0, elapsed_ms: 5 } })}\n{"result": {"totals"`;
    await expect(readSimulationAnswer(streamOf(text, 4), () => {})).rejects.toBeInstanceOf(IncompleteAnswerError);
    await expect(readSimulationAnswer(streamOf(text.slice(0, text.indexOf('\n') + 1), 4), () => {})).rejects.toBeInstanceOf(IncompleteAnswerError);
  });
});

describe('the impact section’s words', () => {
  it('writes a relative delta as a percentage rounded half away from zero, on its digits', () => {
    expect(percentText('0.05394896719319562575941676792')).toBe('5.39 %');
    expect(percentText('-0.05395')).toBe('-5.40 %');
    expect(percentText('1')).toBe('100.00 %');
    expect(percentText('0.005')).toBe('0.50 %');
    expect(percentText('0.00004999')).toBe('0.00 %');
    expect(percentText('-1.5e-7')).toBe('0.00 %');
    expect(percentText('1.2345E+1')).toBe('1234.50 %');
    expect(percentText('0.99999')).toBe('100.00 %');
    expect(percentText('123456789012345678901234567.89')).toBe('12345678901234567890123456789.00 %');
    expect(percentText('not a number')).toBe('not a number');
  });

  it('defaults to the last full month in UTC', () => {
    expect(lastFullMonth(new Date('2026-11-27T23:51:03Z'))).toEqual({ begin: new Date('2026-10-01T00:00:00Z'), end: new Date('2026-11-01T00:00:00Z') });
    expect(lastFullMonth(new Date('2027-01-01T00:00:00Z'))).toEqual({ begin: new Date('2026-12-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') });
  });

  it('writes a collection period on one day shortly, across days in full', () => {
    expect(periodText('2026-10-05T05:00:00+00:00', '2026-10-05T06:00:00+00:00')).toBe('2026-10-05 05:00–06:00 UTC');
    expect(periodText('2026-10-01T00:00:00+00:00', '2026-11-01T00:00:00+00:00')).toBe('2026-10-01 00:00 – 2026-11-01 00:00 UTC');
  });
});
