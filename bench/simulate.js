#!/usr/bin/env node
// Simulation bench (docs/price-list.md §4): a draft price list priced on 1,000,000 stored points,
// with the current rules and the draft's, by the compiled engine (dist/rating/simulation/engine.js),
// side by side with CloudKitty's own hashmap engine pricing the same points (the engine bench's
// harness, bench/cloudkitty_engine.py), in one run.
//
//   npm run build && node bench/simulate.js                 # 1,000,000 points, both usages
//   node bench/simulate.js --points 200000 --ck-points 20000 # see --help
//
// Two usages, each streamed dataframe by dataframe (an hour of every resource), never held whole:
// - "repeated": hourly points of steady resources (1,400 of them, over 200 projects), as a cloud's
//   month looks: each resource's point repeats every hour;
// - "distinct": every point differs (its quantity), the worst case of the memo.
// Fetching is measured apart: the dataframes are made a chunk at a time, untimed, and only their
// pricing is timed (CloudKitty's API or a usage file would make them). Prints points/s of
// pricing for each usage, the peak RSS above the RSS before the first simulation, and the ratio
// to CloudKitty's hashmap engine, which prices each point once per side (a reprocessing does).
// Targets (issue 27): ≥ 1,000,000 points/s repeated, ≥ 200,000 points/s distinct, peak ≤ 300 MB.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Decimal } from 'decimal.js';

// The server's own V8 flags (bin/tariff.js), so that the engine runs as it does in `tariff serve`.
const SERVE_NODE_OPTIONS = ['--max-semi-space-size=64', '--expose-gc'];
if (!process.execArgv.some((option) => option.startsWith('--max-semi-space-size'))) {
  const child = spawn(process.execPath, [...SERVE_NODE_OPTIONS, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  child.on('exit', (code) => process.exit(code ?? 1));
  await new Promise(() => {});
}

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const DIST = join(dirname(BENCH_DIR), 'dist');
const HOUR = 3_600_000;
const RESOURCES = 1400;
const PROJECTS = 200;
const FLAVORS = Array.from({ length: 20 }, (_, index) => `flavor-${String(index).padStart(2, '0')}`);
const VOLUME_TYPES = ['ssd', 'hdd', 'nvme', 'archive'];
const TARGETS = { repeated: 1_000_000, distinct: 200_000, peakMegabytes: 300 };

const { values } = parseArgs({
  options: {
    points: { type: 'string', default: '1000000' },
    'ck-points': { type: 'string', default: '50000' },
    python: { type: 'string', default: '/usr/bin/python3' },
    'no-cloudkitty': { type: 'boolean', default: false },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(`Usage: node bench/simulate.js [options]   (build first: npm run build)

  --points N        stored points per usage (default 1000000)
  --ck-points N     points CloudKitty's engine prices, for its points/s (default 50000)
  --python PATH     Python with python3-cloudkitty (default /usr/bin/python3)
  --no-cloudkitty   skip CloudKitty's engine
  --only KIND       run one usage: repeated or distinct (for a profile)
  -h, --help`);
  process.exit(0);
}
const POINTS = Number(values.points);
const CK_POINTS = Number(values['ck-points']);
const load = (path) => import(pathToFileURL(join(DIST, path)).href);

/** The live price list: a flat per flavor, a flat per GB per volume type, a tenant's discount, a threshold. */
function priceList(changed) {
  const flavorCost = (index) => (changed && index < 2 ? `${index + 1}.25` : `${index + 1}.1`);
  return {
    modules: { hashmap: { enabled: true, priority: 1 } },
    groups: ['compute', 'storage', 'discounts'],
    services: {
      instance: {
        fields: {
          flavor_name: {
            mappings: [
              ...FLAVORS.map((value, index) => ({ value, cost: flavorCost(index), group: 'compute' })),
              ...(changed ? [{ value: FLAVORS[3], cost: '3.5', group: 'compute', tenant_id: 'project-007' }] : []),
            ],
          },
        },
      },
      volume: {
        fields: { volume_type: { mappings: VOLUME_TYPES.map((value, index) => ({ value, cost: `0.00${index + 1}`, group: 'storage' })) } },
        thresholds: [{ level: '500', type: 'rate', cost: '0.95', group: 'discounts' }],
      },
    },
  };
}

/** Resource `index`: its project, service, metadata, quantity and the live rules' cost per unit. */
function resource(index) {
  const project = `project-${String(index % PROJECTS).padStart(3, '0')}`;
  if (index % 3 === 2) {
    return {
      project,
      service: 'volume',
      id: `volume-${index}`,
      metadata: { volume_type: VOLUME_TYPES[index % 4] },
      qty: String(10 + (index % 900)),
      cost: `0.00${(index % 4) + 1}`,
    };
  }
  return {
    project,
    service: 'instance',
    id: `instance-${index}`,
    metadata: { flavor_name: FLAVORS[index % 20], availability_zone: 'nova' },
    qty: '1',
    cost: `${(index % 20) + 1}.1`,
  };
}

/** qty × cost, exactly, as CloudKitty stored it (the live rules' price: stored prices reconcile). */
function storedPrice(qty, cost) {
  return new Decimal(qty).times(cost).toString();
}

/** The stored prices of the repeated usage's resources, by index. */
const storedPrices = [];

/** The usage's dataframes, an hour each, made as they are read (new objects each hour, as a fetch makes them). */
function* dataframes(kind, begin) {
  for (let made = 0, hour = 0; made < POINTS; hour += 1) {
    const usage = new Map([
      ['instance', []],
      ['volume', []],
    ]);
    for (let index = 0; index < RESOURCES && made < POINTS; index += 1, made += 1) {
      const { project, service, id, metadata, qty, cost } = resource(index);
      const quantity = kind === 'distinct' ? `${qty}.${made}` : qty;
      usage.get(service).push({
        unit: service === 'volume' ? 'GiB' : 'instance',
        qty: quantity,
        price: kind === 'distinct' ? storedPrice(quantity, cost) : (storedPrices[index] ??= storedPrice(quantity, cost)),
        groupby: { project_id: project, id, user_id: 'user' },
        metadata: { ...metadata },
      });
    }
    yield { begin: new Date(begin + hour * HOUR), end: new Date(begin + (hour + 1) * HOUR), usage };
  }
}

const cpuMilliseconds = (usage) => (usage.user + usage.system) / 1000;
/** Hours made at once before they are priced: one, as a read of CloudKitty gives them. */
const CHUNK_HOURS = 1;

/** The next `hours` dataframes of a generator. */
function takeHours(generator, hours) {
  const chunk = [];
  for (let next = generator.next(); !next.done; next = generator.next()) {
    chunk.push(next.value);
    if (chunk.length === hours) break;
  }
  return chunk;
}

const megabytes = (bytes) => Math.round(bytes / 1048576);

async function main() {
  const { openDatabase } = await load('database/connection.js');
  const { migrateToLatest } = await load('database/migrate.js');
  const { ratingModules } = await load('application.js');
  const { PriceList } = await load('rating/price-list/price-list.js');
  const { ChangeJournal } = await load('database/change-journal.js');
  const { loadRatingSnapshot } = await load('rating/quote/snapshot.js');
  const { Simulation } = await load('rating/simulation/engine.js');
  const { loadConfig } = await load('config.js');
  const settings = loadConfig(process.env).simulation;

  const directory = mkdtempSync(join(tmpdir(), 'tariff-bench-simulate-'));
  const database = openDatabase(`sqlite:${join(directory, 'tariff.db')}`);
  const modules = ratingModules({});
  await migrateToLatest(database, modules.migrations());
  const list = new PriceList(database, modules, { maxAliases: 100, maxDepth: 32, maxProblems: 1000, reads: 2, bulkCollectionIntervalMs: 10_000 });
  const journal = new ChangeJournal({ userId: 'bench', projectId: null, requestId: 'bench', route: 'bench' });
  const now = new Date();
  await list.apply(JSON.stringify(priceList(false)), 'json', { dryRun: false, unversionedNow: false }, { actor: 'bench', now }, journal);
  const begin = Math.ceil(now.getTime() / HOUR) * HOUR + HOUR;
  const effectiveAt = new Date(begin + Math.floor(POINTS / RESOURCES / 2) * HOUR);
  const sides = await list.draft(
    JSON.stringify(priceList(true)),
    'json',
    effectiveAt,
    async (transaction) => (await loadRatingSnapshot(database, modules, transaction)).snapshot,
  );

  const results = {};
  // Idle: the process with its rules loaded, before the first simulation (the peaks are above it).
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  for (const kind of values.only ? [values.only] : ['repeated', 'distinct']) {
    globalThis.gc?.();
    let peak = process.memoryUsage().rss;
    const simulation = new Simulation(sides.current, sides.draft, {
      effectiveAt: effectiveAt.getTime(),
      // The defaults of `tariff serve` (TARIFF_SIMULATION_DISTINCT_POINTS, TARIFF_SIMULATION_MAX_FINDINGS).
      maxDistinctPoints: settings.maxDistinctPoints,
      maxFindings: settings.maxFindings,
      maxDecimalExponent: 100,
      caller: 'bench',
    });
    // Fetching is measured apart: a chunk of hours is made (as a read of CloudKitty or a file would
    // make them), then priced, and only the pricing is timed (wall and the process's CPU).
    let pricingMs = 0;
    let pricingCpuMs = 0;
    let count = 0;
    const made = dataframes(kind, begin);
    for (let chunk = takeHours(made, CHUNK_HOURS); chunk.length > 0; chunk = takeHours(made, CHUNK_HOURS)) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      for (const dataframe of chunk) {
        await simulation.add(dataframe);
        for (const points of dataframe.usage.values()) count += points.length;
      }
      pricingMs += performance.now() - started;
      pricingCpuMs += cpuMilliseconds(process.cpuUsage(cpuStarted));
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const result = await simulation.result(10);
    pricingMs += performance.now() - started;
    pricingCpuMs += cpuMilliseconds(process.cpuUsage(cpuStarted));
    peak = Math.max(peak, process.memoryUsage().rss);
    results[kind] = {
      points: count,
      distinct: result.totals.distinct_points,
      pricingPointsPerSecond: Math.round((count / pricingMs) * 1000),
      // Per second of the process's CPU (all its threads): what a busy host does not bend as much.
      pricingPointsPerCpuSecond: Math.round((count / pricingCpuMs) * 1000),
      peakAboveMegabytes: megabytes(peak - rssBefore),
      delta: result.totals.delta,
      reconciled: result.reconciliation.points,
    };
    console.log(
      `${kind.padEnd(9)} ${count} points, ${result.totals.distinct_points} distinct: pricing ${results[kind].pricingPointsPerSecond.toLocaleString('en')} points/s ` +
        `(${results[kind].pricingPointsPerCpuSecond.toLocaleString('en')} per CPU second), peak RSS +${results[kind].peakAboveMegabytes} MB, delta ${result.totals.delta}, stored ≠ current: ${result.reconciliation.points}`,
    );
  }
  await database.close();

  let cloudKitty;
  if (!values['no-cloudkitty']) cloudKitty = await cloudKittyRate(directory, begin);
  rmSync(directory, { recursive: true, force: true });
  if (cloudKitty) {
    // A reprocessing with CloudKitty prices every point once per side.
    const perSide = cloudKitty.pointsPerSecond / 2;
    console.log(
      `CloudKitty 17 hashmap: ${Math.round(cloudKitty.pointsPerSecond).toLocaleString('en')} points/s priced (${CK_POINTS} points), ${Math.round(perSide).toLocaleString('en')} points/s on two sides`,
    );
    for (const kind of ['repeated', 'distinct'])
      console.log(`ratio ${kind}: Tariff / CloudKitty = ${(results[kind].pricingPointsPerSecond / perSide).toFixed(1)}×`);
  }
  if (values.only) return;
  const pass = results.repeated.pricingPointsPerSecond >= TARGETS.repeated && results.distinct.pricingPointsPerSecond >= TARGETS.distinct;
  const memory = Math.max(results.repeated.peakAboveMegabytes, results.distinct.peakAboveMegabytes) <= TARGETS.peakMegabytes;
  console.log(
    `targets: repeated ≥ ${TARGETS.repeated.toLocaleString('en')}/s, distinct ≥ ${TARGETS.distinct.toLocaleString('en')}/s: ${pass ? 'pass' : 'FAIL'}; peak ≤ ${TARGETS.peakMegabytes} MB: ${memory ? 'pass' : 'FAIL'}`,
  );
  process.exitCode = pass && memory ? 0 : 1;
}

/** CloudKitty's hashmap engine on the first `CK_POINTS` points of the repeated usage, with the live rules. */
async function cloudKittyRate(directory, begin) {
  const live = priceList(false);
  const mappings = [];
  const thresholds = [];
  let id = 0;
  for (const [service, { fields = {}, thresholds: serviceThresholds = [] }] of Object.entries(live.services)) {
    for (const [field, { mappings: list = [] }] of Object.entries(fields)) {
      for (const mapping of list)
        mappings.push({
          id: `m${id++}`,
          service,
          field,
          value: mapping.value,
          type: mapping.type ?? 'flat',
          cost: mapping.cost,
          group: mapping.group,
          tenant: mapping.tenant_id ?? null,
        });
    }
    for (const threshold of serviceThresholds)
      thresholds.push({
        id: `t${id++}`,
        service,
        field: null,
        level: threshold.level,
        type: threshold.type,
        cost: threshold.cost,
        group: threshold.group,
        tenant: null,
      });
  }
  const points = [];
  for (const dataframe of dataframes('repeated', begin)) {
    for (const [service, list] of dataframe.usage)
      for (const point of list) points.push({ service, qty: point.qty, metadata: point.metadata, groupby: point.groupby });
    if (points.length >= CK_POINTS) break;
  }
  const services = Object.entries(live.services).map(([name, service]) => ({ name, fields: Object.keys(service.fields ?? {}) }));
  const input = join(directory, 'cloudkitty.json');
  writeFileSync(
    input,
    JSON.stringify({ mode: 'bench', runs: 1, cases: [{ tenant: null, services, mappings, thresholds, points: points.slice(0, CK_POINTS) }] }),
  );
  const output = await new Promise((resolve, reject) => {
    const child = spawn(values.python, [join(BENCH_DIR, 'cloudkitty_engine.py'), input], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`cloudkitty_engine.py exited ${code}: ${stderr.slice(-1000)}`))));
  });
  const { best_s: best, points: priced } = JSON.parse(output);
  return { pointsPerSecond: priced / best };
}

await main();
