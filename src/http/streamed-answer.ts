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
