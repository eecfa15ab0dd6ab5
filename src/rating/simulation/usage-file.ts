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
import { BadRequestError } from '../../kernel/errors.js';
import { numberAsText, readStoredDataframe, type StoredDataframe } from './stored-dataframe.js';

export type { StoredDataframe, StoredPoint } from './stored-dataframe.js';

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
  const where = `Usage file line ${line}`;
  let value: unknown;
  try {
    value = JSON.parse(text, numberAsText);
  } catch (error) {
    throw new BadRequestError(`${where}: not JSON (${(error as Error).message}).`);
  }
  return { ...readStoredDataframe(value, where, maxDecimalExponent), line };
}
