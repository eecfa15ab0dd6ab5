/**
 * The price-list page's impact of a reviewed draft (docs/price-list.md §4) in chromium against a
 * real Tariff process on SQLite: a draft reviewed, then simulated on an uploaded usage file (gzip
 * JSON Lines of CloudKitty v2 dataframes made here: three projects × 24 hours), its totals, its
 * projects' table and chart, its changing rules and its reconciliation shown with exactly the
 * values the API gives for the same upload; a usage file that fails mid-way (an `error` line) shows
 * the fault and no totals, not even the previous result's; CloudKitty asked for on a server that
 * does not read it shows the server's 400 naming the setting. Then usage read by Tariff from a
 * stand-in CloudKitty whose windows the test holds: the points read show while it reads, no result
 * before its line, the result as the API gives it, and a stopped simulation shows nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { HOUR, isoTime as iso, simulationPath, TOMORROW, uploadBody, usageFile, type UsageDataframe } from '../simulation/simulation.js';
import { CHROMIUM_AVAILABLE } from './browser.js';
import { accessibilityViolations, saveScreenshot, SCREENSHOTS, startConsole, type ConsoleUnderTest } from './harness.js';
import { layoutFaults } from './layout-faults.js';

/** Live rules: two flavors priced flat, volumes by the GB, a project's own price for m1.large. */
const LIVE = {
  modules: { hashmap: { enabled: true, priority: 1 } },
  groups: ['compute', 'storage'],
  services: {
    instance: {
      fields: {
        flavor_name: {
          mappings: [
            { value: 'm1.small', cost: '0.5', group: 'compute', name: 'small' },
            { value: 'm1.large', cost: '2', group: 'compute', name: 'large' },
            { value: 'm1.large', cost: '1.5', group: 'compute', tenant_id: 'project-b', name: 'large-b' },
          ],
        },
      },
    },
    volume: { mappings: [{ type: 'flat', cost: '0.01', group: 'storage', name: 'gigabytes' }] },
  },
};

/** The draft: m1.large dearer for everyone, cheaper for project-b. */
const DRAFT = structuredClone(LIVE);
DRAFT.services.instance.fields.flavor_name.mappings[1].cost = '2.25';
DRAFT.services.instance.fields.flavor_name.mappings[2].cost = '1.25';

const HOURS = 24;
/** A day of hourly usage from tomorrow (the live rules start when the test applies them). */
const BEGIN = TOMORROW;
/** The draft takes over 6 hours in: 18 hours of m1.large change. */
const EFFECTIVE_AT = BEGIN + 6 * HOUR;
const END = BEGIN + HOURS * HOUR;
const PROJECTS = ['project-a', 'project-b', 'project-c'];
/** The hour whose stored instance prices for project-c are wrong (the reconciliation finds them). */
const WRONG_HOUR = 3;

/** A time as the form's `datetime-local` controls take it (UTC, to the second). */
const local = (time: number) => new Date(time).toISOString().slice(0, 19);

/** The price the live rules give one point. */
function livePrice(project: string, service: string, flavor?: string): string {
  if (service === 'volume') return '0.2';
  if (flavor === 'm1.small') return '0.5';
  return project === 'project-b' ? '1.5' : '2';
}

/** Hourly usage: each project runs a small and a large instance and a 20 GB volume, stored at the live prices but one wrong hour. */
function usage(): UsageDataframe[] {
  const dataframes: UsageDataframe[] = [];
  for (let hour = 0; hour < HOURS; hour += 1) {
    const begin = BEGIN + hour * HOUR;
    const instance = PROJECTS.flatMap((project) =>
      ['m1.small', 'm1.large'].map((flavor) => ({
        vol: { unit: 'instance', qty: '1' },
        rating: { price: hour === WRONG_HOUR && project === 'project-c' ? '9' : livePrice(project, 'instance', flavor) },
        groupby: { project_id: project, id: `${project}-${flavor}` },
        metadata: { flavor_name: flavor },
      })),
    );
    const volume = PROJECTS.map((project) => ({
      vol: { unit: 'GiB', qty: '20' },
      rating: { price: livePrice(project, 'volume') },
      groupby: { project_id: project, id: `${project}-volume` },
      metadata: { volume_type: 'ssd' },
    }));
    dataframes.push({ period: { begin: iso(begin), end: iso(begin + HOUR) }, usage: { instance, volume } });
  }
  return dataframes;
}

/** The members of the API's result the page shows. */
interface Totals {
  points: number;
  changed_points: number;
  stored: string;
  current: string;
  draft: string;
  delta: string;
  relative_delta: string | null;
}
interface ApiResult {
  totals: Totals;
  projects: (Totals & { project_id: string })[];
  services: (Totals & { service: string })[];
  movers: { projects: (Totals & { project_id: string })[] };
  rules: { module: string; name: string; points: number }[];
  reconciliation: {
    points: number;
    stored: string;
    current: string;
    difference: string;
    projects: { project_id: string; points: number; stored: string; current: string; difference: string; windows: unknown[] }[];
    findings: { project_id: string; stored: string; current: string }[];
  };
}

describe.skipIf(!CHROMIUM_AVAILABLE)('the impact of a reviewed draft on the price-list page, in chromium', () => {
  let tariff: ConsoleUnderTest;
  const file = usageFile(usage(), true);

  /** The same simulation straight from the API, as text: the answer the page must show. */
  const fromApi = async (usageBytes: Buffer, query: { effective_at?: string }, accept: string): Promise<string> => {
    const { body, contentType } = await uploadBody(DRAFT, usageBytes);
    const path = simulationPath({ begin: iso(BEGIN), end: iso(END), ...query });
    const response = await fetch(`${tariff.server.url}${path}`, {
      method: 'POST',
      body: new Uint8Array(body),
      headers: { 'content-type': contentType, accept },
    });
    expect(response.status).toBe(200);
    return response.text();
  };

  /** Opens the page, reviews the draft (dry run; JSON unless told) and fills the impact form for the test's period. */
  const reviewDraft = async (text = JSON.stringify(DRAFT, null, 2)) => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    await page.getByRole('textbox', { name: 'Document' }).fill(text);
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await page.getByRole('heading', { name: 'Impact on stored usage' }).waitFor();
    await page.getByLabel('Usage from (UTC)').fill(local(BEGIN));
    await page.getByLabel('Usage until (UTC)').fill(local(END));
  };

  beforeAll(async () => {
    tariff = await startConsole({ priceList: LIVE });
    tariff.page.setDefaultTimeout(20_000);
  }, 60_000);

  afterAll(async () => {
    await tariff?.close();
  });

  it('offers the last full month by default, the draft in force from its begin', async () => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    await page.getByRole('textbox', { name: 'Document' }).fill(JSON.stringify(DRAFT));
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await page.getByRole('heading', { name: 'Impact on stored usage' }).waitFor();
    const now = new Date();
    const begin = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    // Chromium writes a whole minute without its seconds.
    const value = async (label: string) => (await page.getByLabel(label).inputValue()).padEnd(19, ':00');
    expect(await value('Usage from (UTC)')).toBe(local(begin.getTime()));
    expect(await value('Usage until (UTC)')).toBe(local(end.getTime()));
    expect(await value('Draft in force from (UTC)')).toBe(local(begin.getTime()));
    // Editing the document makes the review stale: the impact goes with it.
    await page.getByRole('textbox', { name: 'Document' }).fill(JSON.stringify(LIVE));
    expect(await page.getByRole('heading', { name: 'Impact on stored usage' }).count()).toBe(0);
  });

  it('shows the impact of the draft on an uploaded usage file with the values the API gives', { timeout: 90_000 }, async () => {
    const page = tariff.page;
    await reviewDraft();
    await page.getByLabel('Draft in force from (UTC)').fill(local(EFFECTIVE_AT));
    await page.getByLabel('A usage file').check();
    await page.getByLabel('Usage file (JSON Lines of CloudKitty v2 dataframes, optionally gzip)').setInputFiles({
      name: 'usage.jsonl.gz',
      mimeType: 'application/gzip',
      buffer: file,
    });
    const [request] = await Promise.all([
      page.waitForRequest((sent) => sent.url().includes('/v2/rating/price_list/simulation')),
      page.getByRole('button', { name: 'Show the impact' }).click(),
    ]);
    expect(request.headers()['accept']).toBe('application/x-ndjson');
    // The server reads a part `usage` only after a part `price_list`: its result says both came in that order.
    expect(request.headers()['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const result = page.locator('[data-impact-result]');
    await result.waitFor();
    const api = JSON.parse(await fromApi(file, { effective_at: iso(EFFECTIVE_AT) }, 'application/json')) as ApiResult;

    // What the draft does, worked out by hand: 18 hours × ±0.25 on m1.large for each project.
    expect(api.totals).toMatchObject({ points: HOURS * 9, changed_points: 18 * 3, delta: '4.5' });
    expect(api.projects.map((project) => [project.project_id, project.delta])).toEqual([
      ['project-a', '4.5'],
      ['project-b', '-4.5'],
      ['project-c', '4.5'],
    ]);

    // The totals, as the API's exact text (the relative delta as a percentage, its ratio kept).
    for (const key of ['stored', 'current', 'draft', 'delta'] as const) {
      expect(await result.locator(`dd[data-total="${key}"]`).textContent()).toBe(api.totals[key]);
    }
    expect(await result.locator('dd[data-total="points"]').textContent()).toBe(api.totals.points.toLocaleString('en'));
    expect(await result.locator('dd[data-total="changed_points"]').textContent()).toBe(String(api.totals.changed_points));
    expect(await result.locator('dd[data-total="relative_delta"] [data-ratio]').getAttribute('data-ratio')).toBe(api.totals.relative_delta);
    expect(await result.locator('dd[data-total="relative_delta"]').textContent()).toMatch(/^\d+\.\d\d %$/);

    // Every project's row, in the API's order, with its values.
    const rows = result.locator('table.impact-projects tbody tr');
    expect(await rows.count()).toBe(api.projects.length);
    for (const [index, project] of api.projects.entries()) {
      const cells = await rows.nth(index).locator('th, td').allTextContents();
      expect(cells.slice(0, 7)).toEqual([
        project.project_id,
        String(project.points),
        String(project.changed_points),
        project.stored,
        project.current,
        project.draft,
        project.delta,
      ]);
    }

    // Every service's row, in the API's order, with its values.
    const services = await result
      .locator('table.impact-services tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-service'), ...[...tr.children].map((cell) => cell.textContent)]));
    expect(services.map((cells) => cells.slice(0, 9))).toEqual(
      api.services.map((service) => [
        service.service,
        service.service,
        String(service.points),
        String(service.changed_points),
        service.stored,
        service.current,
        service.draft,
        service.delta,
        expect.stringMatching(service.relative_delta === null ? /^—$/ : /^-?\d+\.\d\d %$/),
      ]),
    );
    expect(services.length).toBeGreaterThan(1);

    // The chart: a bar per mover, labelled with its exact delta, lower charges left of zero.
    const bars = result.locator('.impact-chart svg g[data-project]');
    expect(await bars.count()).toBe(api.movers.projects.length);
    const zero = Number(await result.locator('.impact-chart-zero').getAttribute('x1'));
    for (const [index, mover] of api.movers.projects.entries()) {
      const bar = bars.nth(index);
      expect(await bar.getAttribute('data-project')).toBe(mover.project_id);
      expect(await bar.locator('text.impact-chart-value').textContent()).toBe(mover.delta);
      const x = Number(await bar.locator('rect').getAttribute('x'));
      const width = Number(await bar.locator('rect').getAttribute('width'));
      if (mover.delta.startsWith('-')) expect(x + width).toBeCloseTo(zero);
      else expect(x).toBeCloseTo(zero);
      expect(width).toBeGreaterThan(0);
    }
    expect(await result.locator('.impact-chart svg').getAttribute('aria-label')).toContain('project-b -4.5');

    // The rules that change prices.
    const rules = await result.locator('table.impact-rules tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
    expect(rules).toEqual(api.rules.map((rule) => [rule.module, rule.name, String(rule.points)]));
    expect(rules.length).toBeGreaterThan(0);

    // The reconciliation: project-c's wrong hour, its totals, its period and its findings.
    expect(api.reconciliation).toMatchObject({ points: 2, stored: '18', current: '2.5', difference: '15.5' });
    for (const key of ['stored', 'current', 'difference'] as const) {
      expect(await result.locator(`dd[data-reconciliation="${key}"]`).textContent()).toBe(api.reconciliation[key]);
    }
    const reconciled = result.locator('table.impact-reconciled tbody tr');
    expect(await reconciled.count()).toBe(1);
    expect((await reconciled.locator('th, td').allTextContents()).slice(0, 5)).toEqual(['project-c', '2', '18', '2.5', '15.5']);
    await reconciled.getByText('1 period').click();
    const wrong = BEGIN + WRONG_HOUR * HOUR;
    const hour = (time: number) => new Date(time).toISOString().slice(11, 16);
    expect(await reconciled.locator('li').textContent()).toBe(
      `${new Date(wrong).toISOString().slice(0, 10)} ${hour(wrong)}–${hour(wrong + HOUR)} UTC: 2 points, stored 18, current 2.5, difference 15.5`,
    );
    const findings = await result
      .locator('table.impact-findings tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
    expect(findings.map((cells) => [cells[0], cells[4], cells[5]])).toEqual(
      api.reconciliation.findings.map((finding) => [finding.project_id, finding.stored, finding.current]),
    );
    expect(findings.map((cells) => cells[6])).toEqual(['flavor_name=m1.small', 'flavor_name=m1.large']);

    await page.setViewportSize({ width: 1366, height: 900 });
    await result.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'price-list-impact-page');
    // The section alone, for the README (docs/screenshots/price-list-impact.png is a copy).
    // The clip is in the page's coordinates: the section's box plus the scroll.
    const box = await page.locator('section.impact').evaluate((section) => {
      const rect = section.getBoundingClientRect();
      return { x: rect.left + window.scrollX, y: rect.top + window.scrollY, width: rect.width, height: rect.height };
    });
    await page.screenshot({
      path: join(SCREENSHOTS, 'price-list-impact.png'),
      fullPage: true,
      clip: { x: box.x - 16, y: box.y - 8, width: box.width + 32, height: box.height + 16 },
    });
    expect(await layoutFaults(page)).toEqual([]);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(tariff.policyViolations()).toEqual([]);
  });

  it('shows the fault of an error line and no totals, not even the previous result’s', { timeout: 60_000 }, async () => {
    const page = tariff.page;
    // The draft as YAML: its part goes as application/yaml.
    await reviewDraft(stringifyYaml(DRAFT));
    await page.getByLabel('A usage file').check();
    const input = page.getByLabel('Usage file (JSON Lines of CloudKitty v2 dataframes, optionally gzip)');
    await input.setInputFiles({ name: 'usage.jsonl', mimeType: 'application/x-ndjson', buffer: usageFile(usage().slice(0, 2)) });
    // In force only at the end: nothing moves, and the chart says so in words.
    await page.getByLabel('Draft in force from (UTC)').fill(local(END));
    await page.getByRole('button', { name: 'Show the impact' }).click();
    await page.locator('[data-impact-result] dd[data-total="delta"]').waitFor();
    expect(await page.locator('dd[data-total="delta"]').textContent()).toBe('0');
    expect(await page.locator('[data-nothing-moves]').count()).toBe(1);
    expect(await page.locator('.impact-chart').count()).toBe(0);

    // Two good dataframes, then a line that is not one: the server has started, so it answers 200 and ends with an error line.
    const broken = Buffer.concat([usageFile(usage().slice(0, 2)), Buffer.from('{"period": {}}\n')]);
    await input.setInputFiles({ name: 'broken.jsonl', mimeType: 'application/x-ndjson', buffer: broken });
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.url().includes('/v2/rating/price_list/simulation')),
      page.getByRole('button', { name: 'Show the impact' }).click(),
    ]);
    const fault = page.locator('[data-impact-fault] [role="alert"]');
    await fault.waitFor();
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toMatch(/^application\/x-ndjson/);
    // Chromium keeps no streamed body for the test to read: the API's answer to the same upload tells the line.
    const lines = (await fromApi(broken, {}, 'application/x-ndjson'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { error?: { faultstring: string; status: number } });
    const last = lines.at(-1)!;
    expect(last.error).toMatchObject({ status: 400 });
    expect(last.error!.faultstring).toMatch(/^Usage file line 3: /);
    expect(await fault.textContent()).toBe(last.error!.faultstring);
    expect(await page.locator('[data-impact-result]').count()).toBe(0);
    expect(await page.locator('[data-total]').count()).toBe(0);
    expect(await page.locator('.impact-chart').count()).toBe(0);
    expect(await page.locator('.impact-progress').textContent()).toBe('');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('shows the server’s 400 naming TARIFF_CLOUDKITTY_API_URL when it does not read CloudKitty', { timeout: 60_000 }, async () => {
    const page = tariff.page;
    await reviewDraft();
    expect(await page.getByLabel('Read by the server from CloudKitty (its stored dataframes)').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Show the impact' }).click();
    const fault = page.locator('[data-impact-fault] [role="alert"]');
    await fault.waitFor();
    expect(await fault.textContent()).toBe(
      "No CloudKitty API is configured (TARIFF_CLOUDKITTY_API_URL) to read stored usage from: send a usage file (multipart part 'usage').",
    );
    expect(await page.locator('[data-total]').count()).toBe(0);
  });
});

/** A stand-in for CloudKitty's `GET /v2/dataframes` serving {@link usage}, a window held until the test lets it go. */
interface StandInCloudKitty {
  url: string;
  /** Holds the answer for the window that begins at `time` until {@link release}. */
  hold(time: number): void;
  release(): void;
  /** The windows asked for, by their begin (epoch ms). */
  asked: number[];
  close(): Promise<void>;
}

async function standInCloudKitty(): Promise<StandInCloudKitty> {
  const dataframes = usage();
  let held: { time: number; gate: Promise<void>; open: () => void } | undefined;
  const asked: number[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/v2/dataframes') {
      response.writeHead(404, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ message: 'No such route in this stand-in.' }));
    }
    const begin = Date.parse(url.searchParams.get('begin')!);
    const end = Date.parse(url.searchParams.get('end')!);
    const offset = Number(url.searchParams.get('offset'));
    asked.push(begin);
    const inWindow = dataframes.filter((dataframe) => Date.parse(dataframe.period.begin) >= begin && Date.parse(dataframe.period.begin) < end);
    const total = inWindow.reduce((sum, dataframe) => sum + Object.values(dataframe.usage).reduce((count, points) => count + points.length, 0), 0);
    const answer = () => {
      if (total === 0) {
        response.writeHead(404, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ message: 'No resource found for provided filters.' }));
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ total, dataframes: offset === 0 ? inWindow : [] }));
    };
    if (held !== undefined && held.time === begin) void held.gate.then(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold(time) {
      let open = () => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      held = { time, gate, open };
    },
    release() {
      held?.open();
      held = undefined;
    },
    asked,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(!CHROMIUM_AVAILABLE)('the impact of a reviewed draft on usage Tariff reads from CloudKitty, in chromium', () => {
  let cloudKitty: StandInCloudKitty;
  let tariff: ConsoleUnderTest;

  beforeAll(async () => {
    cloudKitty = await standInCloudKitty();
    tariff = await startConsole({ priceList: LIVE, environment: { TARIFF_CLOUDKITTY_API_URL: cloudKitty.url } });
    tariff.page.setDefaultTimeout(20_000);
  }, 60_000);

  afterAll(async () => {
    cloudKitty?.release();
    await tariff?.close();
    await cloudKitty?.close();
  });

  /** Reviews the draft and asks for its impact on the test's day, read from CloudKitty. */
  const run = async () => {
    const page = tariff.page;
    await page.goto(tariff.at('price-list'));
    // As YAML: the body is the draft alone, application/yaml.
    await page.getByRole('textbox', { name: 'Document' }).fill(stringifyYaml(DRAFT));
    await page.getByRole('button', { name: 'Show the changes (dry run)' }).click();
    await page.getByLabel('Usage from (UTC)').fill(local(BEGIN));
    await page.getByLabel('Usage until (UTC)').fill(local(END));
    await page.getByLabel('Draft in force from (UTC)').fill(local(EFFECTIVE_AT));
    await page.getByRole('button', { name: 'Show the impact' }).click();
  };

  it('shows the points read while CloudKitty is read, then the result as the API gives it', { timeout: 90_000 }, async () => {
    const page = tariff.page;
    // Three windows read (9 points an hour), the fourth held. The windows done lag by one while a
    // window is awaited: the server counts a window done when it asks for the next.
    cloudKitty.hold(BEGIN + 3 * HOUR);
    await run();
    const status = page.locator('.impact-progress');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Reading usage: 27 points read, [23] of 24 windows, \d+ s\.$/);
    expect(await page.locator('[data-impact-result]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Show the impact' }).isDisabled()).toBe(true);
    cloudKitty.release();
    const result = page.locator('[data-impact-result]');
    await result.waitFor();
    expect(await status.textContent()).toBe('');

    const path = simulationPath({ begin: iso(BEGIN), end: iso(END), effective_at: iso(EFFECTIVE_AT) });
    const api = await tariff.api<ApiResult>('POST', path, DRAFT);
    expect(api.totals).toMatchObject({ points: HOURS * 9, changed_points: 54, delta: '4.5' });
    for (const key of ['stored', 'current', 'draft', 'delta'] as const) {
      expect(await result.locator(`dd[data-total="${key}"]`).textContent()).toBe(api.totals[key]);
    }
    expect(await result.locator('table.impact-projects tbody tr td[data-delta]').allTextContents()).toEqual(api.projects.map((project) => project.delta));
    expect((await result.locator('h3').first().textContent()) ?? '').toMatch(/^Impact on /);
    expect(await result.locator('p').first().textContent()).toMatch(/^Usage from CloudKitty;/);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('stops a simulation on request: no result, and the next one runs', { timeout: 90_000 }, async () => {
    const page = tariff.page;
    cloudKitty.hold(BEGIN + 2 * HOUR);
    await run();
    const status = page.locator('.impact-progress');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Reading usage: 18 points read, [12] of 24 windows/);
    await page.getByRole('button', { name: 'Stop' }).click();
    expect(await status.textContent()).toBe('Stopped: no result.');
    cloudKitty.release();
    expect(await page.locator('[data-impact-result]').count()).toBe(0);
    // The server ended the stopped one (one simulation at a time): the next is not refused as busy.
    await page.getByRole('button', { name: 'Show the impact' }).click();
    await page.locator('[data-impact-result], [data-impact-fault]').first().waitFor();
    expect(await page.locator('[data-impact-fault]').allTextContents()).toEqual([]);
    expect(await page.locator('[data-impact-result]').count()).toBe(1);
  });
});
