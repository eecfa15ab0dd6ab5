/**
 * The price-list file the operator gives: read as bytes and sent as-is (the server reports YAML
 * lines and columns of the text it got), typed by its extension.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ClientError } from './errors.js';

/** A document to send. */
export interface DocumentFile {
  /** As messages name it: the path given, or `<stdin>` for `-`. */
  displayName: string;
  contentType: 'application/json' | 'application/yaml';
  bytes: Buffer;
}

/** `.json` → JSON; `.yaml`, `.yml`, anything else and stdin → YAML. */
export function contentTypeOf(path: string): DocumentFile['contentType'] {
  return path !== '-' && extname(path).toLowerCase() === '.json' ? 'application/json' : 'application/yaml';
}

async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * Reads the document at `path` (`-`: `stdin`).
 *
 * @throws ClientError when the file cannot be read.
 */
export async function readDocumentFile(path: string, stdin: NodeJS.ReadableStream): Promise<DocumentFile> {
  const displayName = path === '-' ? '<stdin>' : path;
  try {
    const bytes = path === '-' ? await readStream(stdin) : await readFile(path);
    return { displayName, contentType: contentTypeOf(path), bytes };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new ClientError(`Cannot read ${displayName}: ${reason}.`);
  }
}
