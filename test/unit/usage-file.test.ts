/**
 * A usage file for a simulation (issue 27): CloudKitty v2 dataframes, one per line, plain or
 * gzip, read line by line. Quantities and prices keep their source text; every fault is a 400
 * naming the line; hostile bytes and JSON never end in another error.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../src/kernel/errors.js';
import { JsonNumberText } from '../../src/kernel/json-number.js';
import { readUsageFile, type StoredDataframe } from '../../src/rating/simulation/usage-file.js';

const LIMITS = { maxLineBytes: 64 * 1024, maxDecimalExponent: 100 };

/** The dataframes of `bytes`, handed over in chunks of `chunkSize` bytes. */
async function read(bytes: Buffer | string, chunkSize = 7, limits = LIMITS): Promise<StoredDataframe[]> {
  const buffer = Buffer.from(bytes);
  const chunks = Array.from({ length: Math.ceil(buffer.length / chunkSize) }, (_, index) => buffer.subarray(index * chunkSize, (index + 1) * chunkSize));
  const frames: StoredDataframe[] = [];
  for await (const frame of readUsageFile(Readable.from(chunks), limits)) frames.push(frame);
  return frames;
}

async function refusal(bytes: Buffer | string, limits = LIMITS): Promise<string> {
  try {
    await read(bytes, 7, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return (error as Error).message;
  }
  throw new Error('read without a fault');
}

const FILE = [
  '{"period": {"begin": "2026-11-01T00:00:00+00:00", "end": "2026-11-01T01:00:00+00:00"}, "usage": {"instance": [' +
    '{"vol": {"unit": "instance", "qty": 1.50}, "rating": {"price": "0.075"}, "groupby": {"project_id": "p1", "id": "vm-1"}, "metadata": {"flavor_name": "m1.large", "vcpus": 2.0}}]}}',
  '',
  '{"period": {"begin": "2026-11-01T01:00:00Z", "end": "2026-11-01T02:00:00Z"}, "usage": {"volume.size": [{"vol": {"unit": "GiB", "qty": "200"}, "groupby": {"project_id": "p2"}, "metadata": {}}], "instance": []}}\r',
  '',
].join('\n');

describe('a usage file of CloudKitty v2 dataframes', () => {
  it('reads each line as a dataframe, numbers as their text, blank lines skipped, CRLF too', async () => {
    const [first, second, ...none] = await read(FILE);
    expect(none).toEqual([]);
    expect(first.line).toBe(1);
    expect(first.begin.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    const [point] = first.usage.get('instance')!;
    expect(point).toMatchObject({ unit: 'instance', qty: '1.50', price: '0.075', groupby: { project_id: 'p1', id: 'vm-1' } });
    expect(point.metadata.vcpus).toEqual(new JsonNumberText('2.0'));
    expect(second.line).toBe(3);
    expect(second.usage.get('volume.size')).toEqual([{ unit: 'GiB', qty: '200', price: '0', groupby: { project_id: 'p2' }, metadata: {} }]);
    expect(second.usage.get('instance')).toEqual([]);
  });

  it('reads the same from gzip, told by its first bytes, even one byte per chunk', async () => {
    expect(await read(gzipSync(FILE), 1)).toEqual(await read(FILE));
  });

  it('refuses each fault with a 400 naming the line', async () => {
    const period = '"period": {"begin": "2026-11-01T00:00:00Z", "end": "2026-11-01T01:00:00Z"}';
    expect(await refusal(`${FILE}{"period": `)).toMatch(/^Usage file line 4: not JSON/);
    expect(await refusal('[1]')).toBe('Usage file line 1: a dataframe is a JSON object with "period" and "usage".');
    expect(await refusal(`{${period}, "usage": {"instance": [{"vol": {"unit": "u", "qty": "1e999"}}]}}`)).toMatch(
      /^Usage file line 1: Invalid input for field\/attribute usage\.instance\[0\]\.vol\.qty\. .*TARIFF_DECIMAL_MAX_EXPONENT/,
    );
    expect(await refusal(`{"period": {"begin": "2026-11-01T01:00:00Z", "end": "2026-11-01T00:00:00Z"}, "usage": {}}`)).toBe(
      'Usage file line 1: "period.end" must come after "period.begin".',
    );
    expect(await refusal(`{${period}, "usage": {"instance": {}}}`)).toBe('Usage file line 1: "usage.instance" must be a list of points.');
    expect(await refusal(`{${period}, "usage": {}}\n${'x'.repeat(200)}`, { ...LIMITS, maxLineBytes: 100 })).toBe(
      'Usage file line 2 is longer than 100 bytes, the longest line a usage file may have.',
    );
    expect(await refusal(gzipSync(FILE).subarray(0, 40))).toMatch(/^The usage file is not a valid gzip stream: /);
  });

  it('answers hostile bytes and hostile JSON with dataframes or a 400, never another error', async () => {
    const json = fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value));
    const dataframeLike = fc
      .record({
        period: fc.record({ begin: fc.oneof(fc.string(), fc.constant('2026-11-01T00:00:00Z')), end: fc.oneof(fc.string(), fc.constant('2026-11-02')) }),
        usage: fc.dictionary(fc.string(), fc.array(fc.jsonValue({ maxDepth: 3 }))),
      })
      .map((value) => JSON.stringify(value));
    const lineText = fc.oneof(
      json,
      dataframeLike,
      fc.string(),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(lineText, { maxLength: 5 }), fc.boolean(), fc.integer({ min: 1, max: 16 }), async (lines, zipped, chunkSize) => {
        const text = lines.join('\n');
        try {
          await read(zipped ? gzipSync(text) : text, chunkSize);
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(BadRequestError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
