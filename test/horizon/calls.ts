/**
 * The rating API calls Horizon made, read from its log: keystoneauth at DEBUG logs each request as
 * a `REQ: curl ... -X METHOD URL ... -d 'BODY'` line, then `RESP: [STATUS] ...` and `RESP BODY: ...`.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** One call Horizon made to a rating endpoint. */
export interface ApiCall {
  method: string;
  /** The path and query, without the endpoint. */
  path: string;
  /** The request body as logged (JSON text), or undefined. */
  body?: string;
  /** The answer's status, or undefined when the log has none (no answer: connection refused, time-out). */
  status?: number;
  /** The answer's body as logged (keystoneauth omits bodies it does not print). */
  answer?: string;
}

/** What the log file holds from `offset` on (bytes). */
function readFrom(file: string, offset: number): string {
  const size = statSync(file).size;
  if (size <= offset) return '';
  const buffer = Buffer.alloc(size - offset);
  const descriptor = openSync(file, 'r');
  try {
    readSync(descriptor, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(descriptor);
  }
  return buffer.toString('utf8');
}

/** The log's size now: where the next action's lines start. */
export function logOffset(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

const REQUEST = /keystoneauth\.session REQ: curl -g -i -X (\w+) (\S+)(.*)$/;
const RESPONSE = /keystoneauth\.session RESP: \[(\d+)\]/;
const RESPONSE_BODY = /keystoneauth\.session RESP BODY: (.*)$/;
const BODY = / -d '(.*)'$/;

/** The calls to `endpoint` (a URL prefix) logged after `offset`, in order. */
export function callsSince(file: string, offset: number, endpoint: string): ApiCall[] {
  const calls: ApiCall[] = [];
  let current: ApiCall | undefined;
  for (const line of readFrom(file, offset).split('\n')) {
    const request = REQUEST.exec(line);
    if (request) {
      current = undefined;
      if (!request[2].startsWith(endpoint)) continue;
      current = { method: request[1], path: request[2].slice(endpoint.length) || '/' };
      const body = BODY.exec(request[3]);
      if (body) current.body = body[1];
      calls.push(current);
      continue;
    }
    if (!current) continue;
    const response = RESPONSE.exec(line);
    if (response) current.status = Number(response[1]);
    const answer = RESPONSE_BODY.exec(line);
    if (answer) current.answer = answer[1].slice(0, 600);
  }
  return calls;
}

/** The tracebacks Horizon logged after `offset` (`Internal Server Error: /path` and its exception line). */
export function errorsSince(file: string, offset: number): string[] {
  const lines = readFrom(file, offset).split('\n');
  const errors: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!/ ERROR /.test(lines[index])) continue;
    // The exception's last line ends the traceback that follows the message.
    let end = index + 1;
    while (end < lines.length && !/^\d{4}-\d\d-\d\d /.test(lines[end])) end++;
    const exception = end > index + 1 ? lines[end - 1].trim() : '';
    errors.push(`${lines[index].replace(/^\S+ \S+ /, '')}${exception ? ` — ${exception}` : ''}`);
  }
  return errors;
}
