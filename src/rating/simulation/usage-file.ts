/**
 * Stored usage from a file, for a simulation of a draft price list on clouds whose CloudKitty
 * storage Tariff cannot read (issue 27): CloudKitty v2 dataframes as `GET /v2/dataframes`
 * answers them, one dataframe per line (JSON Lines), plain or gzip (told by its first two bytes).
 * The file is read line by line, never whole: memory follows the longest line, bounded by
 * `maxLineBytes`.
 *
 * A line: `{"period": {"begin": ISO, "end": ISO}, "usage": {"<metric type>": [point, ...]}}`, a
 * point `{"vol": {"unit", "qty"}, "rating": {"price"}, "groupby": {...}, "metadata": {...}}`.
 * CloudKitty compat: `qty` and `price` are decimal text or JSON numbers, read as their source
 * text (CloudKitty coerces them with `str()`: `1.50` stays `1.50`); `rating` may be absent (price
 * 0, CloudKitty's default); `unit` may be empty (CloudKitty's `undefined`). Blank lines are
 * skipped.
 */
import { createGunzip } from 'node:zlib';
import { pipeline, Readable } from 'node:stream';
import { BadRequestError, TariffError } from '../../kernel/errors.js';
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
  /** Its line in the file, 1-based, for messages. */
  line: number;
}

/** Bounds of reading a usage file. */
export interface UsageFileLimits {
  /** Longest line, in bytes; past it the read fails. */
  maxLineBytes: number;
  /** Quantities and prices must be 0 or within [10^-n, 10^n) in magnitude (`TARIFF_DECIMAL_MAX_EXPONENT`). */
  maxDecimalExponent: number;
}

/** The first bytes of a gzip stream (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Every number as its source text (JSON.parse's reviver context, Node ≥ 21): `1.50` stays `1.50`
 * in a quantity, and `2.0` stays a float's text in `groupby` and `metadata`, as in a v2 quote's
 * points (rating.md §5).
 */
function numberAsText(this: unknown, _key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === 'number' && context?.source !== undefined ? new JsonNumberText(context.source) : value;
}

/**
 * The dataframes of a usage file, one at a time, in file order.
 *
 * @throws BadRequestError (400) naming the line and what is wrong with it: a line longer than
 *   `maxLineBytes`, text that is not JSON, a missing or malformed period, usage or point, a
 *   quantity or price that is not a decimal in range; a gzip stream that is cut or damaged.
 */
export async function* readUsageFile(input: Readable, limits: UsageFileLimits): AsyncGenerator<StoredDataframe> {
  let line = 0;
  for await (const text of lines(input, limits.maxLineBytes)) {
    line += 1;
    if (text.trim() === '') continue;
    yield readDataframe(text, line, limits.maxDecimalExponent);
  }
}

/** The file's lines as text (UTF-8; `\n` or `\r\n`), gunzipped when it starts as gzip. */
async function* lines(input: Readable, maxLineBytes: number): AsyncGenerator<string> {
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  // Two bytes tell gzip; a stream may hand them in separate chunks.
  while (head.length < GZIP_MAGIC.length) {
    const next = await chunks.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
  }
  if (head.length === 0) return;
  const rest = (async function* () {
    yield head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  })();
  const source = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1] ? gunzipped(rest) : rest;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 1;
  for await (const chunk of source) {
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline >= 0; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      if (pendingBytes + piece.length > maxLineBytes) throw tooLong(lineNumber, maxLineBytes);
      pending.push(piece);
      yield Buffer.concat(pending).toString('utf8').replace(/\r$/, '');
      pending = [];
      pendingBytes = 0;
      lineNumber += 1;
      start = newline + 1;
    }
    const tail = chunk.subarray(start);
    pendingBytes += tail.length;
    if (pendingBytes > maxLineBytes) throw tooLong(lineNumber, maxLineBytes);
    if (tail.length > 0) pending.push(tail);
  }
  if (pendingBytes > 0) yield Buffer.concat(pending).toString('utf8').replace(/\r$/, '');
}

/** `compressed` gunzipped; a damaged or cut stream as a 400 naming the file's compression. */
async function* gunzipped(compressed: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  // A failure destroys `gunzip` with its error, which the loop below then throws.
  pipeline(Readable.from(compressed), gunzip, () => {});
  try {
    for await (const chunk of gunzip) yield chunk;
  } catch (error) {
    throw new BadRequestError(`The usage file is not a valid gzip stream: ${(error as Error).message}`);
  }
}

function tooLong(line: number, maxLineBytes: number): BadRequestError {
  return new BadRequestError(`Usage file line ${line} is longer than ${maxLineBytes} bytes, the longest line a usage file may have.`);
}

/** One line's dataframe. @throws BadRequestError naming the line. */
function readDataframe(text: string, line: number, maxDecimalExponent: number): StoredDataframe {
  const fail = (what: string) => new BadRequestError(`Usage file line ${line}: ${what}`);
  let value: unknown;
  try {
    value = JSON.parse(text, numberAsText);
  } catch (error) {
    throw fail(`not JSON (${(error as Error).message}).`);
  }
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
    return { begin, end, usage: byService, line };
  } catch (error) {
    if (error instanceof TariffError && !error.message.startsWith(`Usage file line ${line}`)) throw fail(error.message);
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
