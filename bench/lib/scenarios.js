// The benchmark scenarios, CloudKitty 17's measured baseline and the issue's targets.
import { H, P } from './client.js';
import { QUOTE_FLAVORS } from './seed.js';

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

/**
 * Scenario definitions. `requests(ids, ctx)` returns autocannon's `requests` array;
 * `check(status, body, ids)` validates one preflight response (so that a run never measures a
 * 404 page); `long` scenarios use --long-duration.
 */
export function scenarios({ mappings }) {
  return [
    {
      id: 'services_list',
      title: 'list 100 services',
      conns: [1, 8],
      requests: () => [{ method: 'GET', path: `${H}/services`, headers: JSON_HEADERS }],
      check: (status, body) => status === 200 && Array.isArray(body?.services) && body.services.length >= 100,
    },
    {
      id: `mappings_list_${mappings}`,
      title: `list ${mappings.toLocaleString('en-US')} mappings of a service`,
      conns: [1, 2],
      long: true,
      requests: (ids) => [{ method: 'GET', path: `${H}/mappings?service_id=${ids.bigServiceId}`, headers: JSON_HEADERS }],
      check: (status, body) => status === 200 && body?.mappings?.length === mappings,
    },
    {
      id: 'mapping_get',
      title: 'get one mapping',
      conns: [1, 8],
      requests: (ids) => [{ method: 'GET', path: `${H}/mappings/${ids.mappingId}`, headers: JSON_HEADERS }],
      check: (status, body, ids) => status === 200 && body?.mapping_id === ids.mappingId,
    },
    {
      id: 'mapping_create',
      title: 'create a field mapping (unique values)',
      conns: [1, 8],
      write: true,
      // One request whose body is rebuilt for every send by setupRequest: a process-wide counter
      // plus a per-run prefix makes every value unique across connections, warm-up and reruns.
      requests: (ids, ctx) => [
        {
          method: 'POST',
          path: `${H}/mappings`,
          headers: JSON_HEADERS,
          setupRequest: (request) => {
            ctx.counter += 1;
            request.body = JSON.stringify({ field_id: ids.postFieldId, type: 'flat', cost: '1.25', value: `${ctx.prefix}-${ctx.counter}` });
            return request;
          },
        },
      ],
      preflightBody: (ids, ctx) => {
        ctx.counter += 1;
        return { field_id: ids.postFieldId, type: 'flat', cost: '1.25', value: `${ctx.prefix}-${ctx.counter}` };
      },
      check: (status, body, ids) => status === 201 && body?.field_id === ids.postFieldId,
    },
    {
      id: 'scripts_list',
      title: 'list 100 scripts',
      conns: [1, 8],
      requests: () => [{ method: 'GET', path: `${P}/scripts`, headers: JSON_HEADERS }],
      check: (status, body) => status === 200 && Array.isArray(body?.scripts) && body.scripts.length >= 100,
    },
    {
      id: 'quote_v1',
      title: 'v1 quote of one resource (hashmap)',
      conns: [1, 8],
      requests: () => [{ method: 'POST', path: '/v1/rating/quote', headers: JSON_HEADERS, body: JSON.stringify(QUOTE_V1) }],
      preflightBody: () => QUOTE_V1,
      check: (status, body) => status === 200 && typeof body === 'number' && body > 0,
    },
    {
      id: 'quote_v2_100',
      title: 'v2 quote of a 100-point dataframe (hashmap)',
      conns: [1, 8],
      requests: () => [{ method: 'POST', path: '/v2/rating/quote', headers: JSON_HEADERS, body: JSON.stringify(QUOTE_V2) }],
      preflightBody: () => QUOTE_V2,
      check: (status, body) => status === 200 && Number(body?.total) > 0 && body?.usage?.['bench-quote']?.length === 100,
    },
  ];
}

const FLAVOR_NAMES = Object.keys(QUOTE_FLAVORS);

/** A quote of two m1.large instances: one flavor mapping and the service's rate apply. */
const QUOTE_V1 = { resources: [{ service: 'bench-quote', desc: { flavor: 'm1.large' }, volume: '2' }] };

/** 100 points over the four flavors, as a collector's dataframe would hold them. */
const QUOTE_V2 = {
  usage: {
    'bench-quote': Array.from({ length: 100 }, (_, index) => ({
      vol: { unit: 'instance', qty: String(1 + (index % 4)) },
      groupby: { flavor: FLAVOR_NAMES[index % FLAVOR_NAMES.length], project_id: `p${index % 7}` },
      metadata: { memory: String(512 * (1 + (index % 8))) },
    })),
  },
};

/**
 * CloudKitty 17.0.0 (Debian, uWSGI 8 processes × 32 threads, noauth, loopback, 2 cores) as measured
 * with wrk by /work/shared/anchors/cloudkitty/bench.sh on this machine kind, 2026-11-21; from
 * /work/shared/anchors/cloudkitty/README.md. The table uses the PostgreSQL column. Keys are
 * `<scenario id>@<connections>`; a scenario/connections pair that README does not list has no
 * baseline.
 */
export const BASELINE = {
  source: '/work/shared/anchors/cloudkitty/README.md (measured 2026-11-21, 2 cores, loopback, ±30 %)',
  server: 'CloudKitty 17.0.0, uWSGI 8 processes x 32 threads, noauth',
  postgresql: {
    'services_list@1': { rps: 16.6, p50_ms: 60 },
    'services_list@8': { rps: 25.7, p50_ms: 297 },
    'mappings_list_10000@1': { rps: 0.07, p50_ms: 16_000 },
    'mapping_get@1': { rps: 244, p50_ms: 3.8 },
    'mapping_get@8': { rps: 304, p50_ms: 25 },
    'mapping_create@1': { rps: 128, p50_ms: 7.5 },
    'scripts_list@1': { rps: 17.3, p50_ms: 57 },
  },
  sqlite: {
    'services_list@1': { rps: 15.2, p50_ms: 63 },
    'services_list@8': { rps: 29.8, p50_ms: 260 },
    'mappings_list_10000@1': { rps: 0.07, p50_ms: 12_000 },
    'mapping_get@1': { rps: 213, p50_ms: 4.7 },
    'mapping_get@8': { rps: 343, p50_ms: 21 },
    'mapping_create@1': { rps: 119, p50_ms: 8.4 },
    'scripts_list@1': { rps: 16.2, p50_ms: 60 },
  },
};

/** The performance targets, evaluated on Tariff's runs. */
export const TARGETS = [
  { key: 'mapping_get@8', text: '≥ 5,000 req/s', pass: (run) => run.rps >= 5000 },
  { key: 'mappings_list_10000@1', text: 'p50 < 150 ms', pass: (run) => run.latency_ms.p50 !== null && run.latency_ms.p50 < 150 },
  { key: 'mapping_create@8', text: '≥ 1,500 creates/s', pass: (run) => run.rps >= 1500 && run.non2xx === 0 },
];
