/**
 * Large answers written with back-pressure (fix, issue 24: a 44 MB quote answer, or a 100 MB
 * price-list diff, was one string held until the client had read it all, and building it held the
 * event loop for a second). The answer is made from many small texts, joined into pieces of about
 * {@link PIECE_CHARS} characters; each piece is made when the client has read the previous ones,
 * with a turn of the event loop between two. The bytes are those of the whole text.
 */
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Characters of text per piece of a streamed answer. */
export const PIECE_CHARS = 64 * 1024;

/** `parts` joined into pieces of at least {@link PIECE_CHARS} characters (the last may be shorter), a turn of the event loop between two. */
async function* inPieces(parts: Iterable<string>): AsyncGenerator<string> {
  let text = '';
  for (const part of parts) {
    text += part;
    if (text.length >= PIECE_CHARS) {
      yield text;
      text = '';
      await nextTurn();
    }
  }
  if (text.length > 0) yield text;
}

/**
 * The concatenation of `parts` as a stream of UTF-8 pieces, each made when the client has read
 * enough of the previous ones (the stream's high-water mark is one piece). `parts` is read lazily:
 * a generator makes each part when it is needed.
 */
export function streamedAnswer(parts: Iterable<string>): Readable {
  return Readable.from(inPieces(parts), { objectMode: false, highWaterMark: PIECE_CHARS });
}

/**
 * The text of `JSON.stringify(value, null, 2)` as small parts, for {@link streamedAnswer}: objects
 * and arrays down to `depth` levels are written member by member, deeper values (and anything with
 * a `toJSON`) by `JSON.stringify` each, indented to their place. Members that JSON leaves out
 * (`undefined`, functions, symbols) are left out, and are `null` in arrays, as `JSON.stringify`
 * does; `value` itself must be JSON (not `undefined`).
 */
export function* prettyJsonParts(value: unknown, depth: number, indent = ''): Generator<string> {
  if (depth <= 0 || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    const text = JSON.stringify(value, null, 2);
    // JSON text has no raw line feeds but between its tokens: each is where a line of it starts.
    yield indent === '' ? text : text.replaceAll('\n', `\n${indent}`);
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield '[]';
      return;
    }
    for (let index = 0; index < value.length; index += 1) {
      yield `${index === 0 ? '[' : ','}\n${inner}`;
      const item: unknown = value[index];
      yield* prettyJsonParts(leftOutByJson(item) ? null : item, depth - 1, inner);
    }
    yield `\n${indent}]`;
    return;
  }
  let first = true;
  for (const [name, member] of Object.entries(value)) {
    if (leftOutByJson(member)) continue;
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(name)}: `;
    first = false;
    yield* prettyJsonParts(member, depth - 1, inner);
  }
  yield first ? '{}' : `\n${indent}}`;
}

/** Whether JSON leaves a member out (or writes `null` for it in an array). */
function leftOutByJson(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}
