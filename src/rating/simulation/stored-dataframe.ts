/**
 * Stored usage as CloudKitty's v2 API answers it (`GET /v2/dataframes`), read for a simulation of
 * a draft price list (issue 27) from a usage file (`usage-file.ts`) or from CloudKitty
 * (`cloudkitty-usage.ts`): a dataframe is `{"period": {"begin": ISO, "end": ISO}, "usage":
 * {"<metric type>": [point, ...]}}`, a point `{"vol": {"unit", "qty"}, "rating": {"price"},
 * "groupby": {...}, "metadata": {...}}`.
 *
 * CloudKitty compat: `qty` and `price` are decimal text or JSON numbers, read as their source
 * text (CloudKitty coerces them with `str()`: `1.50` stays `1.50`); `rating` may be absent (price
 * 0, CloudKitty's default); `unit` may be empty (CloudKitty's `undefined`).
 */
import { BadRequestError, TariffError } from '../../kernel/errors.js';
import type { Exact } from '../common/exact.js';
import { JsonNumberText } from '../../kernel/json-number.js';
import { parseDateTime } from '../common/datetime.js';
import { inputDecimal } from '../common/quote-decimal.js';

/**
 * One stored point of a metric type. `qty` and `price` are decimal text as stored (exact);
 * numbers in `groupby` and `metadata` are {@link JsonNumberText}, as in a v2 quote's points.
 */
export interface StoredPoint {
  unit: string;
  qty: string;
  /** The price CloudKitty stored for the point over its period; `0` when the line has none. */
  price: string;
  groupby: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** One stored dataframe: a collection period and its points by metric type (CloudKitty's service). */
export interface StoredDataframe {
  begin: Date;
  end: Date;
  usage: Map<string, StoredPoint[]>;
  /** Its line in a usage file, 1-based, for messages. */
  line?: number;
}

/**
 * Every number as its source text (JSON.parse's reviver context, Node ≥ 21): `1.50` stays `1.50`
 * in a quantity, and `2.0` stays a float's text in `groupby` and `metadata`, as in a v2 quote's
 * points (rating.md §5).
 */
export function numberAsText(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === 'number' && context?.source !== undefined ? new JsonNumberText(context.source) : value;
}

/**
 * A stored dataframe from its JSON value (read with {@link numberAsText}).
 *
 * @param where - what the value is, for messages (`Usage file line 3`).
 * @throws BadRequestError (400) starting with `where`: a missing or malformed period, usage or
 *   point, a quantity or price that is not a decimal in range.
 */
export function readStoredDataframe(value: unknown, where: string, maxDecimalExponent: number): StoredDataframe {
  const fail = (what: string) => new BadRequestError(`${where}: ${what}`);
  if (!isObject(value)) throw fail('a dataframe is a JSON object with "period" and "usage".');
  const { period, usage } = value;
  if (!isObject(period)) throw fail('"period" must be an object with "begin" and "end".');
  if (!isObject(usage)) throw fail('"usage" must be an object of metric types, each a list of points.');
  try {
    const begin = parseDateTime(period.begin, 'period.begin');
    const end = parseDateTime(period.end, 'period.end');
    if (end.getTime() <= begin.getTime()) throw fail('"period.end" must come after "period.begin".');
    const byService = new Map<string, StoredPoint[]>();
    for (const [service, points] of Object.entries(usage)) {
      if (!Array.isArray(points)) throw fail(`"usage.${service}" must be a list of points.`);
      byService.set(
        service,
        points.map((point: unknown, index) => readPoint(point, `usage.${service}[${index}]`, maxDecimalExponent, fail)),
      );
    }
    return { begin, end, usage: byService };
  } catch (error) {
    if (error instanceof TariffError && !error.message.startsWith(where)) throw fail(error.message);
    throw error;
  }
}

function readPoint(point: unknown, where: string, maxDecimalExponent: number, fail: (what: string) => Error): StoredPoint {
  if (!isObject(point)) throw fail(`"${where}" must be a point object.`);
  const { vol, rating, groupby, metadata } = point;
  if (!isObject(vol)) throw fail(`"${where}.vol" must be an object with "unit" and "qty".`);
  if (rating !== undefined && !isObject(rating)) throw fail(`"${where}.rating" must be an object with "price".`);
  for (const [name, member] of [
    ['groupby', groupby],
    ['metadata', metadata],
  ] as const) {
    if (member !== undefined && !isObject(member)) throw fail(`"${where}.${name}" must be an object.`);
  }
  const decimal = (raw: unknown, attribute: string) => {
    const given = raw instanceof JsonNumberText ? raw.text : raw;
    inputDecimal(given, attribute, maxDecimalExponent);
    return String(given).trim();
  };
  return {
    unit: vol.unit === undefined || vol.unit === null ? '' : String(vol.unit),
    qty: decimal(vol.qty, `${where}.vol.qty`),
    price: rating?.price === undefined ? '0' : decimal(rating.price, `${where}.rating.price`),
    groupby: isObject(groupby) ? groupby : {},
    metadata: isObject(metadata) ? metadata : {},
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumberText);
}

/**
 * Whether a stored price is the current rules' price. CloudKitty compat: its InfluxDB storage
 * keeps prices as doubles, so a price of more than 15 significant digits comes back as the
 * nearest double's shortest text (`0.12345678901234568` for `0.123456789012345678`): such a stored
 * text reconciles when it is that double of the current price. Shorter texts are compared exactly.
 */
export function reconciles(stored: Exact, storedText: string, current: Exact): boolean {
  if (stored.eq(current)) return true;
  const digits = storedText
    .replace(/^[+-]?0*\.?0*/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '').length;
  return digits >= 15 && Number(storedText) === Number(current.toString());
}
