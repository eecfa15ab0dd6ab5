/**
 * Stored usage for the simulation tests (issue 27): a month of hourly usage of 50 projects,
 * written into the real CloudKitty 17 through its own `POST /v2/dataframes`, priced as
 * CloudKitty's processor would have priced it (Tariff's v2 quote on the same rules), and the
 * same usage as a JSON Lines file; plus the expected results of a draft, computed here with exact
 * integer arithmetic (exact.ts), independently of Tariff.
 *
 * What CloudKitty 17 (Debian 17.0.0) does, measured on this machine (2 cores):
 *
 * - **No v2 API on the v1 storage.** With `[storage] version = 1` (the SQL storage, table
 *   `rated_data_frames`) CloudKitty 17 drops its whole `/v2` (api/app.py: "v1 storage is used,
 *   disabling v2 API"): `GET` and `POST /v2/dataframes` answer 404 `text/html`. The v1 storage is
 *   only readable through `GET /v1/storage/dataframes`, and writable by CloudKitty's processor
 *   alone. (Its `V1StorageAdapter`, which the v2 routes would use, ignores `offset` and `limit`,
 *   answers one dataframe per stored row, `total` their count, the price a SQL `Float`, `qty`
 *   `Numeric(15, 5)`, and stores a v2 push with `tenant_id` NULL and its period from
 *   `[collect] period`, not the pushed `end`: moot, as no v2 route reaches it.) So Tariff's simulation can read stored usage only from a CloudKitty on a v2 storage;
 *   these tests use its default one, InfluxDB 1.x (Debian's `influxdb` 1.6.7, influxdb.ts),
 *   `[storage] version = 2, backend = influxdb` (startCloudKitty's `influxDb` option).
 * - **Writes** (`POST /v2/dataframes`, body `{"dataframes": [{period, usage}]}` → 204, empty
 *   body): a point's `qty` and `price` are stored as InfluxDB floats (doubles), `groupby` as tags,
 *   `metadata` as string fields (every value coerced to text: `2` → `"2"`), the period's `begin` as
 *   the point's time and its length as a field. A point with the same metric type, groupby and
 *   time as a stored one replaces it (InfluxDB's series key and time): so the groupby must tell
 *   resources apart (here `project_id` and `id`), and altering a stored price is writing the point
 *   again ({@link alterStoredPrices}). Speed: see {@link writeUsage}; the numbers measured are in
 *   test/simulation/cloudkitty.test.ts's header. **Concurrent writes lose points**: the storage's
 *   `InfluxClient` keeps one buffer of points per process (`self._points`), appended to by every
 *   request thread and emptied after each `write_points`, so a point appended by one request while
 *   another flushes is dropped; measured: 240 hours (53,761 points) written 4 requests at a time
 *   into one uWSGI process of 4 threads stored 53,305; with two processes, 2 at a time, a month
 *   stored 168,274 of 168,850 (uWSGI may give both requests to one process). Written one request
 *   at a time, every point is stored: the only honest way through its API.
 * - **Reads** (`GET /v2/dataframes?begin&end&offset&limit`): the points with `begin ≤ time < end`
 *   (InfluxQL `time >= begin AND time < end`, the bounds read with their offset, or as UTC
 *   without one). `offset` and `limit` (default 100) count **points**, not dataframes, and are
 *   honoured (`LIMIT … OFFSET …`); `total` is the number of points in the whole window
 *   (`COUNT(groupby)`), whatever the page. The page's points are grouped into dataframes by
 *   (time, period), so a dataframe cut by a page boundary comes back as two dataframes with the
 *   same period, one on each page. An empty window (or a page past the end with `total` 0)
 *   answers **404** `{"message": "No resource found for provided filters."}`, not an empty list
 *   (a page past the end of a non-empty window answers 200 with `total` > 0 and no dataframe).
 *   Times are written as Python's `isoformat()` in CloudKitty's process time zone (`TZ`; UTC
 *   here: `2026-09-01T00:00:00+00:00`; with `TZ=Europe/Paris` the same point is
 *   `2026-10-01T02:00:00+02:00`), and bounds without an offset are read as UTC. `qty` and `price` come back as JSON numbers, Python's
 *   `repr` of the stored double: `1` → `1.0`, `250` → `250.0`, `0.05` → `0.05`, and a price of
 *   more than 17 significant digits rounded (`0.123456789012345678` → `0.12345678901234568`).
 *   `groupby` and `metadata` are text. Points of one time do not come back in the order written
 *   (InfluxDB's order; stable from one page to the next here: paging a window by 100 gave every
 *   point once).
 *
 * The rules (`LIVE`) are hashmap rules with exact short costs, so that every price is a decimal of
 * few digits that a double keeps exactly: the stored prices read back equal the rules' prices.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { createPostgresDatabase, type ScratchDatabase } from '../helpers/databases.js';
import { callServer, type ServerProcess } from '../helpers/server.js';
import type { CloudKitty } from '../adoption/cloudkitty.js';
import { Exact, sum } from './exact.js';

const HASHMAP = '/v1/rating/module_config/hashmap';

/** The month of usage: September 2026, 720 hourly periods (CloudKitty's default `[collect] period`). */
export const MONTH = { begin: '2026-09-01T00:00:00+00:00', end: '2026-10-01T00:00:00+00:00' };
export const HOURS = 720;
const HOUR_MS = 3_600_000;
/** When the draft takes over: mid-month. */
export const EFFECTIVE_AT = '2026-09-16T00:00:00+00:00';
/** When the live rules started (before the month; created with `?force=true`). */
export const RULES_START = '2026-08-01T00:00:00+00:00';

export const PROJECT_COUNT = 50;
export const projectId = (index: number): string => `project-${String(index).padStart(2, '0')}`;
export const PROJECTS = Array.from({ length: PROJECT_COUNT }, (_, index) => projectId(index));

export const FLAVORS = ['m1.tiny', 'm1.small', 'm1.medium', 'm1.large', 'm1.xlarge'] as const;

/** The live rules, as the data the independent computation reads (and the hashmap API is given). */
export const LIVE = {
  /** `instance` / `flavor_name` flat mappings, default group: the price of an instance-hour. */
  flavor: { 'm1.tiny': '0.01', 'm1.small': '0.02', 'm1.medium': '0.04', 'm1.large': '0.08', 'm1.xlarge': '0.16' } as Record<string, string>,
  /** A tenant's own price for a flavor (replaces the global mapping of that value for it). */
  tenantFlavor: { [projectId(3)]: { 'm1.large': '0.06' } } as Record<string, Record<string, string>>,
  /** `volume` / `volume_type` flat mappings per GiB-hour, group `volumes`. */
  volumeType: { ssd: '0.0003', hdd: '0.0001' } as Record<string, string>,
  /** `volume` service threshold, group `volumes`: from 500 GiB, the group's amount × 0.9. */
  volumeThreshold: { level: '500', rate: '0.9' },
  /** `image.size` service mapping, flat per MiB-hour. */
  imageSize: '0.00001',
};

/**
 * The draft of test (b): two flavor prices changed, and a tenant discount (a `rate` service
 * mapping of `instance` for one project, default group: its instances' amount × 0.9), in force
 * from {@link EFFECTIVE_AT}.
 */
export const DRAFT = {
  flavor: { ...LIVE.flavor, 'm1.small': '0.025', 'm1.large': '0.07' } as Record<string, string>,
  tenantFlavor: LIVE.tenantFlavor,
  tenantInstanceRate: { [projectId(7)]: '0.9' } as Record<string, string>,
};

/** One point of usage (its price as stored, decimal text). */
export interface UsagePoint {
  unit: string;
  qty: string;
  price: string;
  groupby: { project_id: string; id: string };
  metadata: Record<string, string>;
}

/** One hourly dataframe: its begin (epoch ms) and its points by metric type. */
export interface UsageFrame {
  begin: number;
  usage: Record<string, UsagePoint[]>;
}

const iso = (time: number) => new Date(time).toISOString().replace('.000Z', '+00:00');

/**
 * The month's usage, without prices (`0`): per project, three instances (the third only part of
 * the month), one volume (resized mid-month, some across the 500 GiB threshold), one image.
 */
export function generateUsage(): UsageFrame[] {
  const begin = Date.parse(MONTH.begin);
  const frames: UsageFrame[] = [];
  for (let hour = 0; hour < HOURS; hour += 1) {
    const instance: UsagePoint[] = [];
    const volume: UsagePoint[] = [];
    const image: UsagePoint[] = [];
    for (let index = 0; index < PROJECT_COUNT; index += 1) {
      const project_id = projectId(index);
      const vm = (n: number, flavor: string) =>
        instance.push({
          unit: 'instance',
          qty: '1',
          price: '0',
          groupby: { project_id, id: `${project_id}-vm-${n}` },
          metadata: { flavor_name: flavor, availability_zone: 'nova' },
        });
      vm(0, FLAVORS[index % 5]);
      vm(1, FLAVORS[(index + 1) % 5]);
      if (hour >= (index * 7) % 300 && hour < HOURS - ((index * 11) % 200)) vm(2, FLAVORS[(index + 3) % 5]);
      const size = 100 + 20 * index;
      volume.push({
        unit: 'GiB',
        qty: String(hour >= 240 + index ? Math.round(size * 1.5) : size),
        price: '0',
        groupby: { project_id, id: `${project_id}-volume-0` },
        metadata: { volume_type: index % 2 === 0 ? 'ssd' : 'hdd' },
      });
      image.push({
        unit: 'MiB',
        qty: String(1024 + 256 * (index % 8)),
        price: '0',
        groupby: { project_id, id: `${project_id}-image-0` },
        metadata: { disk_format: 'qcow2' },
      });
    }
    frames.push({ begin: begin + hour * HOUR_MS, usage: { 'image.size': image, instance, volume } });
  }
  return frames;
}

/** Every point of `frames` with its frame's begin and metric type. */
export function* pointsOf(frames: readonly UsageFrame[]): Generator<{ begin: number; service: string; point: UsagePoint }> {
  for (const frame of frames)
    for (const [service, points] of Object.entries(frame.usage)) for (const point of points) yield { begin: frame.begin, service, point };
}

export function countPoints(frames: readonly UsageFrame[]): number {
  let count = 0;
  for (const frame of frames) for (const points of Object.values(frame.usage)) count += points.length;
  return count;
}

/**
 * A point's price under the live rules (`draft` false) or the draft's (true), computed here from
 * rating.md §5 on exact decimals: instance `cost(flavor) × qty` (the tenant's own flavor price
 * replacing the global one; × the tenant's rate on the draft side); volume `cost(type) × qty`,
 * × 0.9 from 500 GiB; image.size `0.00001 × qty`.
 */
export function rulePrice(service: string, point: UsagePoint, draft: boolean): Exact {
  const tenant = point.groupby.project_id;
  if (service === 'instance') {
    const flavor = point.metadata.flavor_name;
    const cost = LIVE.tenantFlavor[tenant]?.[flavor] ?? (draft ? DRAFT.flavor : LIVE.flavor)[flavor];
    if (cost === undefined) return Exact.ZERO;
    const amount = Exact.of(cost).times(point.qty);
    const rate = draft ? DRAFT.tenantInstanceRate[tenant] : undefined;
    return rate === undefined ? amount : amount.times(rate);
  }
  if (service === 'volume') {
    const cost = LIVE.volumeType[point.metadata.volume_type];
    if (cost === undefined) return Exact.ZERO;
    const amount = Exact.of(cost).times(point.qty);
    return Exact.of(point.qty).minus(LIVE.volumeThreshold.level).units >= 0n ? amount.times(LIVE.volumeThreshold.rate) : amount;
  }
  if (service === 'image.size') return Exact.of(LIVE.imageSize).times(point.qty);
  return Exact.ZERO;
}

/** One project's (or the whole month's) expected sums. */
export interface Expected {
  points: number;
  changed_points: number;
  stored: Exact;
  current: Exact;
  draft: Exact;
  delta: Exact;
}

/**
 * The expected result of simulating `draft` (false: a draft equal to the live rules) from
 * `effectiveAt` on `frames` (their stored prices as they are): per project and in total. A point
 * before `effectiveAt` keeps the current price on both sides.
 */
export function expectedSimulation(
  frames: readonly UsageFrame[],
  options: { draft: boolean; effectiveAt: string },
): { totals: Expected; projects: Map<string, Expected> } {
  const effective = Date.parse(options.effectiveAt);
  const empty = (): Expected => ({ points: 0, changed_points: 0, stored: Exact.ZERO, current: Exact.ZERO, draft: Exact.ZERO, delta: Exact.ZERO });
  const totals = empty();
  const projects = new Map<string, Expected>();
  for (const { begin, service, point } of pointsOf(frames)) {
    const current = rulePrice(service, point, false);
    const draft = options.draft && begin >= effective ? rulePrice(service, point, true) : current;
    const project = projects.get(point.groupby.project_id) ?? empty();
    projects.set(point.groupby.project_id, project);
    for (const sums of [totals, project]) {
      sums.points += 1;
      if (!draft.equals(current)) sums.changed_points += 1;
      sums.stored = sums.stored.plus(point.price);
      sums.current = sums.current.plus(current);
      sums.draft = sums.draft.plus(draft);
      sums.delta = sums.delta.plus(draft.minus(current));
    }
  }
  return { totals, projects };
}

/** Sends one JSON request to a Tariff server; throws unless it answers 2xx. */
async function tariff(server: ServerProcess, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await callServer(server, method, path, body, { timeoutMs: 120_000 });
  if (answer.status >= 300) throw new Error(`Tariff ${method} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * Writes {@link LIVE} into a Tariff through CloudKitty's hashmap API (what an operator's scripts
 * do), every mapping starting at {@link RULES_START} (`?force=true`: a start in the past).
 */
export async function createLiveRules(server: ServerProcess): Promise<void> {
  await tariff(server, 'PUT', '/v1/rating/modules/hashmap', { module_id: 'hashmap', enabled: true, priority: 1 });
  const service = async (name: string) => (await tariff(server, 'POST', `${HASHMAP}/services`, { name })).service_id as string;
  const field = async (service_id: string, name: string) => (await tariff(server, 'POST', `${HASHMAP}/fields`, { service_id, name })).field_id as string;
  const mapping = (body: Record<string, unknown>) => tariff(server, 'POST', `${HASHMAP}/mappings?force=true`, { type: 'flat', start: RULES_START, ...body });
  const instance = await service('instance');
  const flavor = await field(instance, 'flavor_name');
  for (const [value, cost] of Object.entries(LIVE.flavor)) await mapping({ field_id: flavor, value, cost });
  for (const [tenant_id, prices] of Object.entries(LIVE.tenantFlavor))
    for (const [value, cost] of Object.entries(prices)) await mapping({ field_id: flavor, value, cost, tenant_id });
  const volume = await service('volume');
  const volumeType = await field(volume, 'volume_type');
  const group_id = (await tariff(server, 'POST', `${HASHMAP}/groups`, { name: 'volumes' })).group_id as string;
  for (const [value, cost] of Object.entries(LIVE.volumeType)) await mapping({ field_id: volumeType, value, cost, group_id });
  await tariff(server, 'POST', `${HASHMAP}/thresholds`, {
    service_id: volume,
    level: LIVE.volumeThreshold.level,
    cost: LIVE.volumeThreshold.rate,
    type: 'rate',
    group_id,
  });
  const image = await service('image.size');
  await mapping({ service_id: image, cost: LIVE.imageSize });
}

/**
 * Fills every point's `price` as CloudKitty's processor would have stored it: Tariff's v2 quote
 * on the live rules, for the point's tenant. The live rules have one version over the whole month
 * (they start before it, nothing ends in it), so each distinct (tenant, service, qty, metadata) is
 * quoted once, at the month's begin: one quote per tenant, not one per point. Each quoted price is
 * checked against {@link rulePrice} (throws on a difference: the independent computation would
 * then be wrong about the live rules).
 */
export async function priceUsage(server: ServerProcess, frames: UsageFrame[]): Promise<void> {
  const keyOf = (service: string, point: UsagePoint) => JSON.stringify([service, point.qty, point.unit, point.metadata]);
  const byTenant = new Map<string, Map<string, { service: string; point: UsagePoint }>>();
  for (const { service, point } of pointsOf(frames)) {
    const distinct = byTenant.get(point.groupby.project_id) ?? new Map();
    byTenant.set(point.groupby.project_id, distinct);
    const key = keyOf(service, point);
    if (!distinct.has(key)) distinct.set(key, { service, point });
  }
  const prices = new Map<string, string>();
  for (const [tenant, distinct] of byTenant) {
    const entries = [...distinct.entries()];
    const usage: Record<string, unknown[]> = {};
    for (const [, { service, point }] of entries)
      (usage[service] ??= []).push({ vol: { unit: point.unit, qty: point.qty }, groupby: { project_id: tenant }, metadata: point.metadata });
    const answer = await tariff(server, 'POST', '/v2/rating/quote', { usage, tenant_id: tenant, at: MONTH.begin });
    const cursor: Record<string, number> = {};
    for (const [key, { service, point }] of entries) {
      const index = (cursor[service] = (cursor[service] ?? -1) + 1);
      const price = String(answer.usage[service][index].rating.price);
      const expected = rulePrice(service, point, false);
      if (!expected.equals(price)) throw new Error(`Tariff quoted ${price} for ${key} of ${tenant}, the rules say ${expected.toString()}`);
      prices.set(`${tenant}\u0000${key}`, price);
    }
  }
  for (const { service, point } of pointsOf(frames)) point.price = prices.get(`${point.groupby.project_id}\u0000${keyOf(service, point)}`)!;
}

/** A dataframe as `POST /v2/dataframes` takes it (decimal text for qty and price). */
function dataframeBody(frame: UsageFrame): unknown {
  const usage: Record<string, unknown[]> = {};
  for (const [service, points] of Object.entries(frame.usage))
    usage[service] = points.map((point) => ({
      vol: { unit: point.unit, qty: point.qty },
      rating: { price: point.price },
      groupby: point.groupby,
      metadata: point.metadata,
    }));
  return { period: { begin: iso(frame.begin), end: iso(frame.begin + HOUR_MS) }, usage };
}

/** What {@link writeUsage} measured. */
export interface WriteMeasure {
  points: number;
  requests: number;
  milliseconds: number;
  pointsPerSecond: number;
}

/**
 * Writes `frames` into CloudKitty with `POST /v2/dataframes`, `framesPerRequest` dataframes per
 * request, `parallel` requests at a time (default 1; more loses points in CloudKitty 17's
 * InfluxDB storage, see the header: only for measuring).
 */
export async function writeUsage(
  ck: CloudKitty,
  frames: readonly UsageFrame[],
  options: { framesPerRequest?: number; parallel?: number } = {},
): Promise<WriteMeasure> {
  const perRequest = options.framesPerRequest ?? 24;
  const batches: UsageFrame[][] = [];
  for (let start = 0; start < frames.length; start += perRequest) batches.push(frames.slice(start, start + perRequest));
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      await ck.call('POST', '/v2/dataframes', { dataframes: batch.map(dataframeBody) });
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 1 }, worker));
  const milliseconds = Date.now() - started;
  const points = countPoints(frames);
  return { points, requests: batches.length, milliseconds, pointsPerSecond: Math.round((points / milliseconds) * 1000) };
}

/** One altered point: where it is, and its price before and after. */
export interface AlteredPoint {
  project_id: string;
  service: string;
  begin: string;
  end: string;
  qty: string;
  before: string;
  after: string;
}

/**
 * Alters the stored price of `project`'s points of `service` in the periods beginning in
 * [`from`, `to`): each becomes `price × factor`, written again through `POST /v2/dataframes`
 * (same metric type, groupby and time: InfluxDB replaces the stored point). `frames` is updated
 * the same way, so that it stays what CloudKitty stores. Returns the altered points.
 */
export async function alterStoredPrices(
  ck: CloudKitty,
  frames: UsageFrame[],
  alteration: { project: string; service: string; from: string; to: string; factor: string },
): Promise<AlteredPoint[]> {
  const from = Date.parse(alteration.from);
  const to = Date.parse(alteration.to);
  const altered: AlteredPoint[] = [];
  const bodies: unknown[] = [];
  for (const frame of frames) {
    if (frame.begin < from || frame.begin >= to) continue;
    const points = (frame.usage[alteration.service] ?? []).filter((point) => point.groupby.project_id === alteration.project);
    for (const point of points) {
      const after = Exact.of(point.price).times(alteration.factor).toString();
      altered.push({
        project_id: alteration.project,
        service: alteration.service,
        begin: iso(frame.begin),
        end: iso(frame.begin + HOUR_MS),
        qty: point.qty,
        before: point.price,
        after,
      });
      point.price = after;
    }
    if (points.length > 0) bodies.push(dataframeBody({ begin: frame.begin, usage: { [alteration.service]: points } }));
  }
  await ck.call('POST', '/v2/dataframes', { dataframes: bodies });
  return altered;
}

/** A decimal's text as Python's `repr` of its double writes it, as CloudKitty answers (`1` → `1.0`). */
function pythonFloat(text: string): string {
  const shortest = String(Number(text));
  if (/e/.test(shortest)) throw new Error(`no JSON Lines form for ${text} here`);
  return shortest.includes('.') ? shortest : `${shortest}.0`;
}

/** A dataframe as one line of `GET /v2/dataframes`' `dataframes`: numbers as CloudKitty writes them. */
export function dataframeLine(frame: UsageFrame): string {
  const usage = Object.entries(frame.usage)
    .map(
      ([service, points]) =>
        `${JSON.stringify(service)}: [${points
          .map(
            (point) =>
              `{"vol": {"unit": ${JSON.stringify(point.unit)}, "qty": ${pythonFloat(point.qty)}}, "rating": {"price": ${pythonFloat(point.price)}}, ` +
              `"groupby": ${JSON.stringify(point.groupby)}, "metadata": ${JSON.stringify(point.metadata)}}`,
          )
          .join(', ')}]`,
    )
    .join(', ');
  return `{"period": {"begin": "${iso(frame.begin)}", "end": "${iso(frame.begin + HOUR_MS)}"}, "usage": {${usage}}}`;
}

/** Writes `frames` as a JSON Lines usage file (one CloudKitty v2 dataframe per line), gzip when asked. */
export async function writeUsageFile(path: string, frames: readonly UsageFrame[], options: { gzip?: boolean } = {}): Promise<void> {
  const lines = Readable.from(
    (function* () {
      for (const frame of frames) yield `${dataframeLine(frame)}\n`;
    })(),
  );
  if (options.gzip) await pipeline(lines, createGzip(), createWriteStream(path));
  else await pipeline(lines, createWriteStream(path));
}

export { Exact, sum };

/**
 * A scratch PostgreSQL database for CloudKitty's own tables (rules, states; its usage goes to
 * InfluxDB), on the machine's server whatever the tier's database: CloudKitty needs a server
 * database (startCloudKitty), Tariff runs on its own SQLite file beside it.
 */
export function cloudKittyDatabase(): Promise<ScratchDatabase> {
  return createPostgresDatabase(`tariff_ck_${randomBytes(6).toString('hex')}`);
}
