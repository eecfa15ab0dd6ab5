/**
 * A `multipart/form-data` body (RFC 7578) streamed from its parts: small ones from memory, a file
 * read from disk as the network takes it, so a multi-GB usage file is never held in memory. Its
 * length is known before it is sent (the parts' headers plus the file's size), so it goes with a
 * `Content-Length` rather than chunked.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { ClientError } from './errors.js';
import type { StreamedBody } from './streaming-http.js';

/** One part: a name, the file name and type it is sent with, and its bytes or the file they are read from. */
export type FormPart = { name: string; fileName: string; contentType: string } & ({ bytes: Buffer } | { path: string; size: number });

/** A body ready to send. */
export interface MultipartBody extends StreamedBody {
  /** `multipart/form-data; boundary=…`. */
  contentType: string;
}

/**
 * A quoted-string value of `Content-Disposition` as the WHATWG FormData encoding writes it: line
 * breaks and `"` percent-encoded, so a file name cannot end the header or add one.
 */
function quoted(text: string): string {
  return `"${text.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')}"`;
}

function partHeader(boundary: string, part: FormPart): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}; filename=${quoted(part.fileName)}\r\nContent-Type: ${part.contentType}\r\n\r\n`,
  );
}

/** The file's bytes as they are read, refusing a file that shrank since its size was taken (the declared length would be wrong). */
async function* fileBytes(path: string, size: number): AsyncGenerator<Buffer> {
  if (size === 0) return;
  let read = 0;
  for await (const chunk of createReadStream(path, { start: 0, end: size - 1, highWaterMark: 1024 * 1024 })) {
    read += (chunk as Buffer).length;
    yield chunk as Buffer;
  }
  if (read !== size) throw new ClientError(`${path} changed while it was being sent (${read} of its ${size} bytes were read).`);
}

/**
 * The body of `parts`, in their order.
 *
 * @param boundary - the delimiter (default: 32 random hex digits, which no part holds but by a 2^-128 chance).
 */
export function multipartBody(parts: FormPart[], boundary = `tariff-${randomBytes(16).toString('hex')}`): MultipartBody {
  const headers = parts.map((part) => partHeader(boundary, part));
  const lineBreak = Buffer.from('\r\n');
  const closing = Buffer.from(`--${boundary}--\r\n`);
  const length =
    parts.reduce((sum, part, index) => sum + headers[index].length + ('bytes' in part ? part.bytes.length : part.size) + lineBreak.length, 0) + closing.length;
  async function* chunks(): AsyncGenerator<Buffer> {
    for (const [index, part] of parts.entries()) {
      yield headers[index];
      if ('bytes' in part) yield part.bytes;
      else yield* fileBytes(part.path, part.size);
      yield lineBreak;
    }
    yield closing;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, stream: Readable.from(chunks(), { objectMode: false }) };
}
