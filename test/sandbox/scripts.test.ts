/**
 * The PyScripts sandbox runs scripts as rating.md §6 says: the worked example, order and fresh
 * globals, conversions both ways, compile errors, raised exceptions and invalid data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxError, ScriptError, ScriptSandbox } from '../../src/rating/pyscripts/sandbox/index.js';
import { SMALL, frame, point, prices, rejection } from './helpers.js';

let sandbox: ScriptSandbox;
let warmUpMs = 0;

beforeAll(async () => {
  sandbox = new ScriptSandbox({ poolSize: 2 });
  const started = performance.now();
  await sandbox.start();
  warmUpMs = performance.now() - started;
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
});

const EXAMPLE = `
from decimal import Decimal
for point in data['usage'].get('compute', []):
    if point['groupby'].get('flavor') == 'm1.nano':
        point['rating']['price'] = Decimal(2)
for point in data['usage'].get('instance_status', []):
    if point['groupby'].get('flavor') == 'm1.ultra':
        point['rating']['price'] = Decimal(point['groupby']['memory']) * Decimal('1.5')
`;

describe('rating.md §6 example', () => {
  it('prices m1.nano at 2 and m1.ultra at memory × 1.5, exactly', async () => {
    const input = frame({
      compute: [point('1', { flavor: 'm1.nano' }), point('2', { flavor: 'm1.tiny' }), point('1', { flavor: 'm1.nano' })],
      instance_status: [point('1', { flavor: 'm1.ultra', memory: '64' }), point('1', { flavor: 'not_so_ultra', memory: '64' })],
    });
    const output = await sandbox.run([{ name: 'example', source: EXAMPLE }], input);
    // Exact decimal text as str(Decimal) gives it: Decimal('64') * Decimal('1.5') is 96.0.
    expect(prices(output, 'compute')).toEqual(['2', '0', '2']);
    expect(prices(output, 'instance_status')).toEqual(['96.0', '0']);
    expect(output.usage.compute.map((p) => p.vol.qty)).toEqual(['1', '2', '1']);
    expect(output.period).toEqual({ begin: '2026-01-01T00:00:00+00:00', end: '2026-01-01T01:00:00+00:00' });
    // The input is not modified.
    expect(prices(input, 'compute')).toEqual(['0', '0', '0']);
    console.info(`sandbox warm-up (2 workers, in parallel): ${warmUpMs.toFixed(0)} ms`);
  });

  it('keeps a second run as fast as a call, not a load', async () => {
    const input = frame({ compute: [point('1', { flavor: 'm1.nano' })] });
    await sandbox.run([{ name: 'example', source: EXAMPLE }], input);
    const before = sandbox.stats();
    const runs = 50;
    const started = performance.now();
    for (let i = 0; i < runs; i++) await sandbox.run([{ name: 'example', source: EXAMPLE }], input);
    const perRun = (performance.now() - started) / runs;
    console.info(`sandbox run latency (1 point, 1 script): ${perRun.toFixed(2)} ms`);
    // The same workers served every run, none was replaced; and a run stays far from the seconds
    // a pyodide load takes (bench/rating.js measures runs/s).
    expect(sandbox.stats()).toEqual(before);
    expect(perRun).toBeLessThan(500);
  });
});

describe('scripts in order, fresh globals', () => {
  it('hands data on but not other globals', async () => {
    const a = `
from decimal import Decimal
secret = 'from a'
data['usage']['compute'][0]['rating']['price'] += Decimal('1.5')
data['usage']['compute'][0]['metadata']['seen_by'] = ['a']
`;
    const b = `
data['usage']['compute'][0]['metadata']['seen_by'].append('b')
data['usage']['compute'][0]['metadata']['b_sees_secret'] = 'secret' in globals()
data['usage']['compute'][0]['rating']['price'] *= 2
`;
    const output = await sandbox.run(
      [
        { name: 'a', source: a },
        { name: 'b', source: b },
      ],
      SMALL,
    );
    const result = output.usage.compute[0];
    expect(result.metadata).toEqual({ seen_by: ['a', 'b'], b_sees_secret: false });
    expect(result.rating.price).toBe('3.0');
    // The other order gives another result: they really run in the order given.
    const reversed = await sandbox.run(
      [
        { name: 'b', source: b.replace("['seen_by'].append('b')", "['seen_by'] = ['b']") },
        { name: 'a', source: a },
      ],
      SMALL,
    );
    expect(reversed.usage.compute[0].metadata?.seen_by).toEqual(['a']);
    expect(reversed.usage.compute[0].rating.price).toBe('1.5');
  });

  it('may replace data as a whole', async () => {
    const source = `
from decimal import Decimal
import datetime
data = {'period': {'begin': datetime.datetime(2026, 2, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=1))), 'end': '2026-02-02T00:00:00'},
        'usage': {'storage': [{'vol': {'unit': 'GiB', 'qty': 10}, 'rating': {'price': 0.1}, 'groupby': {'n': 1.5}, 'metadata': {'when': datetime.datetime(2026, 1, 1), 'd': Decimal('0.10')}}]}}
`;
    const output = await sandbox.run([{ name: 'replace', source }], SMALL);
    expect(output).toEqual({
      period: { begin: '2026-02-01T00:00:00+00:00', end: '2026-02-02T00:00:00+00:00' },
      usage: {
        storage: [
          { vol: { unit: 'GiB', qty: '10' }, rating: { price: '0.1' }, groupby: { n: 1.5 }, metadata: { when: '2026-01-01T00:00:00+00:00', d: '0.10' } },
        ],
      },
    });
  });

  it('gives scripts Decimal quantities and prices, aware datetimes, and passes extra keys through', async () => {
    const source = `
import decimal, datetime
p = data['usage']['compute'][0]
assert type(p['vol']['qty']) is decimal.Decimal and p['vol']['qty'] == decimal.Decimal('0.000000000000000000000000001')
assert type(p['rating']['price']) is decimal.Decimal
assert data['period']['begin'] == datetime.datetime(2025, 12, 31, 22, tzinfo=datetime.timezone.utc)
assert data['period']['begin'].tzinfo is not None
p['rating']['price'] = p['vol']['qty'] * 3
`;
    const input = frame({ compute: [{ ...point('0.000000000000000000000000001', { a: 1 }), extra: { kept: [1, 'two', null] } }] });
    input.period.begin = '2026-01-01T00:00:00+02:00';
    const output = await sandbox.run([{ name: 'types', source }], input);
    expect(output.usage.compute[0].rating.price).toBe('3E-27');
    expect(output.usage.compute[0].extra).toEqual({ kept: [1, 'two', null] });
    expect(output.period.begin).toBe('2025-12-31T22:00:00+00:00');
  });

  it('resets decimal context and module changes between runs', async () => {
    const spoil = `
import decimal, json, builtins
decimal.getcontext().prec = 3
json.dumps = None
builtins.len = None
`;
    const check = `
import decimal, json
data['usage']['compute'][0]['metadata']['third'] = str(decimal.Decimal(1) / decimal.Decimal(3))
data['usage']['compute'][0]['metadata']['dumps'] = json.dumps is not None and len('ab') == 2
`;
    await sandbox.run([{ name: 'spoil', source: spoil }], SMALL);
    await sandbox.run([{ name: 'spoil', source: spoil }], SMALL);
    const output = await sandbox.run([{ name: 'check', source: check }], SMALL);
    expect(output.usage.compute[0].metadata).toEqual({ third: '0.3333333333333333333333333333', dumps: true });
  });

  it('returns the dataframe itself when there are no scripts', async () => {
    expect(await sandbox.run([], SMALL)).toBe(SMALL);
  });
});

describe('compile', () => {
  it('accepts a valid source', async () => {
    expect(await sandbox.compile('ok', EXAMPLE)).toEqual({ ok: true });
  });

  it('gives message, line and column of a syntax error', async () => {
    expect(await sandbox.compile('broken', 'x = 1\nif x\n    pass\n')).toEqual({ ok: false, message: "expected ':'", line: 2, column: 5 });
    expect(await sandbox.compile('indent', 'for p in data:\npass\n')).toMatchObject({ ok: false, message: expect.stringContaining('indented block'), line: 2 });
    expect(await sandbox.compile('outside', 'return 5\n')).toEqual({ ok: false, message: "'return' outside function", line: 1, column: 1 });
  });
});

describe('script failures', () => {
  it('names the script, the exception and its line', async () => {
    const source = 'x = 1\n\ndef f(d):\n    return d[0] / 0\n\nf([1])\n';
    const error = await rejection(
      sandbox.run(
        [
          { name: 'first', source: 'pass' },
          { name: 'divider', source },
        ],
        SMALL,
      ),
    );
    expect(error).toBeInstanceOf(ScriptError);
    expect(error).toMatchObject({ script: 'divider', exception: 'ZeroDivisionError', line: 4 });
    expect(error.message).toBe('Script divider failed: ZeroDivisionError: division by zero (line 4)');
  });

  it('reports exceptions raised inside the standard library at the script line that called it', async () => {
    const error = await rejection(sandbox.run([{ name: 'bad-decimal', source: "import decimal\n\nx = decimal.Decimal('abc')\n" }], SMALL));
    expect(error).toMatchObject({ script: 'bad-decimal', exception: 'InvalidOperation', line: 3 });
  });

  it('rejects an invalid data left behind, naming the script', async () => {
    const cases: Array<[string, RegExp]> = [
      ['data = 5', /data must be a dict, not int/],
      ['del data', /deleted data/],
      ["data['usage']['compute'][0]['rating']['price'] = 'cheap'", /\['rating'\]\['price'\] is not a decimal number/],
      ["data['usage']['compute'][0]['rating']['price'] = float('nan')", /must be a finite number/],
      ["data['usage']['compute'][0]['metadata']['s'] = {1, 2}", /\['metadata'\]\['s'\] holds a set/],
      ["del data['usage']['compute'][0]['vol']", /\['vol'\] is missing/],
      ["data['period']['end'] = 'tomorrow'", /\['period'\]\['end'\] is not an ISO 8601 datetime/],
      ["m = data['usage']['compute'][0]['metadata']\nm['self'] = m", /nested too deeply/],
    ];
    for (const [source, detail] of cases) {
      const error = await rejection(
        sandbox.run(
          [
            { name: 'leaver', source },
            { name: 'never', source: 'raise Exception("ran")' },
          ],
          SMALL,
        ),
      );
      expect(error, source).toBeInstanceOf(ScriptError);
      expect(error, source).toMatchObject({ script: 'leaver', exception: null });
      expect(error.message, source).toMatch(/^Script leaver left an invalid data: /);
      expect(error.message, source).toMatch(detail);
    }
  });

  it('rejects an invalid input dataframe without blaming a script', async () => {
    const bad = frame({ compute: [point('lots', {})] });
    const error = await rejection(sandbox.run([{ name: 'any', source: 'pass' }], bad));
    expect(error).toBeInstanceOf(SandboxError);
    expect(error.message).toMatch(/\['vol'\]\['qty'\] is not a decimal number/);
  });

  it('keeps serving after failures', async () => {
    const output = await sandbox.run([{ name: 'example', source: EXAMPLE }], SMALL);
    expect(prices(output, 'compute')).toEqual(['2']);
  });
});
