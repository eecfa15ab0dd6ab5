/**
 * A simulation's upload (docs/price-list.md §4): a `multipart/form-data` body whose part
 * `price_list` is the draft (JSON or YAML) and whose next part `usage` is the usage file, read as
 * it arrives: the draft whole (it is small), the usage as a stream the simulation consumes, so
 * that a usage file of any size never sits in memory.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';
import { BadRequestError, TariffError } from '../../kernel/errors.js';
import { JSON_MEDIA_TYPE, YAML_MEDIA_TYPES, type DocumentFormat } from '../price-list/document-text.js';

/** What the parts may hold. */
export interface UploadLimits {
  /** Largest draft, in bytes (`TARIFF_QUOTE_BODY_LIMIT_MB`, as the apply's document). */
  draftBytes: number;
}

/** The upload's draft and its usage file, not yet read. */
export interface Upload {
  draft: { text: string; format: DocumentFormat };
  usage: Readable;
}

/** The draft's format: its part's type, or its first character for a type that does not tell (`text/plain`). */
export function draftFormat(mediaType: string, text: string): DocumentFormat {
  const type = mediaType.split(';')[0].trim().toLowerCase();
  if (type === JSON_MEDIA_TYPE) return 'json';
  if (YAML_MEDIA_TYPES.includes(type)) return 'yaml';
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

/** `bytes` as UTF-8 text. @throws BadRequestError for bytes that are not UTF-8. */
function utf8(bytes: Buffer, part: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadRequestError(`The part '${part}' is not valid UTF-8 text.`);
  }
}

/**
 * Reads the upload up to the start of its usage file.
 *
 * @returns the draft's text and format, and the usage file's stream (to be read to its end).
 * @throws BadRequestError (400) for a body that is not multipart, a part other than `price_list`
 *   and `usage`, `usage` before `price_list`, a missing part; TariffError 413 for a draft larger
 *   than `draftBytes`. A failure after the usage started comes out of its stream.
 */
export function readUpload(headers: IncomingHttpHeaders, body: Readable, limits: UploadLimits): Promise<Upload> {
  return new Promise<Upload>((resolve, reject) => {
    let parser: BusboyInstance;
    try {
      parser = Busboy({ headers: headers as BusboyHeaders, limits: { fields: 2, files: 2, parts: 2, fieldSize: limits.draftBytes } });
    } catch (error) {
      reject(new BadRequestError(`The body is not a multipart form: ${(error as Error).message}`));
      return;
    }
    let draft: Upload['draft'] | undefined;
    /** Whether the part `price_list` began; its end may come after the next part's start. */
    let draftBegun = false;
    let draftRead = () => {};
    const draftDone = new Promise<void>((resolve) => (draftRead = resolve));
    let usage: Readable | undefined;
    let settled = false;
    // Before the usage starts, a failure is the promise's; after, the usage stream's (its reader's).
    const fail = (error: Error) => {
      if (usage !== undefined) {
        usage.destroy(error);
        return;
      }
      if (!settled) reject(error);
      settled = true;
      body.unpipe(parser);
      body.resume();
    };
    const tooLarge = () => new TariffError(413, `The part 'price_list' is larger than ${limits.draftBytes} bytes (TARIFF_QUOTE_BODY_LIMIT_MB).`);
    const takeDraft = (name: string, text: string, mediaType: string) => {
      if (name !== 'price_list') return false;
      draftBegun = true;
      draft = { text, format: draftFormat(mediaType, text) };
      draftRead();
      return true;
    };
    const unknownPart = (name: string) =>
      new BadRequestError(`Unknown part '${name}': send the draft as part 'price_list', then the usage file as part 'usage'.`);
    parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean, _encoding: string, mediaType: string) => {
      if (valueTruncated) return fail(tooLarge());
      if (name === 'usage') return usageStarts(Readable.from([Buffer.from(value, 'utf8')]));
      if (!takeDraft(name, value, mediaType)) fail(unknownPart(name));
    });
    parser.on('file', (name: string, stream: Readable, _filename: string, _encoding: string, mediaType: string) => {
      if (name === 'usage') return usageStarts(stream);
      if (name !== 'price_list') {
        stream.resume();
        return fail(unknownPart(name));
      }
      draftBegun = true;
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > limits.draftBytes) return fail(tooLarge());
        chunks.push(chunk);
      });
      stream.on('end', () => {
        if (bytes > limits.draftBytes) return;
        try {
          takeDraft(name, utf8(Buffer.concat(chunks), name), mediaType);
        } catch (error) {
          fail(error as Error);
        }
      });
    });
    function usageStarts(stream: Readable) {
      if (!draftBegun) {
        stream.resume();
        return fail(new BadRequestError("The part 'price_list' must come before the part 'usage'."));
      }
      // The usage waits (paused) while the draft's last bytes are taken.
      void draftDone.then(() => {
        if (settled) return stream.resume();
        settled = true;
        usage = stream;
        resolve({ draft: draft!, usage: stream });
      });
    }
    parser.on('error', (error: Error) => fail(new BadRequestError(`The multipart body is malformed: ${error.message}`)));
    parser.on('finish', () => {
      if (!settled && usage === undefined)
        fail(
          new BadRequestError(
            draft === undefined ? "The multipart body has no part 'price_list' (the draft)." : "The multipart body has no part 'usage' (the usage file).",
          ),
        );
    });
    body.on('error', (error) => fail(error));
    body.pipe(parser);
  });
}
