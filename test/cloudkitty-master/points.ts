/**
 * Generated usage points for pricing the same dataframe with Tariff's v2 quote and with
 * CloudKitty master's processor. Desc values are kept as JSON source text, so that `2.0`, `2`,
 * `1E16` and `0.00001` reach both as written.
 */
import fc from 'fast-check';
import { SIZE_VALUES } from './rule-set.js';

/** One point: its service, quantity (decimal text) and desc entries as `[key, JSON text]`. */
export interface GeneratedPoint {
  service: 'compute' | 'volume' | 'image';
  qty: string;
  groupby: [string, string][];
  metadata: [string, string][];
}

/**
 * JSON number texts of every form: integers (huge too), fractions, exponents (`e`/`E`, signed),
 * zeros; none overflowing a double (Python reads those as `inf`, which Tariff refuses).
 */
export function jsonNumberText(): fc.Arbitrary<string> {
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
  return anyNumberText(finite).filter((text) => Number.isFinite(Number(text)));
}

function anyNumberText(finite: fc.Arbitrary<number>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('2', '2.0', '2.00', '20e-1', '0.2e1', '1e16', '1E16', '1e+16', '10000000000000000', '1e-5', '0.00001', '1E-05', '0.0001', '1e-4'),
    fc.constantFrom('1500', '1.5e3', '1500.0', '15E2', '-0', '-0.0', '0', '0.0', '0e10', '12345678901234567890', '1e22', '123456789.123456789'),
    fc.constantFrom('5e-324', '1.7976931348623157e308', '0.1', '0.30000000000000004', '9007199254740993', '9007199254740993.0', '1e15', '1e-4'),
    fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
    finite.map((value) => JSON.stringify(value)),
    fc.tuple(finite, fc.integer({ min: 0, max: 20 })).map(([value, digits]) => value.toExponential(digits)),
    fc
      .tuple(
        finite.filter((value) => Math.abs(value) < 1e21),
        fc.integer({ min: 0, max: 20 }),
      )
      .map(([value, digits]) => value.toFixed(digits)),
    fc
      .tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -330, max: 310 }), fc.constantFrom('e', 'E', 'e+', 'E-', 'e-'))
      .map(([mantissa, exponent, marker]) => (marker.length === 1 ? `${mantissa}${marker}${exponent}` : `${mantissa}${marker}${Math.abs(exponent)}`)),
  );
}

/** JSON text of a desc value `size` may carry: a number of any form, often one of the mapped values. */
function sizeValue(): fc.Arbitrary<string> {
  return fc.oneof(jsonNumberText(), fc.constantFrom(...SIZE_VALUES.map((value) => JSON.stringify(value))), fc.constantFrom(...SIZE_VALUES));
}

/** JSON text of a `vcpus` value: numeric (a field with thresholds: CloudKitty raises on anything else). */
function vcpusValue(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('1', '2', '2.0', '3.5', '3.4999999999999999', '4', '4.0', '1e1', '0.4e1', '"4"', '"3.5"', '" 2 "', '"1e1"', '3.9999999999999999'),
    fc.double({ min: -10, max: 10, noNaN: true }).map((value) => JSON.stringify(value)),
  );
}

const qty = fc.constantFrom('1', '2', '0.5', '3.25', '99.99999999', '100', '150', '199.9999', '200', '250.5', '1e3', '0');

function desc(entries: fc.Arbitrary<[string, string]>[]): fc.Arbitrary<[string, string][]> {
  return fc.tuple(...entries.map((entry) => fc.option(entry, { nil: undefined }))).map((chosen) => chosen.filter((entry) => entry !== undefined));
}

/** A generated point of one of the rule set's services. */
export function point(): fc.Arbitrary<GeneratedPoint> {
  const flavor = fc.constantFrom('"m1.tiny"', '"m1.small"', '"m1.large"', '"m1.xlarge"', '2', 'true', 'null');
  const compute = fc.record({
    service: fc.constant('compute' as const),
    qty,
    groupby: desc([flavor.map((text): [string, string] => ['flavor', text]), sizeValue().map((text): [string, string] => ['size', text])]),
    metadata: desc([
      vcpusValue().map((text): [string, string] => ['vcpus', text]),
      sizeValue().map((text): [string, string] => ['size', text]),
      fc.constantFrom('"img-a"', '1.0').map((text): [string, string] => ['image', text]),
    ]),
  });
  const volume = fc.record({
    service: fc.constant('volume' as const),
    qty,
    groupby: fc.constant<[string, string][]>([]),
    metadata: fc.constant<[string, string][]>([]),
  });
  const image = fc.record({
    service: fc.constant('image' as const),
    qty,
    groupby: fc.constant<[string, string][]>([]),
    metadata: fc.constant<[string, string][]>([]),
  });
  return fc.oneof({ arbitrary: compute, weight: 6 }, { arbitrary: volume, weight: 2 }, { arbitrary: image, weight: 1 });
}

/** `count` points, the same for the same seed. */
export function generatePoints(count: number, seed: number): GeneratedPoint[] {
  return fc.sample(point(), { numRuns: count, seed });
}

function objectText(entries: [string, string][]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}: ${value}`).join(', ')}}`;
}

/** The `usage` object as JSON text, points grouped by service in their order. */
export function usageText(points: readonly GeneratedPoint[]): string {
  const services = new Map<string, string[]>();
  for (const generated of points) {
    const text = `{"vol": {"unit": "unit", "qty": ${JSON.stringify(generated.qty)}}, "groupby": ${objectText(generated.groupby)}, "metadata": ${objectText(generated.metadata)}}`;
    services.set(generated.service, [...(services.get(generated.service) ?? []), text]);
  }
  return `{${[...services].map(([service, texts]) => `${JSON.stringify(service)}: [${texts.join(', ')}]`).join(', ')}}`;
}

/** Where each point lands in the answer: `[service, index among the service's points]`. */
export function answerPositions(points: readonly GeneratedPoint[]): [string, number][] {
  const seen = new Map<string, number>();
  return points.map((generated) => {
    const index = seen.get(generated.service) ?? 0;
    seen.set(generated.service, index + 1);
    return [generated.service, index];
  });
}
