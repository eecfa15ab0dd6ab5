/**
 * The built CLI (`node bin/tariff.js price-list …`) against a hostile fake server (node:http),
 * issue 24, finding 14: service names and faultstrings holding generated control characters (ESC,
 * OSC 52, C1, DEL, bidi overrides) reach stdout and stderr escaped; an answer past
 * `TARIFF_CLIENT_MAX_ANSWER_MB` (declared, or endless and chunked) ends the command with one line
 * and exit code 1, not a stack trace or gigabytes of memory.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnvironment, runCli, type CliRun } from '../helpers/cli.js';

/** Anything that drives a terminal: what must never reach stdout or stderr raw. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** How the fake server answers the next request. */
let handle: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end();
let server: Server;
let url: string;
let directory: string;
let file: string;

/** Runs `node bin/tariff.js <args>` against the fake server, without the caller's OS_/TARIFF_ settings. */
function tariff(args: string[], extra: Record<string, string> = {}): Promise<CliRun> {
  return runCli(cleanEnvironment({ TARIFF_URL: url, ...extra }), args);
}

/** Answers with a JSON body once the request's body is read. */
function answerJson(status: number, body: unknown): typeof handle {
  return (request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  };
}

/** A name: printable text with control characters among it, ESC and OSC 52 over-represented. */
const hostileName = fc
  .array(
    fc.oneof(
      fc.constantFrom('\x1b[2J', '\x1b]52;c;aGVsbG8=\x07', '\x9b31m', '\x7f', '\u202e', '\u2066', '\r', '\x00', '\x85'),
      fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)),
      fc.string({ minLength: 1, maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => `svc${parts.join('')}`)
  .filter((name) => RAW_CONTROL.test(name.replace(/[\n\t]/g, '')));

function planNaming(names: string[]): unknown {
  return {
    revision: 5,
    dry_run: true,
    effective_at: '2026-11-25T00:00:00+00:00',
    counts: { added: names.length, replaced: 0, ended: 0, deleted: 0, updated: 0, created: 0 },
    changes: names.map((name) => ({ action: 'added', resource: 'service', path: `services[${name}]`, after: { name, description: name } })),
  };
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'tariff-cli-hostile-'));
  file = join(directory, 'prices.yaml');
  writeFileSync(file, 'services:\n  instance: {}\n');
  server = createServer((request, response) => handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

// Each case runs the CLI as a process of its own, several per property: minutes on a loaded machine, not the 30 s default.
describe('what the server sends, printed by the CLI', { timeout: 180_000 }, () => {
  it('escapes control characters in generated service names of a diff', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileName, { minLength: 1, maxLength: 5 }), async (names) => {
        handle = answerJson(200, planNaming(names));
        const run = await tariff(['price-list', 'diff', file]);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stdout.replace(/[\n\t]/g, '')).not.toMatch(RAW_CONTROL);
        expect(run.stderr.replace(/[\n\t]/g, '')).not.toMatch(RAW_CONTROL);
        expect(run.stdout).toContain('services[svc');
      }),
      { numRuns: 8 },
    );
  });

  it('shows ESC and OSC 52 as \\x1b and a bidi override as \\u202e', async () => {
    handle = answerJson(200, planNaming(['evil\x1b]52;c;aGVsbG8=\x07\u202e']));
    const run = await tariff(['price-list', 'diff', file]);
    expect(run.stdout).toContain('services[evil\\x1b]52;c;aGVsbG8=\\x07\\u202e]');
  });

  it('escapes control characters in a generated faultstring', async () => {
    await fc.assert(
      fc.asyncProperty(hostileName, async (faultstring) => {
        handle = answerJson(409, { faultcode: 'Client', faultstring, debuginfo: null });
        const run = await tariff(['price-list', 'diff', file]);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/^tariff: The configuration changed meanwhile \(409\)/);
        expect(run.stderr.replace(/[\n\t]/g, '')).not.toMatch(RAW_CONTROL);
      }),
      { numRuns: 5 },
    );
  });

  it('prints the server URL without the credentials written in it', async () => {
    handle = answerJson(404, { faultcode: 'Client', faultstring: 'Not found', debuginfo: null });
    const withCredentials = url.replace('http://', 'http://operator:Qz7p%40ss@');
    const run = await tariff(['price-list', 'export'], { TARIFF_URL: withCredentials });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`No price-list endpoint at ${url.replace('http://', 'http://***@')}/v2/rating/price_list (404)`);
    expect(run.stderr).not.toContain('Qz7');
    expect(run.stderr).not.toContain('operator');
  });

  it('writes an export to a pipe as the server sent it', async () => {
    const document = 'services:\n  "a\\u001b": {}\n  b\u202ec: {}\n';
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/yaml' });
      response.end(document);
    };
    const run = await tariff(['price-list', 'export']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(document);
  });
});

describe('an answer past TARIFF_CLIENT_MAX_ANSWER_MB', () => {
  it('ends an endless chunked export with one line and exit code 1', async () => {
    let sent = 0;
    handle = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/yaml' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const more = () => {
        while (!response.destroyed && response.write(chunk)) sent += chunk.length;
        if (!response.destroyed) response.once('drain', more);
      };
      response.on('error', () => {});
      more();
    };
    const run = await tariff(['price-list', 'export'], { TARIFF_CLIENT_MAX_ANSWER_MB: '2' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`tariff: The answer to GET ${url}/v2/rating/price_list is larger than 2 MB (TARIFF_CLIENT_MAX_ANSWER_MB): not read further.\n`);
    // Cut near the limit: the socket's buffers, not the endless stream.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a declared Content-Length past the limit before reading it', async () => {
    handle = (request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(600 * 1024 * 1024) });
        response.write('{"revision": 1,');
      });
    };
    const run = await tariff(['price-list', 'diff', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`tariff: The answer to POST ${url}/v2/rating/price_list is larger than 256 MB (TARIFF_CLIENT_MAX_ANSWER_MB): not read further.\n`);
  });
});
