/**
 * docs/price-list.md §4 in a real cloud (test/cloud/): the simulation reads CloudKitty 17's stored
 * usage through its `GET /v2/dataframes`, Keystone mode on both sides, with Tariff's own service
 * token, never the caller's.
 *
 * The cloud runs CloudKitty on its v2 storage (`CLOUD_CLOUDKITTY_STORAGE=influxdb`, a private
 * InfluxDB): on the v1 SQL storage CloudKitty 17 serves no `/v2` route at all. Usage is written
 * through CloudKitty's own `POST /v2/dataframes` (admin token: `dataframes:add` is `role:admin`),
 * in a period that starts tomorrow, after the live rules' start (applied now).
 *
 * That Tariff's token is the one CloudKitty sees is shown with CloudKitty's policy: with
 * `dataframes:get` allowed to Tariff's service user alone, the admin's own token is refused by
 * CloudKitty (403), and the admin's simulation through Tariff still counts every project's points.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudUnavailable, startCloud, type Cloud } from '../cloud/cloud.js';
import { passwordLogin } from '../keystone/keystone.js';
import { HOUR, isoTime as iso, SIMULATION, TOMORROW } from './simulation.js';

const missing = cloudUnavailable({ storage: 'influxdb' });
if (missing) console.warn(`test/simulation/keystone.test.ts skipped: ${missing}`);

const HOURS = 6;
/** The first hour of usage: tomorrow's (the live rules start when applied, now). */
const BEGIN = TOMORROW;
const PERIOD = { begin: iso(BEGIN), end: iso(BEGIN + HOURS * HOUR) };

/** Live rules: two flavors priced flat, a tenant's own m1.large price, volumes by the GiB. */
function liveRules(ownPriceProject: string) {
  return {
    modules: { hashmap: { enabled: true, priority: 1 } },
    groups: ['compute', 'storage'],
    services: {
      instance: {
        fields: {
          flavor_name: {
            mappings: [
              { value: 'm1.small', cost: '0.5', group: 'compute', name: 'small' },
              { value: 'm1.large', cost: '2', group: 'compute', name: 'large' },
              { value: 'm1.large', cost: '1.5', group: 'compute', tenant_id: ownPriceProject, name: 'large-own' },
            ],
          },
        },
      },
      volume: { mappings: [{ type: 'flat', cost: '0.01', group: 'storage', name: 'gigabytes' }] },
    },
  };
}

/** A point as CloudKitty's `POST /v2/dataframes` takes it. */
interface Point {
  vol: { unit: string; qty: number };
  rating: { price: number };
  groupby: Record<string, string>;
  metadata: Record<string, string>;
}

/** Hourly usage of each project: an m1.small, an m1.large and a 20 GiB volume, priced as the live rules price them. */
function usage(projects: readonly string[], ownPriceProject: string) {
  return Array.from({ length: HOURS }, (_, hour) => {
    const begin = BEGIN + hour * HOUR;
    const instance: Point[] = projects.flatMap((project) =>
      ['m1.small', 'm1.large'].map((flavor) => ({
        vol: { unit: 'instance', qty: 1 },
        rating: { price: flavor === 'm1.small' ? 0.5 : project === ownPriceProject ? 1.5 : 2 },
        groupby: { project_id: project, id: `${project}-${flavor}` },
        metadata: { flavor_name: flavor },
      })),
    );
    const volume: Point[] = projects.map((project) => ({
      vol: { unit: 'GiB', qty: 20 },
      rating: { price: 0.2 },
      groupby: { project_id: project, id: `${project}-volume` },
      metadata: { volume_type: 'ssd' },
    }));
    return { period: { begin: iso(begin), end: iso(begin + HOUR) }, usage: { instance, volume } };
  });
}

/** One HTTP call with a token; the status, the text and, when it parses, the JSON. */
async function call(url: string, token: string, init: { method?: string; body?: unknown; accept?: string } = {}) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      'x-auth-token': token,
      accept: init.accept ?? 'application/json',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, text, body, type: response.headers.get('content-type') };
}

const simulation = (query: Record<string, string>) => `${SIMULATION}?${new URLSearchParams(query).toString()}`;

describe.skipIf(Boolean(missing))('the simulation on CloudKitty 17 in a Keystone cloud', () => {
  let cloud: Cloud;
  let admin: string;
  let member: string;
  let projects: string[];
  let ownPriceProject: string;
  let policyFile: string;

  /** CloudKitty's policy file (oslo.policy reads it again when its mtime changes): written whole, then renamed. */
  const writePolicy = (rules: Record<string, string>) => {
    writeFileSync(`${policyFile}.new`, JSON.stringify(rules));
    renameSync(`${policyFile}.new`, policyFile);
  };

  beforeAll(async () => {
    cloud = await startCloud({
      directory: mkdtempSync(join(tmpdir(), 'tariff-simulation-keystone-')),
      environment: { CLOUD_CLOUDKITTY_STORAGE: 'influxdb' },
    });
    admin = (await passwordLogin(cloud.env, 'ADMIN')).token;
    member = (await passwordLogin(cloud.env, 'MEMBER')).token;
    projects = [cloud.env.KEYSTONE_ADMIN_PROJECT_ID, cloud.env.KEYSTONE_DEMO_PROJECT_ID, cloud.env.KEYSTONE_SERVICE_PROJECT_ID];
    ownPriceProject = cloud.env.KEYSTONE_SERVICE_PROJECT_ID;
    policyFile = join(cloud.directory, 'cloudkitty', 'policy.yaml');
  }, 600_000);

  afterAll(async () => {
    await cloud?.stop({ purge: true });
  }, 120_000);

  it("stores hourly usage of three projects through CloudKitty's own POST /v2/dataframes, which the admin reads back whole and a member only its project's", async () => {
    const written = await call(`${cloud.cloudkittyUrl}/v2/dataframes`, admin, { method: 'POST', body: { dataframes: usage(projects, ownPriceProject) } });
    expect(written.status, written.text).toBe(204);
    // A member may not write (dataframes:add is role:admin).
    expect(
      (await call(`${cloud.cloudkittyUrl}/v2/dataframes`, member, { method: 'POST', body: { dataframes: usage(projects, ownPriceProject) } })).status,
    ).toBe(403);

    const query = new URLSearchParams({ ...PERIOD, limit: '1000' }).toString();
    const read = await call(`${cloud.cloudkittyUrl}/v2/dataframes?${query}`, admin);
    expect(read.status, read.text).toBe(200);
    // `total` counts points; qty and price come back as floats (1 → 1.0), times with their offset.
    expect(read.body.total).toBe(HOURS * 9);
    expect(read.text).toContain('"qty": 1.0');
    expect(read.body.dataframes.map((dataframe: { period: { begin: string } }) => dataframe.period.begin)).toContain(PERIOD.begin);
    // CloudKitty's admin_or_owner: a non-admin caller is answered its own project's points only,
    // which is why Tariff must read with a token of its own.
    const own = await call(`${cloud.cloudkittyUrl}/v2/dataframes?${query}`, member);
    expect(own.status, own.text).toBe(200);
    expect(own.body.total).toBe(HOURS * 3);
    const ownProjects = new Set(
      own.body.dataframes.flatMap((dataframe: { usage: Record<string, Point[]> }) =>
        Object.values(dataframe.usage)
          .flat()
          .map((point) => point.groupby.project_id),
      ),
    );
    expect([...ownProjects]).toEqual([cloud.env.KEYSTONE_DEMO_PROJECT_ID]);
  });

  it('applies the live price list as the admin', async () => {
    const applied = await call(`${cloud.tariffUrl}/v2/rating/price_list`, admin, { method: 'POST', body: liveRules(ownPriceProject) });
    expect(applied.status, applied.text).toBe(200);
  });

  it("refuses a member's simulation with 403 and CloudKitty's fault body", async () => {
    const refused = await call(`${cloud.tariffUrl}${simulation(PERIOD)}`, member, { method: 'POST', body: liveRules(ownPriceProject) });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: { faultcode: 'Client', faultstring: "Policy doesn't allow rating:module_config to be performed.", debuginfo: null },
    });
  });

  /** The draft: m1.large from 2 to 2.25, from the third hour on. */
  const draftQuery = () => ({ ...PERIOD, effective_at: iso(BEGIN + 2 * HOUR) });
  const draft = () => {
    const rules = liveRules(ownPriceProject);
    rules.services.instance.fields.flavor_name.mappings[1].cost = '2.25';
    return rules;
  };

  /** What the draft moves, computed from the usage: 4 hours × the two projects without their own m1.large price × 0.25. */
  function expectDraftResult(result: any) {
    expect(result.usage).toBe('cloudkitty');
    // 6 h × (3 × 0.5 + 2 + 2 + 1.5 + 3 × 0.2) = 45.6, every point stored at the live rules' price.
    expect(result.totals).toEqual({
      points: HOURS * 9,
      // 9 points repeat every hour, in two rule versions (before and from effective_at).
      distinct_points: 18,
      changed_points: 8,
      stored: '45.6',
      current: '45.6',
      draft: '47.6',
      delta: '2',
      relative_delta: expect.any(String),
    });
    const byProject = Object.fromEntries(
      result.projects.map((project: { project_id: string; points: number; delta: string }) => [project.project_id, [project.points, project.delta]]),
    );
    expect(byProject).toEqual({
      [cloud.env.KEYSTONE_ADMIN_PROJECT_ID]: [18, '1'],
      [cloud.env.KEYSTONE_DEMO_PROJECT_ID]: [18, '1'],
      [cloud.env.KEYSTONE_SERVICE_PROJECT_ID]: [18, '0'],
    });
    expect(result.rules).toEqual([{ module: 'hashmap', name: 'instance/flavor_name/m1.large', points: 8 }]);
    expect(result.reconciliation).toMatchObject({ points: 0, difference: '0', findings: [] });
  }

  it("answers an admin's simulation from CloudKitty's stored usage, every point of every project counted", async () => {
    const answered = await call(`${cloud.tariffUrl}${simulation(draftQuery())}`, admin, { method: 'POST', body: draft() });
    expect(answered.status, answered.text).toBe(200);
    expectDraftResult(answered.body);
  });

  it("reads CloudKitty with Tariff's own token: with dataframes:get allowed to Tariff's user alone, the admin's token is refused there and the simulation still counts every project", async () => {
    const query = new URLSearchParams(PERIOD).toString();
    writePolicy({ 'dataframes:get': `user_id:${cloud.env.KEYSTONE_TARIFF_USER_ID}` });
    try {
      // Both uwsgi processes read the file again at their next check (its mtime changed).
      for (let attempt = 0; attempt < 4; attempt += 1) {
        const direct = await call(`${cloud.cloudkittyUrl}/v2/dataframes?${query}`, admin);
        expect(direct.status, direct.text).toBe(403);
      }
      const logged = readFileSync(cloud.env.CLOUD_CLOUDKITTY_UWSGI_LOG, 'utf8').length;
      const answered = await call(`${cloud.tariffUrl}${simulation(draftQuery())}`, admin, { method: 'POST', body: draft() });
      expect(answered.status, answered.text).toBe(200);
      expectDraftResult(answered.body);
      // CloudKitty's access log (uwsgi's; it names no user) has Tariff's reads, all let through by
      // that policy: one page per hour window (TARIFF_SIMULATION_WINDOW 3600, PAGE_POINTS 1000).
      // (uwsgi writes a line once the answer is sent: the last one may come a moment later.)
      const tariffReads = () =>
        readFileSync(cloud.env.CLOUD_CLOUDKITTY_UWSGI_LOG, 'utf8')
          .slice(logged)
          .split('\n')
          .filter((line) => / GET \/v2\/dataframes\?\S*&offset=/.test(line));
      for (let attempt = 0; attempt < 50 && tariffReads().length < HOURS; attempt += 1) await sleep(100);
      const reads = tariffReads();
      expect(reads).toHaveLength(HOURS);
      for (const line of reads) expect(line).toMatch(/GET \/v2\/dataframes\?begin=[^ ]+&offset=0&limit=1000 => .*\(HTTP\/1\.1 200\)/);
    } finally {
      writePolicy({});
    }
  });

  it("counts only the service project's points, silently, when CloudKitty does not take Tariff's user for an admin: what an operator must grant", async () => {
    // CloudKitty's context_is_admin (role:admin by default) decides whether dataframes:get filters
    // by the token's project; narrowed here as if Tariff's user had no admin role.
    writePolicy({ context_is_admin: `role:admin and not user_id:${cloud.env.KEYSTONE_TARIFF_USER_ID}` });
    try {
      const answered = await call(`${cloud.tariffUrl}${simulation(draftQuery())}`, admin, { method: 'POST', body: draft() });
      expect(answered.status, answered.text).toBe(200);
      expect(answered.body.totals.points).toBe(HOURS * 3);
      expect(answered.body.projects.map((project: { project_id: string }) => project.project_id)).toEqual([cloud.env.KEYSTONE_SERVICE_PROJECT_ID]);
    } finally {
      writePolicy({});
    }
  });

  it('ends an NDJSON answer with an error line naming CloudKitty, and no result, when CloudKitty is down', async () => {
    await killCloudKitty(cloud);
    const answered = await call(`${cloud.tariffUrl}${simulation(draftQuery())}`, admin, { method: 'POST', body: draft(), accept: 'application/x-ndjson' });
    // The stream starts once the draft is read, before the first page of usage: a 200 whose last line is the fault.
    expect(answered.status, answered.text).toBe(200);
    expect(answered.type).toMatch(/^application\/x-ndjson/);
    const lines = answered.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toHaveProperty('progress');
    expect(lines.some((line) => 'result' in line)).toBe(false);
    const last = lines.at(-1);
    expect(last.error).toMatchObject({ faultcode: 'Server', status: 502 });
    expect(last.error.faultstring).toMatch(/^Reading stored usage from CloudKitty failed: http:\/\/127\.0\.0\.1:\d+ is unreachable/);
    // As JSON, the same failure is a 502 fault.
    const json = await call(`${cloud.tariffUrl}${simulation(draftQuery())}`, admin, { method: 'POST', body: draft() });
    expect(json.status, json.text).toBe(502);
    expect(json.body).toMatchObject({ faultcode: 'Server', faultstring: expect.stringMatching(/^Reading stored usage from CloudKitty failed/) });
  });
});

/** Kills CloudKitty's uwsgi (master and workers, SIGKILL: a crash) and waits until its port refuses connections. */
async function killCloudKitty(cloud: Cloud): Promise<void> {
  const master = Number(readFileSync(cloud.env.CK_PID_FILE, 'utf8').trim());
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(master)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // no children (pgrep exits 1)
  }
  for (const pid of [master, ...children]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      await fetch(`${cloud.cloudkittyUrl}/`, { signal: AbortSignal.timeout(1000) });
    } catch {
      return;
    }
    await sleep(100);
  }
  throw new Error(`CloudKitty (pid ${master}) still answers after SIGKILL`);
}
