#!/usr/bin/env node
// Hashmap engine bench: Tariff's rating engine against CloudKitty's own, on the same rules and
// the same points, in one run.
//
//   npm run build && node bench/engine.js            # 1,000 mappings, 100 thresholds, 100,000 points
//   node bench/engine.js --points 20000 --runs 5      # see --help
//
// 1. Generates (deterministically, from --seed) a hashmap rule set and a dataframe.
// 2. Prices every point with Tariff's engine from dist/ (buildRuleIndex → selectRules →
//    rateHashmapPoint), timed: best of --runs runs of the pricing loop.
// 3. Prices the same points with CloudKitty 17's HashMap.process() through
//    bench/cloudkitty_engine.py (Debian's /usr/bin/python3), timed the same way by the harness.
// 4. Compares every price as an exact decimal; any mismatch is printed and the exit code is 1.
// 5. Runs a few small probe cases (edge values where the two engines are known or suspected to
//    differ) and prints both answers; probes are informative and never fail the run.
// Prints points/s for both and the ratio Tariff/CloudKitty (target ≥ 20×); writes the numbers to
// bench/results/engine-<timestamp>.json.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH_DIR);
const ENGINE_DIR = join(ROOT, 'dist', 'rating', 'hashmap', 'engine');
const TARGET_RATIO = 20;
const TENANT = 'tenant-a';
const AT = Date.parse('2026-06-01T00:00:00Z');

const HELP = `Usage: node bench/engine.js [options]   (build first: npm run build)

  --points N        points in the dataframe (default 100000)
  --mappings N      hashmap mappings (default 1000, at least 200)
  --thresholds N    hashmap thresholds (default 100, at least 40)
  --runs N          timed runs per engine, best one reported (default 3)
  --warmup N        untimed Tariff runs before those, for V8 to compile the engine (default 5)
  --seed N          generator seed (default 42)
  --python PATH     Python with python3-cloudkitty (default /usr/bin/python3)
  --timeout S       limit for the CloudKitty harness, seconds (default 900)
  --no-probes       skip the edge-case probes
  --no-write        do not write bench/results/engine-<timestamp>.json
  --keep            keep the temporary directory (rules and points as JSON)
  -h, --help`;

function options() {
  const { values } = parseArgs({
    options: {
      points: { type: 'string', default: '100000' },
      mappings: { type: 'string', default: '1000' },
      thresholds: { type: 'string', default: '100' },
      runs: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '5' },
      seed: { type: 'string', default: '42' },
      python: { type: 'string', default: '/usr/bin/python3' },
      timeout: { type: 'string', default: '900' },
      'no-probes': { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const int = (name, min) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
  return {
    points: int('points', 1),
    mappings: int('mappings', 200),
    thresholds: int('thresholds', 40),
    runs: int('runs', 1),
    warmup: int('warmup', 0),
    seed: int('seed', 0),
    python: values.python,
    timeoutS: int('timeout', 1),
    probes: !values['no-probes'],
    write: !values['no-write'],
    keep: values.keep,
  };
}

// ---------------------------------------------------------------------------------------------
// Deterministic generator

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeRandom(seed) {
  const next = mulberry32(seed);
  const r = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
    digits: (n) => {
      let text = '';
      for (let i = 0; i < n; i++) text += String(Math.floor(next() * 10));
      return text;
    },
    weighted: (entries) => {
      const total = entries.reduce((sum, [, w]) => sum + w, 0);
      let x = next() * total;
      for (const [value, w] of entries) {
        x -= w;
        if (x < 0) return value;
      }
      return entries[entries.length - 1][0];
    },
  };
  return r;
}

const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const hex = (r, n) => range(n, () => '0123456789abcdef'[r.int(0, 15)]).join('');

/**
 * Services, their fields (in database order) and the value pools the rules and points draw from.
 * `numeric` fields carry thresholds, so points only ever give them numeric values (CloudKitty
 * aborts the whole rating run on a non-numeric value for a field with thresholds).
 */
function catalogue(r) {
  const flavors = [...['m1.nano', 'm1.tiny', 'm1.small', 'm1.medium', 'm1.large', 'm1.xlarge'], ...range(194, (i) => `c${1 + (i % 8)}.f${i}`)];
  const images = range(250, () => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`);
  const intText = (list) => list.map(String);
  return [
    {
      name: 'compute',
      fields: {
        flavor: { values: flavors, miss: () => `x9.f${r.int(0, 999)}` },
        image_id: { values: images, miss: () => `${hex(r, 8)}-0000-0000-0000-${hex(r, 12)}` },
        vcpus: { values: intText(range(64, (i) => i + 1)), numeric: true },
        memory: { values: intText([256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536]), numeric: true },
        az: { values: range(8, (i) => `az-${i + 1}`), miss: () => `az-${r.int(9, 20)}` },
        gpu: { values: ['True', 'False', 'None'], special: 'bool' },
        os_distro: {
          values: ['ubuntu', 'debian', 'centos', 'rhel', 'windows', 'fedora', 'rocky', 'alma', 'suse', 'arch', ...range(10, (i) => `os-${i}`)],
          miss: () => `os-${r.int(10, 99)}`,
        },
        project_tag: { values: range(30, (i) => `team-${i}`), miss: () => `team-${r.int(30, 99)}` },
      },
    },
    {
      name: 'volume.size',
      fields: {
        volume_type: { values: range(30, (i) => (i < 4 ? ['ssd', 'hdd', 'nvme', 'ceph'][i] : `vt-${i}`)), miss: () => `vt-${r.int(30, 99)}` },
        az: { values: range(8, (i) => `az-${i + 1}`), miss: () => `az-${r.int(9, 20)}` },
        size_gb: { values: intText([1, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]), numeric: true },
        encrypted: { values: ['True', 'False'], special: 'bool' },
      },
    },
    {
      name: 'image.size',
      fields: {
        disk_format: { values: ['qcow2', 'raw', 'vmdk', 'vdi', 'iso', 'ami', 'ari', 'aki', 'vhd', 'vhdx'], miss: () => `fmt-${r.int(0, 9)}` },
        container_format: { values: ['bare', 'ovf', 'ova', 'docker', 'aki'], miss: () => 'compressed' },
        visibility: { values: ['public', 'private', 'shared', 'community'], miss: () => 'hidden' },
      },
    },
    {
      name: 'network.traffic.out',
      fields: {
        network_type: { values: ['vlan', 'vxlan', 'flat', 'gre', 'geneve', 'local'], miss: () => 'other' },
        region: { values: range(10, (i) => `region-${i}`), miss: () => `region-${r.int(10, 30)}` },
        zone: { values: range(20, (i) => `zone-${i}`), miss: () => `zone-${r.int(20, 50)}` },
        bandwidth_mbps: { values: intText([10, 100, 1000, 10000]), numeric: true },
      },
    },
    // A service with a field but no rules, and (in the points only) a service unknown to hashmap.
    { name: 'ip.floating', fields: { pool: { values: [], miss: () => `pool-${r.int(0, 5)}` } } },
  ];
}

const GROUPS = ['instance', 'license', 'storage', 'network', 'discount', 'premium'];

function flatCost(r) {
  const kind = r.weighted([
    ['cents', 40],
    ['short', 30],
    ['int', 15],
    ['long', 10],
    ['negative', 5],
  ]);
  if (kind === 'cents') return `${r.int(0, 49)}.${r.digits(2)}`;
  if (kind === 'short') return `${r.int(0, 9)}.${r.digits(r.int(3, 6))}`;
  if (kind === 'int') return String(r.int(1, 100));
  if (kind === 'long') return `0.${r.digits(r.int(10, 18))}`;
  return `-${r.int(0, 5)}.${r.digits(2)}`; // a negative flat never wins over 0 (max with 0)
}

function rateCost(r) {
  const kind = r.weighted([
    ['short', 70],
    ['long', 20],
    ['zero', 3],
    ['negative', 2],
    ['big', 5],
  ]);
  if (kind === 'short') return `${r.int(0, 1)}.${r.digits(r.int(1, 4))}`;
  if (kind === 'long') return `1.${r.digits(r.int(8, 14))}`;
  if (kind === 'zero') return '0';
  if (kind === 'negative') return `-0.${r.digits(2)}`;
  return `${r.int(2, 12)}.${r.digits(2)}`;
}

/** 1,000 mappings and 100 thresholds (by default), valid for both Tariff's and CloudKitty's API. */
function generateRules(r, services, mappingCount, thresholdCount) {
  const mappings = [];
  const thresholds = [];
  let ids = 0;
  const taken = new Set(); // Tariff's key: parent, value|level, tenant, group
  const tenantTaken = new Set(); // CloudKitty's unique (value|level, parent, tenant) for a non-null tenant
  const ruled = services.filter((s) => Object.values(s.fields).some((f) => f.values.length > 0));

  const addMapping = (m) => {
    const key = `${m.service}\u0000${m.field}\u0000${m.value}\u0000${m.tenant}\u0000${m.group}`;
    const tenantKey = `${m.service}\u0000${m.field}\u0000${m.value}\u0000${m.tenant}`;
    if (taken.has(key) || (m.tenant !== null && tenantTaken.has(tenantKey))) return false;
    taken.add(key);
    if (m.tenant !== null) tenantTaken.add(tenantKey);
    mappings.push({ id: `m${String(++ids).padStart(5, '0')}`, ...m });
    return true;
  };
  const addThreshold = (t) => {
    const key = `T\u0000${t.service}\u0000${t.field}\u0000${t.level}\u0000${t.tenant}\u0000${t.group}`;
    const tenantKey = `T\u0000${t.service}\u0000${t.field}\u0000${t.level}\u0000${t.tenant}`;
    if (taken.has(key) || (t.tenant !== null && tenantTaken.has(tenantKey))) return false;
    taken.add(key);
    if (t.tenant !== null) tenantTaken.add(tenantKey);
    thresholds.push({ id: `t${String(++ids).padStart(5, '0')}`, ...t });
    return true;
  };
  let attempts = 0;
  const guard = () => {
    if (++attempts > 2_000_000) throw new Error('the generator ran out of distinct rule keys: use fewer --mappings / --thresholds');
  };
  const typeAndCost = (pRate) => (r.chance(pRate) ? { type: 'rate', cost: rateCost(r) } : { type: 'flat', cost: flatCost(r) });

  // Service mappings: one per (service, group, tenant); 5 groups per service, mostly flat.
  for (const service of ruled) {
    const groups = [null, ...GROUPS].sort(() => r.next() - 0.5).slice(0, 5);
    for (const group of groups) addMapping({ service: service.name, field: null, value: null, group, tenant: null, ...typeAndCost(0.25) });
  }
  const serviceGlobals = mappings.slice();
  for (let n = 0; n < 3; n++) {
    const base = serviceGlobals[r.int(0, serviceGlobals.length - 1)];
    addMapping({ service: base.service, field: null, value: null, group: base.group, tenant: TENANT, ...typeAndCost(0.25) }); // override
  }
  addMapping({
    service: 'compute',
    field: null,
    value: null,
    group: GROUPS.find((g) => !serviceGlobals.some((m) => m.service === 'compute' && m.group === g)) ?? 'license',
    tenant: TENANT,
    type: 'flat',
    cost: '0.75',
  });
  for (let n = 0; n < 2; n++)
    addMapping({ service: r.pick(ruled).name, field: null, value: null, group: r.pick(GROUPS), tenant: 'tenant-b', ...typeAndCost(0.25) });

  // Field mappings, weighted by the size of each field's value pool.
  const fieldChoices = ruled.flatMap((s) =>
    Object.entries(s.fields)
      .filter(([, f]) => f.values.length > 0)
      .map(([name, f]) => [{ service: s.name, name, f }, Math.max(4, f.values.length)]),
  );
  const tenantA = Math.round(mappingCount * 0.03);
  const tenantB = Math.round(mappingCount * 0.015);
  const globalTarget = mappingCount - mappings.length - tenantA - tenantB;
  let globals = 0;
  while (globals < globalTarget) {
    guard();
    const { service, name, f } = r.weighted(fieldChoices);
    const group = r.chance(0.45) ? null : r.pick(GROUPS);
    if (addMapping({ service, field: name, value: r.pick(f.values), group, tenant: null, ...typeAndCost(0.3) })) globals++;
  }
  const fieldGlobals = mappings.filter((m) => m.field !== null && m.tenant === null);
  let added = 0;
  while (added < tenantA) {
    guard();
    // Half override a global (same field, value and group), half are tenant-only.
    const base = r.chance(0.5) ? r.pick(fieldGlobals) : null;
    const { service, name, f } = base ? { service: base.service, name: base.field, f: null } : r.weighted(fieldChoices);
    const value = base ? base.value : r.pick(f.values);
    const group = base ? base.group : r.chance(0.45) ? null : r.pick(GROUPS);
    if (addMapping({ service, field: name, value, group, tenant: TENANT, ...typeAndCost(0.3) })) added++;
  }
  added = 0;
  while (added < tenantB) {
    guard();
    const base = r.pick(fieldGlobals);
    if (addMapping({ service: base.service, field: base.field, value: base.value, group: base.group, tenant: 'tenant-b', ...typeAndCost(0.3) })) added++;
  }

  // Thresholds: 40 % on services (on the quantity), 60 % on numeric fields; levels overlap so
  // that service and field candidates compete (and tie) inside a group.
  const serviceLevels = {
    compute: ['0', '1', '2', '4', '8', '16', '24', '32', '100', '150.5'],
    'volume.size': ['0', '10', '50', '100', '200', '500', '1000', '0.5'],
    'image.size': ['0', '1', '5', '25', '125', '0.25'],
    'network.traffic.out': ['0', '100', '1000', '10000', '0.001'],
  };
  const numericFields = ruled.flatMap((s) =>
    Object.entries(s.fields)
      .filter(([, f]) => f.numeric)
      .map(([name]) => ({ service: s.name, name })),
  );
  const fieldLevels = {
    vcpus: ['1', '2', '4', '8', '16', '24', '32', '48', '2.5'],
    memory: ['256', '512', '1024', '2048', '2048.5', '4096', '8192', '16384', '32768'],
    size_gb: ['1', '10', '50', '100', '200', '500', '1000', '1999.75'],
    bandwidth_mbps: ['0', '10', '100', '1000', '10000', '123.45'],
  };
  const thresholdGroup = () => (r.chance(0.4) ? null : r.pick(['instance', 'license', 'storage', 'discount']));
  const thresholdCost = () =>
    r.chance(0.5)
      ? { type: 'flat', cost: `${r.int(0, 3)}.${r.digits(r.int(1, 4))}` }
      : { type: 'rate', cost: r.chance(0.8) ? `0.${r.int(50, 99)}` : `1.${r.digits(r.int(1, 12))}` };
  const serviceTarget = Math.round(thresholdCount * 0.4);
  const tenantThresholds = Math.max(2, Math.round(thresholdCount * 0.06));
  const tenantBThresholds = Math.max(1, Math.round(thresholdCount * 0.03));
  const globalTarget2 = thresholdCount - tenantThresholds - tenantBThresholds;
  while (thresholds.length < globalTarget2) {
    guard();
    const onService = thresholds.length < serviceTarget * (globalTarget2 / thresholdCount);
    if (onService) {
      const service = r.pick(Object.keys(serviceLevels));
      addThreshold({ service, field: null, level: r.pick(serviceLevels[service]), group: thresholdGroup(), tenant: null, ...thresholdCost() });
    } else {
      const { service, name } = r.pick(numericFields);
      addThreshold({ service, field: name, level: r.pick(fieldLevels[name]), group: thresholdGroup(), tenant: null, ...thresholdCost() });
    }
  }
  const thresholdGlobals = thresholds.slice();
  while (thresholds.length < globalTarget2 + tenantThresholds) {
    guard();
    const base = r.chance(0.6) ? r.pick(thresholdGlobals) : null;
    const t =
      base ??
      (() => {
        const { service, name } = r.pick(numericFields);
        return { service, field: name, level: r.pick(fieldLevels[name]), group: thresholdGroup() };
      })();
    addThreshold({ service: t.service, field: t.field, level: t.level, group: t.group, tenant: TENANT, ...thresholdCost() });
  }
  while (thresholds.length < thresholdCount) {
    guard();
    const base = r.pick(thresholdGlobals);
    addThreshold({ service: base.service, field: base.field, level: base.level, group: base.group, tenant: 'tenant-b', ...thresholdCost() });
  }
  return { mappings, thresholds };
}

/** The value a point gives a field: a hit (a value some rule maps), a miss, or absent. */
function fieldValue(r, field, mappedValues) {
  const roll = r.next();
  if (roll < 0.12) return undefined; // absent
  if (field.special === 'bool') return r.pick([true, false, null, 'True', 'true', 'False', 'None', 'yes']);
  if (field.numeric) {
    const pool = field.values;
    const kind = r.weighted([
      ['int', 35],
      ['text', 35],
      ['textFraction', 8],
      ['half', 7],
      ['other', 15],
    ]);
    const base = Number(r.pick(pool));
    if (kind === 'int') return base; // JSON number: str() gives the mapping's text
    if (kind === 'text') return String(base);
    if (kind === 'textFraction') return `${base}.0`; // numerically equal, textually a miss
    if (kind === 'half') return base + r.pick([0.5, 0.25, 0.75]); // exact binary fractions
    return r.chance(0.5) ? r.int(0, 70000) : `${r.int(0, 3000)}.${r.digits(2)}`;
  }
  if (roll < 0.72 && mappedValues.length > 0) return r.pick(mappedValues);
  return field.miss ? field.miss() : `miss-${r.int(0, 99)}`;
}

function generatePoints(r, services, mappings, count) {
  const mapped = new Map();
  for (const m of mappings) {
    if (m.field === null) continue;
    const key = `${m.service}\u0000${m.field}`;
    if (!mapped.has(key)) mapped.set(key, new Set());
    mapped.get(key).add(m.value);
  }
  const byName = new Map(services.map((s) => [s.name, s]));
  const serviceWeights = [
    ['compute', 45],
    ['volume.size', 20],
    ['image.size', 10],
    ['network.traffic.out', 15],
    ['ip.floating', 5],
    ['storage.objects', 5],
  ];
  const points = [];
  for (let i = 0; i < count; i++) {
    const service = r.weighted(serviceWeights);
    const kind = r.weighted([
      ['int', 40],
      ['dec', 35],
      ['tiny', 10],
      ['big', 10],
      ['zero', 5],
    ]);
    const qty =
      kind === 'int'
        ? String(r.int(1, 200))
        : kind === 'dec'
          ? `${r.int(0, 99)}.${r.digits(r.int(1, 4))}`
          : kind === 'tiny'
            ? `0.${'0'.repeat(r.int(0, 5))}${r.digits(r.int(3, 12))}`
            : kind === 'big'
              ? `${r.int(1000, 9999999)}.${r.digits(3)}`
              : '0';
    const metadata = { project_id: hex(r, 32), user_id: hex(r, 8) };
    const groupby = { id: `res-${i}` };
    const spec = byName.get(service);
    if (spec) {
      for (const [name, field] of Object.entries(spec.fields)) {
        const value = fieldValue(r, field, [...(mapped.get(`${service}\u0000${name}`) ?? [])]);
        if (value === undefined) continue;
        if (r.chance(0.5)) groupby[name] = value;
        else metadata[name] = value;
      }
      // Now and then a stale copy in metadata that groupby overrides (groupby wins).
      const inGroupby = Object.keys(spec.fields).filter((name) => name in groupby);
      if (inGroupby.length > 0 && r.chance(0.05)) {
        const name = r.pick(inGroupby);
        const field = spec.fields[name];
        metadata[name] = field.numeric ? r.int(0, 99999) : field.values.length > 0 ? r.pick(field.values) : 'stale';
      }
    }
    points.push({ service, unit: 'unit', qty, metadata, groupby });
  }
  return points;
}

// ---------------------------------------------------------------------------------------------
// Tariff side

async function loadTariff() {
  if (!existsSync(join(ENGINE_DIR, 'engine.js'))) throw new Error(`${ENGINE_DIR}/engine.js not found: run "npm run build" first`);
  const imp = (name) => import(pathToFileURL(join(ENGINE_DIR, name)).href);
  const [rules, select, engine, exact] = await Promise.all([
    imp('rule-index.js'),
    imp('select.js'),
    imp('engine.js'),
    import(pathToFileURL(join(ROOT, 'dist', 'rating', 'common', 'exact.js')).href),
  ]);
  // The engine's decimals are `Exact`; `new T.RatingDecimal(x)` and `T.priceText(x)` read as before.
  const RatingDecimal = function RatingDecimal(value) {
    return exact.Exact.from(typeof value === 'number' ? value : String(value));
  };
  return { ...rules, ...select, ...engine, Exact: exact.Exact, RatingDecimal, priceText: (value) => value.toString() };
}

function tariffIndex(T, services, rules) {
  const fields = services.flatMap((s) => Object.keys(s.fields).map((fieldName) => ({ serviceName: s.name, fieldName })));
  const mappings = rules.mappings.map((m) => ({
    mappingId: m.id,
    type: m.type,
    cost: m.cost,
    group: m.group,
    tenantId: m.tenant,
    value: m.value,
    start: 0,
    end: null,
    serviceName: m.service,
    fieldName: m.field,
  }));
  const thresholds = rules.thresholds.map((t) => ({
    thresholdId: t.id,
    type: t.type,
    cost: t.cost,
    level: t.level,
    group: t.group,
    tenantId: t.tenant,
    serviceName: t.service,
    fieldName: t.field,
  }));
  return T.buildRuleIndex(mappings, thresholds, fields);
}

/** The pricing loop: what Tariff's quote does per point (engine on groupby and metadata, price += amount). */
function tariffPriceAll(T, selected, points, quantities) {
  const prices = new Array(points.length);
  const zero = new T.RatingDecimal(0);
  for (let i = 0; i < points.length; i++) {
    const point = points[i];
    prices[i] = zero.plus(T.rateHashmapPoint(selected.get(point.service), quantities[i], point.groupby, point.metadata));
  }
  return prices;
}

// ---------------------------------------------------------------------------------------------
// CloudKitty side

let pythonChild = null;
process.on('exit', () => {
  if (pythonChild && pythonChild.exitCode === null && pythonChild.signalCode === null) pythonChild.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (pythonChild) pythonChild.kill('SIGKILL');
    process.exit(130);
  });
}

function runHarness(python, inputFile, timeoutS) {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(BENCH_DIR, 'cloudkitty_engine.py'), inputFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONHASHSEED: '0' },
    });
    pythonChild = child;
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CloudKitty harness killed after ${timeoutS} s (--timeout)`));
    }, timeoutS * 1000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      pythonChild = null;
      const stderr = Buffer.concat(err).toString();
      if (code !== 0) return reject(new Error(`CloudKitty harness exited with ${code ?? signal}:\n${stderr.slice(-4000)}`));
      try {
        resolve(JSON.parse(Buffer.concat(out).toString()));
      } catch (error) {
        reject(new Error(`CloudKitty harness output is not JSON (${error.message}):\n${stderr.slice(-4000)}`));
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Probes: small cases on the edges, both engines, printed side by side (never fail the run)

function probeCases() {
  const svc = (fields) => [{ name: 'compute', fields }];
  const m = (id, field, value, cost, extra = {}) => ({ id, service: 'compute', field, value, type: 'flat', cost, group: null, tenant: null, ...extra });
  const t = (id, field, level, cost, extra = {}) => ({ id, service: 'compute', field, level, type: 'flat', cost, group: null, tenant: null, ...extra });
  const p = (raw, qty = '1') => ({ service: 'compute', qty, raw });
  return [
    {
      name: 'float desc value with a zero fraction (JSON 2.0)',
      note: 'Python parses 2.0 as float and str() gives "2.0"; JavaScript parses it as 2 and gives "2"',
      services: svc(['n']),
      mappings: [m('a', 'n', '2', '1'), m('b', 'n', '2.0', '10', { group: 'g' })],
      thresholds: [],
      points: [p('{"groupby": {"n": 2.0}}'), p('{"groupby": {"n": 2}}'), p('{"groupby": {"n": "2.0"}}')],
    },
    {
      name: 'float text form: exponents (Python switches at 1e16 and below 1e-4, JS at 1e21 and 1e-7)',
      services: svc(['n']),
      mappings: [
        m('a', 'n', '1e+16', '1'),
        m('b', 'n', '10000000000000000', '10', { group: 'g' }),
        m('c', 'n', '1e-05', '100', { group: 'h' }),
        m('d', 'n', '0.00001', '1000', { group: 'i' }),
      ],
      thresholds: [],
      points: [p('{"groupby": {"n": 1e16}}'), p('{"groupby": {"n": 10000000000000000}}'), p('{"groupby": {"n": 0.00001}}')],
    },
    {
      name: 'integers beyond 2^53 in desc',
      note: 'Python keeps the exact int; JavaScript rounds it to a double',
      services: svc(['n']),
      mappings: [m('a', 'n', '12345678901234567891', '1'), m('b', 'n', '12345678901234567000', '10', { group: 'g' })],
      thresholds: [],
      points: [p('{"groupby": {"n": 12345678901234567891}}')],
    },
    {
      name: 'float field value against a threshold at the same decimal',
      note: 'CloudKitty compares Decimal(float) (0.3 is 0.29999999999999998889…); Tariff compares the shortest decimal 0.3',
      services: svc(['x']),
      mappings: [],
      thresholds: [t('a', 'x', '0.3', '1'), t('b', 'x', '0.1', '0.5')],
      points: [p('{"groupby": {"x": 0.3}}'), p('{"groupby": {"x": "0.3"}}'), p('{"groupby": {"x": 0.1}}')],
    },
    {
      name: 'booleans against field thresholds',
      note: 'Decimal(True) == 1 in Python; Tariff does not treat a boolean as a number',
      services: svc(['b']),
      mappings: [],
      thresholds: [t('a', 'b', '1', '2')],
      points: [p('{"groupby": {"b": true}}'), p('{"groupby": {"b": false}}')],
    },
    {
      name: 'non-numeric field values against field thresholds',
      note: 'CloudKitty raises (whole rating run aborted); Tariff ignores the thresholds (fix, rating.md §5)',
      services: svc(['x']),
      mappings: [m('a', 'x', 'lots', '3')],
      thresholds: [t('b', 'x', '1', '1', { group: 'g' })],
      points: [p('{"groupby": {"x": "lots"}}'), p('{"groupby": {"x": null}}'), p('{"groupby": {"x": "NaN"}}')],
    },
    {
      name: 'numeric text Python accepts but Tariff does not',
      note: 'Decimal() accepts "1_000", "Infinity", "inf" and non-ASCII digits',
      services: svc(['x']),
      mappings: [],
      thresholds: [t('a', 'x', '500', '1')],
      points: [
        p('{"groupby": {"x": "1_000"}}'),
        p('{"groupby": {"x": "Infinity"}}'),
        p('{"groupby": {"x": "inf"}}'),
        p('{"groupby": {"x": "\\u0661\\u0660\\u0660\\u0660"}}'),
        p('{"groupby": {"x": " 1000 "}}'),
        p('{"groupby": {"x": "1e3"}}'),
      ],
    },
    {
      name: "two global service mappings in one group (CloudKitty's API accepts them; Tariff's answers 409)",
      note: 'CloudKitty keeps only the last one loaded per group; Tariff applies both (max of flats)',
      services: svc([]),
      mappings: [m('a', null, null, '5'), m('b', null, null, '3')],
      thresholds: [],
      points: [p('{}')],
    },
    {
      name: 'two global field mappings with the same value in one group (CloudKitty accepts; Tariff 409)',
      note: 'CloudKitty keeps the last one; Tariff multiplies both rates',
      services: svc(['f']),
      mappings: [m('s', null, null, '10'), m('a', 'f', 'v', '2', { type: 'rate' }), m('b', 'f', 'v', '3', { type: 'rate' })],
      thresholds: [],
      points: [p('{"groupby": {"f": "v"}}')],
    },
    {
      name: "negative threshold levels (Tariff's API refuses them)",
      note: 'CloudKitty starts the best level at -1, so a level ≤ -1 never wins',
      services: svc(['x']),
      mappings: [],
      thresholds: [t('a', null, '-5', '1'), t('b', 'x', '-0.5', '2', { group: 'g' })],
      points: [p('{"groupby": {"x": 0}}')],
    },
    {
      name: 'service and field threshold tie (same level, same group)',
      note: 'both engines: the service threshold is considered first and a tie does not replace it',
      services: svc(['x']),
      mappings: [m('s', null, null, '2')],
      thresholds: [t('a', null, '4', '100'), t('b', 'x', '4', '1')],
      points: [p('{"groupby": {"x": 4}}', '5')],
    },
    {
      name: 'a field named like an Object.prototype member, absent from desc',
      note: 'Tariff tests `name in desc`, which also sees inherited members',
      services: svc(['constructor', 'toString']),
      mappings: [
        m('a', 'constructor', 'function Object() { [native code] }', '7'),
        m('b', 'toString', 'function toString() { [native code] }', '9', { group: 'g' }),
      ],
      thresholds: [],
      points: [p('{}')],
    },
    {
      name: 'a group named "_DEFAULT_" and the rules without a group (rated for tenant X)',
      note: 'CloudKitty keys both by the name "_DEFAULT_", so the tenant rule in group "_DEFAULT_" replaces the global ungrouped one; Tariff keys a null group apart from "_DEFAULT_" when replacing, but prices them as one group',
      tenant: 'X',
      services: svc(['f']),
      mappings: [m('a', 'f', 'v', '5'), m('b', 'f', 'v', '2', { group: '_DEFAULT_', tenant: 'X' })],
      thresholds: [],
      points: [p('{"groupby": {"f": "v"}}')],
    },
    {
      name: 'group order and rounding of the sum (amounts beyond 28 significant digits)',
      note: 'CloudKitty adds group amounts in the order the groups first appear in its loaded dicts (g3, g1, g2); Tariff in the order the matching rules come (g3, g2, g1)',
      services: svc(['f']),
      mappings: [
        m('s', null, null, '100000000000', { group: 'g3' }),
        m('a', 'f', 'other', '1', { group: 'g1' }),
        m('b', 'f', 'v', '100000000000', { group: 'g2' }),
        m('d', 'f', 'v', '-1', { group: 'g3', type: 'rate' }),
        m('c', 'f', 'v', '0.000000000000000006', { group: 'g1' }),
      ],
      thresholds: [],
      points: [p('{"groupby": {"f": "v"}}', '10000000000000000')],
    },
    {
      name: 'group order after a tenant override of a service mapping (rated for tenant X)',
      note: "CloudKitty keeps the overridden group at the global rule's place (g1, g2, g3); Tariff moves it to the tenant rule's place (g2, g3, g1); seen in the bench with --mappings 3000",
      tenant: 'X',
      services: svc(['f']),
      mappings: [
        m('s1', null, null, '100000000000', { group: 'g1' }),
        m('s2', null, null, '0.000000000000000006', { group: 'g2' }),
        m('s3', null, null, '100000000000', { group: 'g3' }),
        m('s4', null, null, '100000000000', { group: 'g1', tenant: 'X' }),
        m('r', 'f', 'v', '-1', { group: 'g3', type: 'rate' }),
      ],
      thresholds: [],
      points: [p('{"groupby": {"f": "v"}}', '10000000000000000')],
    },
  ];
}

async function runProbes(T, python, dir, timeoutS) {
  const cases = probeCases();
  const input = join(dir, 'probes.json');
  writeFileSync(input, JSON.stringify({ mode: 'probe', cases: cases.map((c) => ({ tenant: null, ...c })) }));
  const ck = await runHarness(python, input, timeoutS);
  const results = [];
  cases.forEach((c, ci) => {
    const selected = T.selectRules(
      tariffIndex(
        T,
        c.services.map((s) => ({ name: s.name, fields: Object.fromEntries(s.fields.map((f) => [f, {}])) })),
        c,
      ),
      AT,
      c.tenant ?? null,
    );
    c.points.forEach((point, pi) => {
      let tariff;
      try {
        const desc = JSON.parse(point.raw);
        tariff = T.priceText(T.rateHashmapPoint(selected.get(point.service), new T.RatingDecimal(point.qty), desc.groupby ?? {}, desc.metadata ?? {}));
      } catch (error) {
        tariff = `error: ${error.message}`;
      }
      const raw = ck.cases[ci].prices[pi];
      const cloudkitty = typeof raw === 'string' ? T.priceText(new T.RatingDecimal(raw)) : `error: ${raw.error}`;
      results.push({ case: c.name, note: c.note, point: point.raw, qty: point.qty, tariff, cloudkitty, same: tariff === cloudkitty });
    });
  });
  return results;
}

// ---------------------------------------------------------------------------------------------

const fmt = (n) => Math.round(n).toLocaleString('en-US');

async function main() {
  const opts = options();
  const log = (...args) => console.error(...args);
  const T = await loadTariff();
  const r = makeRandom(opts.seed);

  const services = catalogue(r);
  const rules = generateRules(r, services, opts.mappings, opts.thresholds);
  const generated = generatePoints(r, services, rules.mappings, opts.points);
  // Both engines get the same JSON text: Tariff parses it as its quote endpoint would.
  const pointsJson = JSON.stringify(generated);
  const points = JSON.parse(pointsJson);
  log(
    `rules: ${rules.mappings.length} mappings (${rules.mappings.filter((m) => m.field === null).length} service, ${rules.mappings.filter((m) => m.field !== null).length} field), ${rules.thresholds.length} thresholds (${rules.thresholds.filter((t) => t.field === null).length} service, ${rules.thresholds.filter((t) => t.field !== null).length} field); ${points.length} points; tenant ${TENANT}`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'tariff-engine-bench-'));
  try {
    const servicesForCk = services.map((s) => ({ name: s.name, fields: Object.keys(s.fields) }));
    const input = join(dir, 'bench.json');
    writeFileSync(
      input,
      `{"mode":"bench","runs":${opts.runs},"cases":[{"tenant":${JSON.stringify(TENANT)},"services":${JSON.stringify(servicesForCk)},"mappings":${JSON.stringify(rules.mappings)},"thresholds":${JSON.stringify(rules.thresholds)},"points":${pointsJson}}]}`,
    );

    // Tariff: rules loaded and selected (untimed), then the loop. Each run loads and selects
    // afresh: the engine keeps what it learns (its plan of the rules, desc values already seen)
    // with a selection, which the quote reuses until the rules change; a fresh index per run
    // makes every run price as the first request after a change does, learning nothing from the
    // run before.
    const loadStart = process.hrtime.bigint();
    const selected = T.selectRules(tariffIndex(T, services, rules), AT, TENANT);
    const tariffLoadS = Number(process.hrtime.bigint() - loadStart) / 1e9;
    const quantities = points.map((point) => new T.RatingDecimal(point.qty));
    // Warm-up (untimed, fresh rules each time like the timed runs): V8 compiles the engine's hot
    // functions while they run, which takes a few runs; a server prices with compiled code.
    for (let run = 0; run < opts.warmup; run++) {
      const start = process.hrtime.bigint();
      tariffPriceAll(T, T.selectRules(tariffIndex(T, services, rules), AT, TENANT), points, quantities);
      log(`tariff warm-up ${run + 1}/${opts.warmup}: ${(Number(process.hrtime.bigint() - start) / 1e9).toFixed(3)} s`);
    }
    const tariffTimings = [];
    let tariffPrices;
    for (let run = 0; run < opts.runs; run++) {
      const runSelected = run === 0 ? selected : T.selectRules(tariffIndex(T, services, rules), AT, TENANT);
      const start = process.hrtime.bigint();
      tariffPrices = tariffPriceAll(T, runSelected, points, quantities);
      tariffTimings.push(Number(process.hrtime.bigint() - start) / 1e9);
      log(`tariff run ${run + 1}/${opts.runs}: ${tariffTimings[run].toFixed(3)} s (${fmt(points.length / tariffTimings[run])} points/s)`);
    }

    // Coverage (untimed): what contributed, from the engine's explain.
    const coverage = {
      priced_nonzero: 0,
      negative: 0,
      price_28_digits: 0,
      'service mapping': 0,
      'field mapping': 0,
      'service threshold': 0,
      'field threshold': 0,
      groups_per_point_max: 0,
    };
    for (let i = 0; i < points.length; i++) {
      const explain = [];
      const price = T.rateHashmapPoint(selected.get(points[i].service), quantities[i], points[i].groupby, points[i].metadata, explain);
      if (!price.isZero()) coverage.priced_nonzero++;
      if (price.isNegative() && !price.isZero()) coverage.negative++;
      if (price.toString().replace(/[-.]/g, '').replace(/^0+/, '').length >= 28) coverage.price_28_digits++; // the 28-digit context rounded somewhere
      const kinds = new Set(explain.map((e) => e.kind));
      for (const kind of kinds) coverage[kind]++;
      coverage.groups_per_point_max = Math.max(coverage.groups_per_point_max, new Set(explain.map((e) => e.group)).size);
    }
    log(`coverage (points): ${JSON.stringify(coverage)}`);

    log(`cloudkitty: ${opts.runs} run(s) of HashMap.process() over ${points.length} points (this takes a while)…`);
    const ck = await runHarness(opts.python, input, opts.timeoutS);
    ck.timings_s.forEach((s, i) => log(`cloudkitty run ${i + 1}/${ck.timings_s.length}: ${s.toFixed(3)} s (${fmt(points.length / s)} points/s)`));

    // Exact decimal comparison of every price.
    const ckPrices = ck.cases[0].prices;
    const mismatches = [];
    for (let i = 0; i < points.length; i++) {
      const theirs = new T.RatingDecimal(ckPrices[i]);
      if (!theirs.eq(tariffPrices[i])) mismatches.push(i);
    }

    let probes = [];
    if (opts.probes) probes = await runProbes(T, opts.python, dir, Math.min(opts.timeoutS, 120));

    const tariffBest = Math.min(...tariffTimings);
    const tariffRate = points.length / tariffBest;
    const ckRate = points.length / ck.best_s;
    const ratio = tariffRate / ckRate;

    const lines = [];
    lines.push('## Hashmap engine: Tariff vs CloudKitty');
    lines.push('');
    lines.push(
      `${rules.mappings.length} mappings, ${rules.thresholds.length} thresholds, ${points.length} points (seed ${opts.seed}, tenant ${TENANT}); best of ${opts.runs} runs each (Tariff after ${opts.warmup} untimed warm-up runs).`,
    );
    lines.push('');
    lines.push('| engine | best (s) | points/s | runs (s) |');
    lines.push('|---|---:|---:|---|');
    lines.push(
      `| Tariff (node ${process.versions.node}) | ${tariffBest.toFixed(3)} | ${fmt(tariffRate)} | ${tariffTimings.map((s) => s.toFixed(3)).join(', ')} |`,
    );
    lines.push(
      `| CloudKitty ${ck.cloudkitty} (Python ${ck.python}) | ${ck.best_s.toFixed(3)} | ${fmt(ckRate)} | ${ck.timings_s.map((s) => s.toFixed(3)).join(', ')} |`,
    );
    lines.push('');
    lines.push(`Tariff / CloudKitty: **${ratio.toFixed(1)}×** (target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'pass' : 'FAIL'})`);
    lines.push(
      `Rule loading (not timed above): Tariff buildRuleIndex+selectRules ${(tariffLoadS * 1000).toFixed(1)} ms, CloudKitty _load_rates ${(ck.load_s * 1000).toFixed(1)} ms (in-memory DB stand-in).`,
    );
    lines.push(
      `Prices: ${points.length - mismatches.length}/${points.length} identical as exact decimals${mismatches.length ? ` — **${mismatches.length} MISMATCHES**` : ''}; ${coverage.priced_nonzero} points non-zero.`,
    );
    console.log(lines.join('\n'));

    if (mismatches.length > 0) {
      console.log('\n### Mismatches (first 20)');
      for (const i of mismatches.slice(0, 20)) {
        console.log(`- point ${i}: ${JSON.stringify(points[i])}\n  tariff ${T.priceText(tariffPrices[i])}  cloudkitty ${ckPrices[i]}`);
      }
    }
    if (probes.length > 0) {
      console.log('\n### Probes (edge cases; informative, never fail the run)');
      console.log('');
      console.log('| case | point | qty | Tariff | CloudKitty | |');
      console.log('|---|---|---:|---|---|---|');
      for (const probe of probes) {
        console.log(
          `| ${probe.case} | \`${probe.point}\` | ${probe.qty} | ${probe.tariff} | ${probe.cloudkitty.replace(/\|/g, '\\|')} | ${probe.same ? 'same' : '**differs**'} |`,
        );
      }
    }

    if (opts.write) {
      const resultsDir = join(BENCH_DIR, 'results');
      mkdirSync(resultsDir, { recursive: true });
      const file = join(resultsDir, `engine-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
      writeFileSync(
        file,
        `${JSON.stringify(
          {
            kind: 'hashmap-engine',
            at: new Date().toISOString(),
            machine: {
              cpus: cpus().length,
              model: cpus()[0]?.model,
              loadavg: loadavg(),
              node: process.versions.node,
              python: ck.python,
              cloudkitty: ck.cloudkitty,
            },
            options: opts,
            rules: { mappings: rules.mappings.length, thresholds: rules.thresholds.length },
            points: points.length,
            coverage,
            tariff: { timings_s: tariffTimings, best_s: tariffBest, points_per_s: tariffRate, load_s: tariffLoadS },
            cloudkitty: { timings_s: ck.timings_s, best_s: ck.best_s, points_per_s: ckRate, load_s: ck.load_s },
            ratio,
            target_ratio: TARGET_RATIO,
            mismatches: mismatches.map((i) => ({ index: i, point: points[i], tariff: tariffPrices[i].toString(), cloudkitty: ckPrices[i] })),
            probes,
          },
          null,
          1,
        )}\n`,
      );
      log(`written ${file}`);
    }
    if (opts.keep) log(`kept ${dir}`);
    process.exitCode = mismatches.length > 0 ? 1 : 0;
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error?.stack ?? String(error));
  process.exit(2);
});
