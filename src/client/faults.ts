/**
 * The server's refusals, turned into what the operator reads: a refused document's problems one per
 * line as `FILE:line:column: path: message` (docs/price-list.md §2), and one clear sentence for
 * the other statuses (401, 403, 404, 409, 413, 415, 5xx).
 */
import { ClientError } from './errors.js';
import { shownUrl } from './http.js';

/** One problem of a refused document, as the 400 fault lists it. */
export interface DocumentProblem {
  path: string;
  line?: number;
  column?: number;
  message: string;
}

/** A WSME fault body (`faultstring`), with `problems` for a refused price list. */
interface FaultBody {
  faultstring?: unknown;
  problems?: unknown;
}

function parseFault(text: string): FaultBody {
  try {
    const body = JSON.parse(text) as FaultBody | null;
    return typeof body === 'object' && body !== null ? body : {};
  } catch {
    return {};
  }
}

function isProblem(value: unknown): value is DocumentProblem {
  const problem = value as DocumentProblem;
  return typeof value === 'object' && value !== null && typeof problem.path === 'string' && typeof problem.message === 'string';
}

/** `FILE:line:column: path: message`, or `FILE: path: message` when the server gave no position. */
export function formatProblem(fileName: string, problem: DocumentProblem): string {
  const position = problem.line !== undefined ? `:${problem.line}${problem.column !== undefined ? `:${problem.column}` : ''}` : '';
  return `${fileName}${position}: ${problem.path}: ${problem.message}`;
}

/** The `… and N more problems` line the server adds when it listed only the first ones. */
function omittedLine(faultstring: string): string | undefined {
  return faultstring.split('\n').find((line) => line.startsWith('…'));
}

/**
 * The error for a non-2xx answer of the price-list endpoints.
 *
 * @param status - the HTTP status.
 * @param text - the answer's body.
 * @param context - the document's name as printed (`plan.yaml`, `<stdin>`), absent for an export; the URL called.
 */
export function refusal(status: number, text: string, context: { fileName?: string; url: string }): ClientError {
  const fault = parseFault(text);
  const faultstring = typeof fault.faultstring === 'string' ? fault.faultstring : text.trim().slice(0, 500);
  const problems = Array.isArray(fault.problems) ? fault.problems.filter(isProblem) : [];
  if (status === 400 && problems.length > 0) {
    const name = context.fileName ?? 'the document';
    const count = faultstring.match(/has (\d+) problems?/)?.[1] ?? String(problems.length);
    const lines = problems.map((problem) => formatProblem(name, problem));
    const omitted = omittedLine(faultstring);
    return new ClientError(
      `${name}: the server refused the price list, ${count} problem${count === '1' ? '' : 's'}:\n${[...lines, ...(omitted ? [omitted] : [])].join('\n')}`,
    );
  }
  switch (status) {
    case 400:
      return new ClientError(`The server refused the request (400): ${faultstring}`);
    case 401:
      return new ClientError(
        'Not authenticated (401): the server wants a Keystone token. Set OS_TOKEN, or OS_AUTH_URL, OS_USERNAME, OS_PASSWORD and OS_PROJECT_NAME (the token may also have expired).',
      );
    case 403:
      return new ClientError(
        `Not allowed (403): the price list needs the rating:module_config policy rule (CloudKitty's default: the admin role). ${faultstring}`,
      );
    case 404:
      return new ClientError(
        `No price-list endpoint at ${shownUrl(context.url)} (404): is the URL the Tariff server's root (not …/v1), and the server recent enough?`,
      );
    case 409:
      return new ClientError(
        `The configuration changed meanwhile (409): nothing was written. ${faultstring} Run 'tariff price-list diff' again and review the new plan.`,
      );
    case 413:
      return new ClientError(`The price list is larger than the server accepts (413; the server's TARIFF_QUOTE_BODY_LIMIT_MB): ${faultstring}`);
    case 415:
      return new ClientError(`The server does not take this content type (415): ${faultstring}`);
    default:
      return new ClientError(`The server answered HTTP ${status}: ${faultstring}`);
  }
}
