/**
 * `tariff price-list simulate` (src/client/price-list-commands.ts, simulation-api.ts,
 * simulation.ts) in-process against a real HTTP server (node:http) that answers as
 * docs/price-list.md §4 says: NDJSON progress lines then a result or an error line, and the ways
 * an answer goes wrong (cut mid-way, no result, a refusal, silence). The draft alone is the body;
 * with --usage the body is multipart, the file streamed from disk. The real server:
 * simulate-server.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePriceListArguments } from '../../src/client/arguments.js';
import { PROGRESS_LINE } from '../helpers/cli.js';
import { runPriceListCommand, simulationDetail, type Terminal } from '../../src/client/price-list-commands.js';
import { decimalAligned, formatSimulationCsv, formatSimulationTable, percent, signed, type SimulationResult } from '../../src/client/simulation.js';

/** Anything that drives a terminal: what must never reach stdout or stderr raw. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** What the server saw of one request. */
interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const amounts = (current: string, draft: string, delta: string, relative: string | null, points = 10, changed = 5) => ({
  points,
  changed_points: changed,
  stored: current,
  current,
  draft,
  delta,
  relative_delta: relative,
});

/** A result as the contract writes it. */
function resultNaming(projects: (string | null)[], services: string[]): SimulationResult {
  const projectRows = projects.map((project_id, index) => ({ project_id, ...amounts('10', `${11 + index}`, `${1 + index}`, `0.${1 + index}`) }));
  const serviceRows = services.map((service) => ({ service, ...amounts('5', '4', '-1', '-0.2') }));
  return {
    begin: '2026-10-01T00:00:00+00:00',
    end: '2026-11-01T00:00:00+00:00',
    effective_at: '2026-10-16T00:00:00+00:00',
    revision: 42,
    usage: 'cloudkitty',
    totals: { ...amounts('1234.5', '1301.1', '66.6', '0.05394896719319562575941676792', 180000, 21600), distinct_points: 1450 },
    projects: projectRows,
    services: serviceRows,
    project_services: projects.flatMap((project_id) => services.map((service) => ({ project_id, service, ...amounts('1', '1.5', '0.5', '0.5') }))),
    movers: { projects: projectRows, services: serviceRows },
    rules: [{ module: 'hashmap', name: 'instance/flavor_name/m1.large', points: 7200 }],
    reconciliation: { points: 24, stored: '1.2', current: '1.08', difference: '0.12', projects: [], findings: [], findings_omitted: 0 },
  };
}

const RESULT = resultNaming(['p-one', null], ['instance', 'volume.size']);
const progressLine = (windows_done: number, points: number) => `${JSON.stringify({ progress: { points, windows: 31, windows_done, elapsed_ms: 10 } })}\n`;
const resultLine = (result: unknown = RESULT) => `${JSON.stringify({ result })}\n`;

/** How the server answers the next request, once its body is read. */
type Handler = (seen: Seen, response: ServerResponse) => void;

let server: Server;
let url: string;
let directory: string;
let draft: string;
let seen: Seen[] = [];
let handle: Handler = (_seen, response) => response.end();
/** Bytes of a request body the server counted instead of keeping (a large upload). */
let discardLargeBodies = false;
let counted = 0;

/** Answers 200 NDJSON with `lines`, each written as it is (a line may be split across writes). */
function stream(lines: string[], options: { delayMs?: number; end?: 'end' | 'cut' | 'hang' } = {}): Handler {
  return (_seen, response) => {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const rest = [...lines];
    const next = () => {
      const line = rest.shift();
      if (line !== undefined) {
        response.write(line);
        return setTimeout(next, options.delayMs ?? 0);
      }
      if (options.end === 'cut') response.socket?.destroy();
      else if (options.end !== 'hang') response.end();
    };
    next();
  };
}

const fault = (status: number, faultstring: string, extra: object = {}, headers: Record<string, string> = {}): Handler => {
  return (_seen, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify({ faultcode: 'Client', faultstring, debuginfo: null, ...extra }));
  };
};

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'tariff-simulate-'));
  draft = join(directory, 'draft.yaml');
  writeFileSync(draft, 'services:\n  instance: {}\n');
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      if (discardLargeBodies) counted += chunk.length;
      else chunks.push(chunk);
    });
    request.on('end', () => {
      const entry = { url: request.url!, headers: request.headers, body: Buffer.concat(chunks) };
      seen.push(entry);
      handle(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterEach(() => {
  seen = [];
  discardLargeBodies = false;
  counted = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

/** Runs `price-list <args>` in-process; stdout and stderr are terminals when told. */
async function run(args: string[], options: { environment?: Record<string, string>; tty?: boolean; stdoutTty?: boolean; stdin?: string } = {}) {
  const stdout = Object.assign(new PassThrough(), { isTTY: options.stdoutTty ?? false });
  const stderr = Object.assign(new PassThrough(), { isTTY: options.tty ?? false, columns: 100 });
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  stdin.end(options.stdin ?? '');
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const terminal: Terminal = { stdout, stderr, stdin, environment: options.environment ?? { TARIFF_URL: url } };
  const code = await runPriceListCommand(args, terminal);
  return { code, stdout: out, stderr: err };
}

const PERIOD = ['--from', '2026-10-01T00:00:00Z', '--to', '2026-11-01T00:00:00Z'];

describe('price-list simulate arguments', () => {
  it('reads the draft, the period and the options', () => {
    expect(parsePriceListArguments(['simulate', 'd.yaml', ...PERIOD])).toEqual({
      name: 'simulate',
      url: undefined,
      file: 'd.yaml',
      from: '2026-10-01T00:00:00Z',
      to: '2026-11-01T00:00:00Z',
      effectiveAt: undefined,
      usage: undefined,
      top: undefined,
      format: 'table',
    });
    expect(
      parsePriceListArguments([
        'simulate',
        '-',
        ...PERIOD,
        '--effective-at',
        'E',
        '--usage',
        'u.jsonl.gz',
        '--top',
        '5',
        '--format',
        'csv',
        '--url',
        'http://h',
      ]),
    ).toMatchObject({ file: '-', effectiveAt: 'E', usage: 'u.jsonl.gz', top: 5, format: 'csv', url: 'http://h' });
  });

  it.each([
    [['simulate', ...PERIOD], "price-list simulate needs a FILE, the draft ('-' for stdin)."],
    [['simulate', 'a.yaml', 'b.yaml', ...PERIOD], 'price-list simulate takes one FILE.'],
    [['simulate', 'a.yaml', '--from', 'T'], 'price-list simulate needs --to.'],
    [['simulate', 'a.yaml'], 'price-list simulate needs --from and --to.'],
    [['simulate', 'a.yaml', ...PERIOD, '--top', '0'], "--top takes a count from 1, not '0'."],
    [['simulate', 'a.yaml', ...PERIOD, '--format', 'yaml'], "--format is table, json or csv, not 'yaml'."],
    [['simulate', 'a.yaml', ...PERIOD, '--usage', '-'], '--usage takes a file (JSON Lines, gzip or not), not stdin.'],
    [['simulate', 'a.yaml', ...PERIOD, '--at', 'T'], 'price-list simulate takes no --at.'],
    [['diff', 'a.yaml', '--usage', 'u'], 'price-list diff takes no --usage.'],
  ])('refuses %j with a usage error (exit 1)', (args, message) => {
    let error: any;
    try {
      parsePriceListArguments(args);
    } catch (caught) {
      error = caught;
    }
    expect(error?.message).toContain(message);
    expect(error?.message).toContain('price-list simulate FILE --from T --to T');
    expect(error?.exitCode).toBe(1);
  });
});

describe('price-list simulate against a contract server', () => {
  it('POSTs the draft as its content type with the query and Accept: application/x-ndjson, and prints the summary and the movers', async () => {
    handle = stream([progressLine(10, 1000), progressLine(31, 180000), resultLine()]);
    const result = await run(['simulate', draft, ...PERIOD, '--effective-at', '2026-10-16T00:00:00Z', '--top', '3']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe(
      '/v2/rating/price_list/simulation?begin=2026-10-01T00%3A00%3A00Z&end=2026-11-01T00%3A00%3A00Z&effective_at=2026-10-16T00%3A00%3A00Z&top=3',
    );
    expect(seen[0].headers).toMatchObject({ 'content-type': 'application/yaml', accept: 'application/x-ndjson', 'content-length': '25' });
    expect(seen[0].body.toString()).toBe('services:\n  instance: {}\n');
    expect(result.stdout.split('\n')).toEqual([
      'Simulation of 2026-10-01T00:00:00+00:00 to 2026-11-01T00:00:00+00:00, the draft effective 2026-10-16T00:00:00+00:00 (against revision 42, usage from cloudkitty):',
      'Points          180000 (1450 distinct), 21600 priced differently by the draft',
      'Current         1234.5',
      'Draft           1301.1',
      'Delta           +66.6 (+5.39 %)',
      "Reconciliation  24 points whose stored price differs from the current rules' (difference 0.12: stored 1.2, current 1.08)",
      '',
      'Projects that move most:',
      'PROJECT       POINTS  CHANGED  CURRENT  DRAFT  DELTA  RELATIVE',
      'p-one             10        5       10     11     +1  +10.00 %',
      '(no project)      10        5       10     12     +2  +20.00 %',
      '',
      'Services that move most:',
      'SERVICE      POINTS  CHANGED  CURRENT  DRAFT  DELTA  RELATIVE',
      'instance         10        5        5      4     -1  -20.00 %',
      'volume.size      10        5        5      4     -1  -20.00 %',
      '',
    ]);
  });

  it('prints the result as JSON with --format json', async () => {
    handle = stream([resultLine()]);
    const result = await run(['simulate', draft, ...PERIOD, '--format', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(RESULT);
  });

  it("prints the project × service rows as CSV with --format csv as the server's text/csv does: null empty, quoted, formulas neutralised, CRLF (LF on a terminal)", async () => {
    const hostile = resultNaming(['p,1', null, '=cmd()'], ['a "b"']);
    hostile.project_services[0].relative_delta = '-0.5';
    handle = stream([resultLine(hostile)]);
    const result = await run(['simulate', draft, ...PERIOD, '--format', 'csv']);
    expect(result.code).toBe(0);
    const rows = [
      'project_id,service,points,changed_points,stored,current,draft,delta,relative_delta',
      '"p,1","a ""b""",10,5,1,1,1.5,0.5,-0.5',
      ',"a ""b""",10,5,1,1,1.5,0.5,0.5',
      `'=cmd(),"a ""b""",10,5,1,1,1.5,0.5,0.5`,
      '',
    ];
    expect(result.stdout).toBe(rows.join('\r\n'));
    handle = stream([resultLine(hostile)]);
    expect((await run(['simulate', draft, ...PERIOD, '--format', 'csv'], { stdoutTty: true })).stdout).toBe(rows.join('\n'));
  });

  it('sends --usage as multipart: the draft part, then the usage file as it is, gzip or not, with a Content-Length', async () => {
    const plain = join(directory, 'usage.jsonl');
    const lines = '{"period": {"begin": "2026-10-01T00:00:00+00:00", "end": "2026-10-01T01:00:00+00:00"}, "usage": {}}\n';
    writeFileSync(plain, lines);
    const gzip = join(directory, 'usage.jsonl.gz');
    writeFileSync(gzip, gzipSync(lines));
    for (const [file, type] of [
      [plain, 'application/x-ndjson'],
      [gzip, 'application/gzip'],
    ]) {
      seen = [];
      handle = stream([resultLine()]);
      const result = await run(['simulate', draft, ...PERIOD, '--usage', file]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const request = seen[0];
      expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=tariff-[0-9a-f]{32}$/);
      expect(Number(request.headers['content-length'])).toBe(request.body.length);
      expect(request.headers['transfer-encoding']).toBeUndefined();
      // Read back by another parser (undici's): the parts in order, with their types and bytes.
      const form = await new Response(new Uint8Array(request.body), { headers: { 'content-type': request.headers['content-type']! } }).formData();
      expect([...form.keys()]).toEqual(['price_list', 'usage']);
      const priceList = form.get('price_list') as File;
      const usage = form.get('usage') as File;
      expect([priceList.name, priceList.type, await priceList.text()]).toEqual(['draft.yaml', 'application/yaml', 'services:\n  instance: {}\n']);
      expect([usage.type, Buffer.from(await usage.arrayBuffer())]).toEqual([type, Buffer.from(file === gzip ? gzipSync(lines) : lines)]);
    }
  });

  it('streams a large usage file from disk instead of reading it into memory', { timeout: 120_000 }, async () => {
    const large = join(directory, 'large.jsonl');
    const size = 384 * 1024 * 1024;
    writeFileSync(large, '');
    truncateSync(large, size);
    discardLargeBodies = true;
    handle = stream([resultLine()]);
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const result = await run(['simulate', draft, ...PERIOD, '--usage', large]);
    clearInterval(sampler);
    expect(result.stderr.replace(PROGRESS_LINE, '')).toBe('');
    expect(result.code).toBe(0);
    expect(counted).toBeGreaterThan(size);
    expect(peak - before).toBeLessThan(size / 3);
  });

  it('ends with the faultstring of an error line, exit 1, no result printed', async () => {
    handle = stream([
      progressLine(3, 100),
      `${JSON.stringify({ error: { faultcode: 'Server', faultstring: 'CloudKitty is unreachable: ECONNREFUSED', status: 502 } })}\n`,
    ]);
    expect(await run(['simulate', draft, ...PERIOD])).toEqual({ code: 1, stdout: '', stderr: 'tariff: CloudKitty is unreachable: ECONNREFUSED\n' });
  });

  it('fails clearly when the connection is cut mid-way, printing no result', async () => {
    // A result line cut in its middle: never printed as a result.
    const partial = resultLine().slice(0, 200);
    handle = stream([progressLine(3, 100), partial], { end: 'cut' });
    const result = await run(['simulate', draft, ...PERIOD, '--format', 'json']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `tariff: The answer of POST ${url}/v2/rating/price_list/simulation?begin=2026-10-01T00%3A00%3A00Z&end=2026-11-01T00%3A00%3A00Z broke off: the connection was reset; no result was received.\n`,
    });
  });

  it('fails when the answer ends without a result, or goes on after it', async () => {
    handle = stream([progressLine(3, 100)]);
    expect(await run(['simulate', draft, ...PERIOD])).toEqual({
      code: 1,
      stdout: '',
      stderr: "tariff: The server's answer ended without the simulation's result (the server stopped, or the connection was cut): no result.\n",
    });
    handle = stream([resultLine(), progressLine(3, 100)]);
    expect((await run(['simulate', draft, ...PERIOD])).stderr).toBe(
      "tariff: The server's answer went on after the simulation's result (1 more lines): not a result to trust.\n",
    );
  });

  it('refuses an answer that is not a simulation stream', async () => {
    handle = stream(['<html>\n']);
    expect((await run(['simulate', draft, ...PERIOD])).stderr).toBe("tariff: The server's answer is not a simulation stream (a line is not JSON): <html>\n");
    handle = stream([resultLine({ totals: 1 })]);
    expect((await run(['simulate', draft, ...PERIOD])).stderr).toBe(`tariff: The server's result is not a simulation result: {"result":{"totals":1}}\n`);
  });

  it("lists a refused draft's problems as FILE:line:column, and explains 503 and 413", async () => {
    handle = fault(400, 'The price list has 1 problem:\nservices[x].cost: bad', {
      problems: [{ path: 'services[x].cost', line: 3, column: 9, message: 'bad' }],
    });
    expect((await run(['simulate', draft, ...PERIOD])).stderr).toBe(
      `tariff: ${draft}: the server refused the price list, 1 problem:\n${draft}:3:9: services[x].cost: bad\n`,
    );
    handle = fault(503, 'A simulation is running.', {}, { 'retry-after': '30' });
    expect((await run(['simulate', draft, ...PERIOD])).stderr).toBe(
      'tariff: The server is busy with other simulations (503; TARIFF_SIMULATIONS): try again in 30 s. A simulation is running.\n',
    );
    handle = fault(413, 'More than 50000000 points.');
    expect((await run(['simulate', draft, ...PERIOD])).stderr).toBe(
      'tariff: The simulation is larger than the server accepts (413; TARIFF_SIMULATION_MAX_POINTS, TARIFF_SIMULATION_UPLOAD_LIMIT_MB): More than 50000000 points.\n',
    );
  });

  it('gives up after TARIFF_CLIENT_TIMEOUT_SECONDS of silence, however long the simulation has been running', async () => {
    handle = stream([progressLine(1, 1), progressLine(2, 2), progressLine(3, 3)], { delayMs: 200, end: 'hang' });
    const result = await run(['simulate', draft, ...PERIOD], { environment: { TARIFF_URL: url, TARIFF_CLIENT_TIMEOUT_SECONDS: '0.4' } });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `tariff: Nothing sent or received on POST ${url}/v2/rating/price_list/simulation for 0.4 s (TARIFF_CLIENT_TIMEOUT_SECONDS): the exchange was given up, no result.\n`,
    });
  });

  it('logs in to Keystone, finds the rating endpoint and sends the token; reads the draft from stdin', async () => {
    const catalog = [{ type: 'rating', endpoints: [{ interface: 'public', region_id: 'RegionOne', url }] }];
    handle = (request, response) => {
      if (request.url === '/v3/auth/tokens') {
        response.writeHead(201, { 'content-type': 'application/json', 'x-subject-token': 'tok-123' });
        return response.end(JSON.stringify({ token: { catalog } }));
      }
      stream([resultLine()])(request, response);
    };
    const environment = { OS_AUTH_URL: url, OS_USERNAME: 'admin', OS_PASSWORD: 'secret', OS_PROJECT_NAME: 'admin' };
    const result = await run(['simulate', '-', ...PERIOD, '--format', 'json'], { environment, stdin: 'services: {}\n' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen.map((request) => request.url.split('?')[0])).toEqual(['/v3/auth/tokens', '/v2/rating/price_list/simulation']);
    expect(seen[1].headers).toMatchObject({ 'x-auth-token': 'tok-123', 'content-type': 'application/yaml' });
    expect(seen[1].body.toString()).toBe('services: {}\n');
  });

  it('reports a usage file it cannot read before sending anything', async () => {
    expect(await run(['simulate', draft, ...PERIOD, '--usage', join(directory, 'missing.jsonl')])).toEqual({
      code: 1,
      stdout: '',
      stderr: `tariff: Cannot read the usage file ${join(directory, 'missing.jsonl')}: no such file.\n`,
    });
    expect(seen).toHaveLength(0);
  });

  it("shows the server's progress as a bar on a terminal, and nothing but the phases elsewhere", { timeout: 20_000 }, async () => {
    const lines = Array.from({ length: 8 }, (_, index) => progressLine(index * 4, index * 1000));
    handle = stream([...lines, resultLine()], { delayMs: 250 });
    const terminal = await run(['simulate', draft, ...PERIOD], { tty: true });
    expect(terminal.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the terminal's ESC is the point
    expect(terminal.stderr).toMatch(/\r\x1b\[Ksimulating \[#*\.*\] \d+\/31 windows, \d+ points… \d s/);
    expect(terminal.stderr.endsWith('\r\x1b[K')).toBe(true);
    handle = stream([...lines, resultLine()], { delayMs: 250 });
    const log = await run(['simulate', draft, ...PERIOD]);
    expect(log.code).toBe(0);
    expect(log.stderr).toMatch(/^(tariff: simulating… \(\d+ s so far\)\n)?$/);
  });
});

describe('the progress detail and the table cells', () => {
  it('bars the windows when the server counts them, else the upload', () => {
    expect(simulationDetail(undefined, { points: 1200, windows: 31, windows_done: 10, elapsed_ms: 1 })).toBe(
      '[######..............] 10/31 windows, 1200 points',
    );
    expect(simulationDetail({ sent: 512 * 1024 * 1024, total: 2048 * 1024 * 1024 }, { points: 7, windows: 0, windows_done: 0, elapsed_ms: 1 })).toBe(
      '[#####...............] 512 MB of 2.0 GB sent, 7 points',
    );
    expect(simulationDetail({ sent: 10, total: 10 }, { points: 7, windows: 0, windows_done: 0, elapsed_ms: 1 })).toBe('7 points');
    expect(simulationDetail(undefined, undefined)).toBe('');
  });

  it('lines up the decimal points of amounts, leaving other text as it is', () => {
    expect(decimalAligned(['100.5', '250', '+10.05', '-1', 'n/a'])).toEqual(['100.5 ', '250   ', '+10.05', '-1   ', 'n/a']);
    expect(decimalAligned(['1', '22'])).toEqual(['1', '22']);
  });

  it('writes relative deltas as percentages and deltas with their sign', () => {
    expect(['0.05394896719319562575941676792', '-0.2', '0', null, 'x'].map(percent)).toEqual(['+5.39 %', '-20.00 %', '0.00 %', 'n/a', 'x']);
    expect(['66.6', '-3', '0', '0.00', ''].map(signed)).toEqual(['+66.6', '-3', '0', '0.00', '']);
  });
});

/** Text with control characters among it, ESC and OSC 52 over-represented. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom('\x1b[2J', '\x1b]52;c;aGVsbG8=\x07', '\x9b31m', '\x7f', '\u202e', '\u2066', '\r', '\x00', '\x85', ',', '"'),
      fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)),
      fc.string({ minLength: 1, maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(''));

describe('hostile text in a result', () => {
  it('never reaches the terminal unescaped: project ids and service names in the table, JSON and CSV, and a faultstring', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(hostileText), { minLength: 1, maxLength: 3 }),
        fc.array(hostileText, { minLength: 1, maxLength: 3 }),
        hostileText,
        async (projects, services, faultstring) => {
          const result = resultNaming(projects, services);
          for (const format of ['table', 'json', 'csv']) {
            handle = stream([resultLine(result)]);
            const run1 = await run(['simulate', draft, ...PERIOD, '--format', format], { tty: true, stdoutTty: true });
            expect(run1.code, run1.stderr).toBe(0);
            expect(run1.stdout.replace(/[\n\t]/g, '')).not.toMatch(RAW_CONTROL);
            if (format === 'json') expect(JSON.parse(run1.stdout)).toEqual(result);
          }
          handle = stream([`${JSON.stringify({ error: { faultcode: 'Server', faultstring, status: 500 } })}\n`]);
          const failed = await run(['simulate', draft, ...PERIOD], { tty: true });
          expect(failed.code).toBe(1);
          expect(failed.stdout).toBe('');
          expect(failed.stderr.replace(/[\n\t]/g, '')).not.toMatch(RAW_CONTROL);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps the table aligned with escaped names, and CSV as sent to a file or pipe', () => {
    const result = resultNaming(['a\x1bb', 'plain'], ['s\u202e']);
    const lines = formatSimulationTable(result);
    const header = lines.indexOf('Projects that move most:') + 1;
    expect(lines.slice(header, header + 3)).toEqual([
      'PROJECT  POINTS  CHANGED  CURRENT  DRAFT  DELTA  RELATIVE',
      'a\\x1bb       10        5       10     11     +1  +10.00 %',
      'plain        10        5       10     12     +2  +20.00 %',
    ]);
    expect(formatSimulationCsv(result)).toContain('a\x1bb,s\u202e,');
  });
});
