/**
 * Tariff in front of the real CloudKitty 17 API (issue 23, class 6): every forwarded route answers
 * through Tariff exactly as CloudKitty does (status, content type, body), writes are CloudKitty's,
 * the real client (python3-cloudkittyclient 4.6, v1 and v2) prints the same either way, and
 * CloudKitty killed under a mixed load costs only the forwarded calls (502 within the connect
 * timeout) until it is back, without a restart of Tariff.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopCloudkittyCli } from '../helpers/cloudkitty-cli.js';
import { startServerProcess, type ServerProcess } from '../helpers/server.js';
import { fakeInfluxDb, type FakeInfluxDb } from './upstreams.js';
import { send, seriesValue, type RawAnswer } from './http.js';
import { CLOUDKITTY_CLI, cloudKittyMissing, cloudkittyCli, startCloudKitty17, type CloudKitty17 } from './cloudkitty17.js';

const missing = cloudKittyMissing();
if (missing) console.warn(`test/forward/cloudkitty.test.ts skipped: ${missing}`);

/** Many CLI runs (one Python process runs them: test/helpers/cloudkitty-cli.ts); a CloudKitty start about 20 s. */
const SLOW = 120_000;

describe.skipIf(missing !== undefined)('Tariff in front of the real CloudKitty 17', () => {
  let directory: string;
  let influx: FakeInfluxDb;
  let cloudKitty: CloudKitty17;
  let tariff: ServerProcess;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tariff-forward-ck17-'));
    influx = await fakeInfluxDb();
    cloudKitty = await startCloudKitty17(influx.port);
    tariff = await startServerProcess(`sqlite:${join(directory, 'tariff.db')}`, {
      TARIFF_CLOUDKITTY_API_URL: cloudKitty.url,
      TARIFF_CLOUDKITTY_CONNECT_TIMEOUT: '2',
    });
  }, 300_000);

  afterAll(async () => {
    await stopCloudkittyCli();
    await tariff?.stop();
    await cloudKitty?.stop();
    await influx?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  }, 120_000);

  /** The same request to CloudKitty directly and through Tariff. */
  async function both(method: string, path: string, body?: string): Promise<{ direct: RawAnswer; forwarded: RawAnswer }> {
    const options = { headers: { 'Content-Type': 'application/json', 'X-Roles': 'admin' }, body };
    const direct = await send(cloudKitty.url, method, path, options);
    const forwarded = await send(tariff.url, method, path, options);
    return { direct, forwarded };
  }

  it(
    'answers every forwarded route as CloudKitty does: status, content type, body',
    async () => {
      const paths = [
        '/v1/info/config',
        '/v1/info/config/',
        '/v1/info/metrics',
        '/v1/info/metrics/',
        '/v1/info/metrics/instance',
        '/v1/info/metrics/no_such_metric',
        '/v1/info/services',
        '/v1/report/summary',
        '/v1/report/summary?groupby=tenant_id&begin=2026-01-01T00:00:00&end=2026-02-01T00:00:00',
        '/v1/report/total',
        '/v1/report/total?tenant_id=abc&service=instance',
        '/v1/report/tenants',
        '/v1/storage/dataframes',
        '/v1/collector/mappings',
        '/v1/collector/mappings/no_such_service',
        '/v1/collector',
        '/v2/summary',
        '/v2/summary?groupby=type&response_format=object',
        '/v2/summary?begin=not-a-date',
        '/v2/dataframes',
        '/v2/scope',
        '/v2/task/reprocesses',
        // CloudKitty's own refusals under its resources pass as they are.
        '/v1/info',
        '/v1/report/nothing',
        '/v2/summary/nothing',
      ];
      const compared: string[] = [];
      for (const path of paths) {
        const { direct, forwarded } = await both('GET', path);
        expect(forwarded.status, path).toBe(direct.status);
        expect(forwarded.headers['content-type'], path).toBe(direct.headers['content-type']);
        expect(forwarded.text, path).toBe(direct.text);
        compared.push(`${direct.status} ${path}`);
      }
      // Not vacuous: CloudKitty answers most of them with content, some with its refusals.
      expect(compared.filter((line) => line.startsWith('200 ')).length).toBeGreaterThan(15);
      expect(compared.filter((line) => /^4\d\d /.test(line)).length).toBeGreaterThanOrEqual(3);
    },
    SLOW,
  );

  it(
    "forwards writes, which land in CloudKitty's database: collector mappings and states, a dataframe upload",
    async () => {
      const created = await send(tariff.url, 'POST', '/v1/collector/mappings/', {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ collector: 'gnocchi', service: 'compute' }),
      });
      expect([created.status, JSON.parse(created.text)]).toEqual([200, { service: 'compute', collector: 'gnocchi' }]);
      const stored = await send(cloudKitty.url, 'GET', '/v1/collector/mappings/compute');
      expect([stored.status, JSON.parse(stored.text)]).toEqual([200, { service: 'compute', collector: 'gnocchi' }]);

      // tempest's way: the collector's name in the body of a GET and a PUT.
      const enabled = await send(tariff.url, 'PUT', '/v1/collector/states/', {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'gnocchi', enabled: true }),
      });
      expect([enabled.status, JSON.parse(enabled.text)]).toEqual([200, { name: 'gnocchi', enabled: true }]);
      const state = await both('GET', '/v1/collector/states/', JSON.stringify({ name: 'gnocchi' }));
      expect([state.forwarded.status, JSON.parse(state.forwarded.text)]).toEqual([200, { name: 'gnocchi', enabled: true }]);
      expect(state.forwarded.text).toBe(state.direct.text);

      const removed = await send(tariff.url, 'DELETE', '/v1/collector/mappings', {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ service: 'compute' }),
      });
      expect(removed.status).toBe(204);
      expect((await send(cloudKitty.url, 'GET', '/v1/collector/mappings/compute')).status).toBe(404);

      const dataframe = {
        period: { begin: '2026-11-01T00:00:00+00:00', end: '2026-11-01T01:00:00+00:00' },
        usage: {
          instance: [
            { vol: { unit: 'instance', qty: 1 }, rating: { price: 0.5 }, groupby: { project_id: 'p1', id: 'vm-1' }, metadata: { flavor_name: 'm1.tiny' } },
          ],
        },
      };
      const writes = influx.writes.length;
      const upload = await send(tariff.url, 'POST', '/v2/dataframes', {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ dataframes: [dataframe] }),
      });
      expect(upload.status, upload.text).toBe(204);
      expect(influx.writes.length).toBe(writes + 1);
      expect(influx.writes[writes]).toContain('vm-1');
    },
    SLOW,
  );

  it(
    'the cloudkitty client prints the same through Tariff as from CloudKitty directly (v1 and v2)',
    async () => {
      const home = mkdtempSync(join(directory, 'home-'));
      const dataframes = join(home, 'dataframes.json');
      writeFileSync(
        dataframes,
        JSON.stringify({
          dataframes: [
            {
              period: { begin: '2026-11-02T00:00:00+00:00', end: '2026-11-02T01:00:00+00:00' },
              usage: { instance: [{ vol: { unit: 'instance', qty: 2 }, rating: { price: 1 }, groupby: { project_id: 'p2' }, metadata: {} }] },
            },
          ],
        }),
      );
      // Each command and its exit code against CloudKitty itself: v2 answers 404 "No resource
      // found" for an empty listing of dataframes or scopes, which the client prints as an error,
      // and CloudKitty 17 answers the 4.6 client's reprocessing listing with a 500.
      const commands: [string[], number][] = [
        [['summary', 'get'], 0],
        [['total', 'get'], 0],
        [['report', 'tenant', 'list'], 0],
        [['info', 'config', 'get'], 0],
        [['info', 'metric', 'list'], 0],
        [['info', 'metric', 'get', 'instance'], 0],
        [['dataframes', 'get'], 0],
        [['collector-mapping', 'list'], 0],
        [['collector', 'state', 'get', 'gnocchi'], 0],
        [['--os-rating-api-version', '2', 'summary', 'get'], 0],
        [['--os-rating-api-version', '2', 'dataframes', 'get'], 1],
        [['--os-rating-api-version', '2', 'scope', 'state', 'get'], 1],
        [['--os-rating-api-version', '2', 'tasks', 'reprocessing', 'get'], 1],
        [['--os-rating-api-version', '2', 'dataframes', 'add', dataframes], 0],
      ];
      const writes = influx.writes.length;
      for (const [command, code] of commands) {
        const direct = await cloudkittyCli(cloudKitty.url, home, ...command);
        const forwarded = await cloudkittyCli(tariff.url, home, ...command);
        const shown = `cloudkitty ${command.join(' ')}\n${direct.stderr}\n${forwarded.stderr}`;
        // Exit codes are Debian's client's; another client build is held to CloudKitty's own answer.
        if (CLOUDKITTY_CLI === '/usr/bin/cloudkitty') expect(direct.code, shown).toBe(code);
        expect(forwarded.code, shown).toBe(direct.code);
        expect(forwarded.stdout, shown).toBe(direct.stdout);
        expect(forwarded.stderr, shown).toBe(direct.stderr);
      }
      // `dataframes add` wrote once directly and once through Tariff.
      expect(influx.writes.length).toBe(writes + 2);
    },
    SLOW * 3,
  );

  it(
    "CloudKitty killed under a mixed load: forwarded calls 502 within the connect timeout, quotes and configuration keep answering; back, it is forwarded again without Tariff's restart",
    async () => {
      const quote = JSON.stringify({ resources: [{ service: 'compute', volume: '1', desc: { flavor: 'm1.tiny' } }] });
      type Sample = { kind: 'quote' | 'configuration' | 'summary'; status: number; milliseconds: number; at: number };
      const samples: Sample[] = [];
      let running = true;
      const worker = async (kind: Sample['kind']) => {
        while (running) {
          const answer =
            kind === 'quote'
              ? await send(tariff.url, 'POST', '/v1/rating/quote', { headers: { 'Content-Type': 'application/json' }, body: quote })
              : await send(tariff.url, 'GET', kind === 'summary' ? '/v1/report/summary' : '/v1/rating/module_config/hashmap/services');
          samples.push({ kind, status: answer.status, milliseconds: answer.milliseconds, at: Date.now() });
        }
      };
      const workers = [worker('quote'), worker('quote'), worker('configuration'), worker('summary'), worker('summary')];
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const killedAt = Date.now();
      await cloudKitty.kill();
      await new Promise((resolve) => setTimeout(resolve, 4000));
      running = false;
      await Promise.all(workers);

      const before = samples.filter((sample) => sample.at < killedAt);
      const after = samples.filter((sample) => sample.at > killedAt + 500);
      const own = (list: Sample[]) => list.filter((sample) => sample.kind !== 'summary');
      const median = (list: Sample[]) => list.map((sample) => sample.milliseconds).sort((a, b) => a - b)[Math.floor(list.length / 2)];
      console.log(
        `CloudKitty killed: before ${before.length} calls (own p50 ${median(own(before))} ms), after ${after.length} calls (own p50 ${median(own(after))} ms, ` +
          `summaries ${after.filter((sample) => sample.kind === 'summary').map((sample) => sample.status)[0]} in p50 ${median(after.filter((sample) => sample.kind === 'summary'))} ms)`,
      );
      expect(before.filter((sample) => sample.kind === 'summary').every((sample) => sample.status === 200)).toBe(true);
      expect(own(samples).every((sample) => sample.status === 200)).toBe(true);
      const summariesAfter = after.filter((sample) => sample.kind === 'summary');
      expect(summariesAfter.length).toBeGreaterThan(5);
      for (const sample of summariesAfter) {
        expect(sample.status).toBe(502);
        expect(sample.milliseconds).toBeLessThan(2000);
      }
      // Tariff's own calls keep their pace: no wait behind the dead upstream.
      expect(own(after).length).toBeGreaterThan(10);
      expect(median(own(after))).toBeLessThan(Math.max(3 * median(own(before)), median(own(before)) + 50));
      expect(Math.max(...own(after).map((sample) => sample.milliseconds))).toBeLessThan(2000);
      const metrics = (await send(tariff.url, 'GET', '/metrics')).text;
      expect(seriesValue(metrics, 'tariff_forward_errors_total{kind="unreachable"}')).toBeGreaterThanOrEqual(summariesAfter.length);

      await cloudKitty.start();
      const back = await both('GET', '/v1/report/summary');
      expect(back.forwarded.status).toBe(200);
      expect(back.forwarded.text).toBe(back.direct.text);
    },
    SLOW,
  );
});
