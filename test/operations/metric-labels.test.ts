/**
 * Issue 26, "how it is shown": every label of Tariff's series takes its values from a fixed set, so
 * that 10,000 distinct paths sent to a real server process add no series. The paths are of the
 * kinds that used to add one each or could: console files with content hashes (real ones and
 * missing ones), console pages and API objects by id, and unknown paths (404). The labelling
 * itself (`routeLabel`, `methodLabel`) is checked against hostile route patterns and methods.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { METHODS } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_FILES_ROUTE, methodLabel, routeLabel } from '../../src/http/metrics.js';
import { UNMATCHED_ROUTE } from '../../src/kernel/metrics.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';

const H = '/v1/rating/module_config/hashmap';
/** Distinct paths sent after the warm-up. */
const DISTINCT_PATHS = 10_000;
/** Requests in flight at once. */
const CONCURRENCY = 16;

/** The series of a Prometheus text (`name{labels}` of each sample line) whose name starts with `prefix`. */
function seriesOf(text: string, prefix: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(0, line.lastIndexOf(' ')));
}

/** The sum of the samples of `name` (every label set). */
function total(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('the route and method labels', () => {
  it('keep route patterns, collapse built console files and unmatched requests, and know every method Node parses', () => {
    expect(routeLabel(`${H}/mappings/:mapping_id`)).toBe(`${H}/mappings/:mapping_id`);
    expect(routeLabel('/console/')).toBe('/console/');
    expect(routeLabel('/console/*')).toBe('/console/*');
    expect(routeLabel('/console/assets/index-DUkJp6eL.js')).toBe(CONSOLE_FILES_ROUTE);
    expect(routeLabel('/console/favicon.svg')).toBe(CONSOLE_FILES_ROUTE);
    expect(routeLabel(undefined)).toBe(UNMATCHED_ROUTE);
    for (const method of METHODS) expect(methodLabel(method)).toBe(method);
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ minLength: 1, maxLength: 40 }), (name, method) => {
        expect(routeLabel(`/console/${name}`)).toMatch(/^\/console\/(\*)?$|^\/console\/assets\/\*$/);
        expect([...METHODS, 'other']).toContain(methodLabel(method));
      }),
    );
  });
});

describe('10,000 distinct paths', () => {
  let directory: string;
  let tariff: ServerProcess | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-metric-labels-'));
    tariff = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, { TARIFF_LOG_LEVEL: 'error' });
  }, 120_000);

  afterAll(async () => {
    await tariff?.stop();
    rmSync(directory, { recursive: true, force: true });
  }, 60_000);

  async function get(path: string): Promise<number> {
    const response = await fetch(`${tariff!.url}${path}`, { signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    return response.status;
  }

  async function scrape(): Promise<string> {
    const response = await fetch(`${tariff!.url}/metrics`, { signal: AbortSignal.timeout(30_000) });
    expect(response.status).toBe(200);
    return response.text();
  }

  it('add no series: console files with hashes, pages and objects by id, unknown paths', async () => {
    // The console's built files, as its page names them (the system tier builds dist/ with the console).
    const page = await (await fetch(`${tariff!.url}/console/`)).text();
    const assets = [...page.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets.length, page).toBeGreaterThan(0);

    const hash = fc.stringMatching(/^[A-Za-z0-9_-]{8}$/);
    const segment = fc.stringMatching(/^[a-z0-9-]{1,16}$/);
    const kinds: fc.Arbitrary<string>[] = [
      // Console files that do not exist (a stale page of an earlier release): 404.
      fc
        .tuple(fc.constantFrom('index', 'editor', 'vendor', 'chunk'), hash, fc.constantFrom('js', 'css'))
        .map(([name, h, ext]) => `/console/assets/${name}-${h}.${ext}`),
      // Console pages by id: the page, 200.
      fc.uuid().map((id) => `/console/services/${id}`),
      // API objects by id that do not exist: their route's pattern, 404.
      fc.uuid().map((id) => `${H}/mappings/${id}`),
      fc.uuid().map((id) => `${H}/services/${id}`),
      // Unknown paths: 404.
      fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/no-such/${segments.join('/')}`),
    ];
    const paths = new Set<string>();
    while (paths.size < DISTINCT_PATHS) for (const path of fc.sample(fc.oneof(...kinds), 1000)) if (paths.size < DISTINCT_PATHS) paths.add(path);
    const sent = [...assets, ...paths];

    // Warm-up: one path of each kind, so that each series the load can reach exists before it.
    const warmUp = [...assets, '/console/assets/index-AAAAAAAA.js', '/console/services/x', `${H}/mappings/x`, `${H}/services/x`, '/no-such/x', '/metrics'];
    for (const path of warmUp) await get(path);
    const before = await scrape();

    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < sent.length) {
          const status = await get(sent[next++]);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    expect([...statuses.keys()].sort()).toEqual([200, 404]);
    const after = await scrape();

    // Every request counted (the first scrape too), in the same series as before.
    expect(total(after, 'tariff_http_requests_total') - total(before, 'tariff_http_requests_total')).toBe(sent.length + 1);
    expect(seriesOf(after, 'tariff_')).toEqual(seriesOf(before, 'tariff_'));
    const routes = new Set(seriesOf(after, 'tariff_http_requests_total').map((series) => /route="([^"]*)"/.exec(series)![1]));
    expect(routes).toContain(CONSOLE_FILES_ROUTE);
    expect(routes).toContain(UNMATCHED_ROUTE);
    expect(routes).toContain(`${H}/mappings/:mapping_id`);
    for (const route of routes) expect(route).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}|-[A-Za-z0-9_-]{8}\.(js|css)$/);
    // Node's own series (process_*, nodejs_*) may gain a garbage collection kind or a handle type
    // (prom-client's default metrics, labelled from Node's fixed lists): no other series is new.
    const lines = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
    console.info(`/metrics: ${lines(before)} samples before ${sent.length} distinct paths, ${lines(after)} after`);
    const known = new Set(seriesOf(before, ''));
    const added = seriesOf(after, '').filter((series) => series !== '' && !series.startsWith('#') && !known.has(series));
    const nodeLists =
      /^nodejs_(gc_duration_seconds_(bucket\{le="[^"]+",kind="[a-z]+"\}|sum\{kind="[a-z]+"\}|count\{kind="[a-z]+"\})|active_(handles|resources|requests)\{type="[A-Za-z]+"\})$/;
    expect(added.filter((series) => !nodeLists.test(series))).toEqual([]);
  }, 300_000);
});
