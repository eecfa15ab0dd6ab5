/**
 * The price-list commands (src/client/price-list-commands.ts) against a scripted HTTP server, for
 * what a real server rarely does on cue: a change between the plan and the apply (409), 401, 403,
 * 413, no answer at all, a refused connection; Keystone password login and catalog lookup; the
 * confirmation on a terminal. The real server: price-list-cli.test.ts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runPriceListCommand, type Terminal } from '../../src/client/price-list-commands.js';
import { freePort } from '../helpers/server.js';

/** What the scripted server saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One scripted answer: status, body, headers; `hang` never answers. */
interface Scripted {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  hang?: boolean;
}

const E = '2026-11-25T00:00:00+00:00';
const PLAN_WITH_A_CHANGE = {
  revision: 5,
  dry_run: true,
  effective_at: E,
  counts: { added: 0, replaced: 1, ended: 0, deleted: 0, updated: 0, created: 0 },
  changes: [
    {
      action: 'replaced',
      resource: 'mapping',
      path: 'services[instance].fields[flavor_name].mappings[value=m1.large]',
      before: { value: 'm1.large', cost: '0.05' },
      after: { value: 'm1.large', cost: '0.06' },
    },
  ],
};
const fault = (faultstring: string) => ({ faultcode: 'Client', faultstring, debuginfo: null });

let server: Server;
let url: string;
let seen: Seen[] = [];
let script: ((request: Seen) => Scripted)[] = [];
let directory: string;
let file: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'tariff-cli-'));
  file = join(directory, 'prices.yaml');
  writeFileSync(file, 'services:\n  instance: {}\n');
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const entry = { method: request.method!, url: request.url!, headers: request.headers, body };
      seen.push(entry);
      const next = script.shift() ?? ((): Scripted => ({ status: 500, body: fault('unscripted') }));
      const answer = next(entry);
      if (answer.hang) return;
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterEach(() => {
  seen = [];
  script = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

/** Runs a price-list command in-process; stdin is a terminal when `answer` is given (typed on it). */
async function run(args: string[], environment: Record<string, string> = { TARIFF_URL: url }, answer?: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = Object.assign(new PassThrough(), { isTTY: answer !== undefined });
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  if (answer !== undefined) stdin.end(answer);
  const terminal: Terminal = { stdout, stderr, stdin, environment };
  const code = await runPriceListCommand(args, terminal);
  return { code, stdout: out, stderr: err };
}

describe('price-list commands against a scripted server', () => {
  it('applies with if_revision set to the plan’s revision, and explains the 409 of a change made meanwhile', async () => {
    script = [
      () => ({ body: PLAN_WITH_A_CHANGE }),
      () => ({ status: 409, body: fault('The configuration changed since revision 5: it is at revision 6. Export it again and review the diff.') }),
    ];
    const result = await run(['apply', file, '--yes', '--at', E]);
    expect(result.code).toBe(1);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      `POST /v2/rating/price_list?dry_run=true&effective_at=${encodeURIComponent(E)}`,
      `POST /v2/rating/price_list?dry_run=false&effective_at=${encodeURIComponent(E)}&if_revision=5`,
    ]);
    expect(seen[0].headers['content-type']).toBe('application/yaml');
    expect(seen[1].body).toBe('services:\n  instance: {}\n');
    expect(result.stdout).toContain('~ services[instance].fields[flavor_name].mappings[value=m1.large]  cost 0.05 → 0.06');
    expect(result.stderr).toBe(
      "tariff: The configuration changed meanwhile (409): nothing was written. The configuration changed since revision 5: it is at revision 6. Export it again and review the diff. Run 'tariff price-list diff' again and review the new plan.\n",
    );
  });

  it('passes --if-revision and --unversioned-now to the dry run', async () => {
    script = [() => ({ body: { ...PLAN_WITH_A_CHANGE, counts: {}, changes: [] } })];
    const result = await run(['diff', file, '--if-revision', '4', '--unversioned-now']);
    expect(result.code).toBe(0);
    expect(seen[0].url).toBe('/v2/rating/price_list?dry_run=true&if_revision=4&unversioned_now=true');
  });

  it('asks on a terminal: no keeps everything as it was, yes applies', async () => {
    script = [() => ({ body: PLAN_WITH_A_CHANGE })];
    const refused = await run(['apply', file], { TARIFF_URL: url }, 'n\n');
    expect(refused).toMatchObject({ code: 1, stderr: 'Apply these changes? [y/N] Not applied: nothing was changed.\n' });
    expect(seen).toHaveLength(1);

    seen = [];
    script = [() => ({ body: PLAN_WITH_A_CHANGE }), () => ({ body: { ...PLAN_WITH_A_CHANGE, revision: 6, dry_run: false } })];
    const accepted = await run(['apply', file], { TARIFF_URL: url }, 'y\n');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      `Applied: 0 added, 1 replaced, 0 ended, 0 deleted, 0 updated, 0 created, effective ${E}; the configuration is now at revision 6.`,
    );
    expect(seen).toHaveLength(2);
  });

  it('refuses to apply without --yes when no one can answer (stdin not a terminal, or the document on stdin)', async () => {
    script = [() => ({ body: PLAN_WITH_A_CHANGE })];
    expect((await run(['apply', file])).stderr).toBe(
      'tariff: Not applied: stdin is not a terminal, so no one can confirm. Review the plan, then pass --yes.\n',
    );
    script = [() => ({ body: PLAN_WITH_A_CHANGE })];
    const fromStdin = await run(['apply', '-'], { TARIFF_URL: url }, 'services: {}\n');
    expect(fromStdin).toMatchObject({
      code: 1,
      stderr: 'tariff: Not applied: the price list came on stdin, so no answer can be read from it. Review the plan, then pass --yes.\n',
    });
    expect(seen.at(-1)!.body).toBe('services: {}\n');
    expect(seen).toHaveLength(2);
  });

  it.each([
    [401, 'Not authenticated (401): the server wants a Keystone token. Set OS_TOKEN, or OS_AUTH_URL, OS_USERNAME, OS_PASSWORD and OS_PROJECT_NAME'],
    [403, "Not allowed (403): the price list needs the rating:module_config policy rule (CloudKitty's default: the admin role)."],
    [413, "The price list is larger than the server accepts (413; the server's TARIFF_QUOTE_BODY_LIMIT_MB): refused"],
    [503, 'The server answered HTTP 503: refused'],
  ])('explains a %i in one line, exit 1', async (status, message) => {
    script = [() => ({ status, body: fault('refused') })];
    const result = await run(['diff', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`tariff: ${message}`);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('lists problems without a position as FILE: path: message, and says how many more the server left out', async () => {
    const problems = [{ path: 'services[x].mappings[0].cost', message: 'bad decimal' }];
    script = [
      () => ({
        status: 400,
        body: {
          ...fault('The price list has 1001 problems:\nservices[x].mappings[0].cost: bad decimal\n… and 1000 more problems (TARIFF_PRICE_LIST_MAX_PROBLEMS)'),
          problems,
        },
      }),
    ];
    const result = await run(['diff', file]);
    expect(result.stderr).toBe(
      `tariff: ${file}: the server refused the price list, 1001 problems:\n${file}: services[x].mappings[0].cost: bad decimal\n… and 1000 more problems (TARIFF_PRICE_LIST_MAX_PROBLEMS)\n`,
    );
  });

  it('reports a server that does not answer within TARIFF_CLIENT_TIMEOUT_SECONDS', async () => {
    script = [() => ({ hang: true })];
    const started = Date.now();
    const result = await run(['export'], { TARIFF_URL: url, TARIFF_CLIENT_TIMEOUT_SECONDS: '0.3' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `tariff: No answer to GET ${url}/v2/rating/price_list within 0.3 s (TARIFF_CLIENT_TIMEOUT_SECONDS).\n`,
    });
  });

  it('says an apply that timed out may still be running', async () => {
    script = [() => ({ body: PLAN_WITH_A_CHANGE }), () => ({ hang: true })];
    const result = await run(['apply', file, '--yes'], { TARIFF_URL: url, TARIFF_CLIENT_TIMEOUT_SECONDS: '0.3' });
    expect(result.stderr).toContain(
      "within 0.3 s (TARIFF_CLIENT_TIMEOUT_SECONDS). The server may still be applying it: check with 'tariff price-list diff' before applying again.",
    );
  });

  it('reports a refused connection and an unreadable file', async () => {
    const closed = await freePort();
    expect(await run(['export'], { TARIFF_URL: `http://127.0.0.1:${closed}` })).toEqual({
      code: 1,
      stdout: '',
      stderr: `tariff: Cannot reach http://127.0.0.1:${closed}: connection refused (is the server running, and is this its address?).\n`,
    });
    expect((await run(['diff', join(directory, 'missing.yaml')])).stderr).toBe(`tariff: Cannot read ${join(directory, 'missing.yaml')}: no such file.\n`);
  });

  it('needs a URL or credentials', async () => {
    expect((await run(['export'], {})).stderr).toBe(
      'tariff: Where is the Tariff server? Give its URL with --url or TARIFF_URL, or Keystone credentials (OS_AUTH_URL, …) to find it in the catalog.\n',
    );
  });

  it('logs in to Keystone with a password, finds the rating endpoint in the catalog and sends the token', async () => {
    const catalog = [{ type: 'rating', endpoints: [{ interface: 'public', region_id: 'RegionOne', url }] }];
    script = [
      () => ({ status: 201, body: { token: { catalog } }, headers: { 'x-subject-token': 'tok-123' } }),
      () => ({ body: 'revision: 1\n', headers: { 'content-type': 'application/yaml' } }),
    ];
    const result = await run(['export'], { OS_AUTH_URL: url, OS_USERNAME: 'admin', OS_PASSWORD: 'secret', OS_PROJECT_NAME: 'admin' });
    expect(result).toEqual({ code: 0, stdout: 'revision: 1\n', stderr: '' });
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(['POST /v3/auth/tokens', 'GET /v2/rating/price_list']);
    expect(JSON.parse(seen[0].body).auth.identity.password.user).toEqual({ name: 'admin', domain: { id: 'default' }, password: 'secret' });
    expect(seen[1].headers).toMatchObject({ 'x-auth-token': 'tok-123', accept: 'application/yaml' });
  });

  it('reports a refused login, and an OS_TOKEN sent as it is', async () => {
    script = [() => ({ status: 401, body: { error: { code: 401, message: 'The request you have made requires authentication.' } } })];
    const refused = await run(['export'], { OS_AUTH_URL: `${url}/v3`, OS_USERNAME: 'admin', OS_PASSWORD: 'wrong' });
    expect(refused.stderr).toBe(
      `tariff: Keystone refused the password login at ${url}/v3 (OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME) (HTTP 401): The request you have made requires authentication.\n`,
    );
    script = [() => ({ body: '{}' })];
    await run(['export', '--format', 'json'], { TARIFF_URL: url, OS_TOKEN: 'given' });
    expect(seen.at(-1)!.headers).toMatchObject({ 'x-auth-token': 'given', accept: 'application/json' });
  });

  it('sends a .json file as JSON', async () => {
    const json = join(directory, 'prices.json');
    writeFileSync(json, '{"services": {}}');
    script = [() => ({ body: { ...PLAN_WITH_A_CHANGE, changes: [], counts: {} } })];
    expect((await run(['diff', json])).code).toBe(0);
    expect(seen[0]).toMatchObject({ headers: { 'content-type': 'application/json' }, body: '{"services": {}}' });
  });
});
