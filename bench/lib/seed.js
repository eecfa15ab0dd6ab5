// Seeds a rating API (Tariff or CloudKitty) through HTTP with the bench data set. The names are
// those of /work/shared/anchors/cloudkitty/seed.py, so either seeder's data can be reused:
//
//   svc-0000 ... svc-0099           plain services (GET /services)
//   bench-svc-<N>                   a service with N service mappings: tenant_id t-00000...,
//                                   cost i/1000, type flat (tenants differ, so no conflict)
//   bench-post / field flavor       empty field, target of the POST benchmark
//   script-0000 ... script-0099     pyscripts, data "a = <i>\n"
//   bench-quote / field flavor      4 flat flavor mappings and a 1.1 rate service mapping, priced
//                                   by the quote scenarios (hashmap enabled; added when missing)
import { H, P, pmap } from './client.js';

const pad = (n, width) => String(n).padStart(width, '0');
const cost = (i) => `${Math.floor(i / 1000)}.${pad(i % 1000, 3)}`;

function progress(label) {
  let last = 0;
  return (done, total) => {
    const now = Date.now();
    if (done === total || now - last > 2000) {
      last = now;
      process.stderr.write(`[seed] ${label}: ${done}/${total}\n`);
    }
  };
}

/**
 * Makes sure the data set exists; seeds it when the API has no services, reuses it when a
 * complete data set with the same sizes is found, refuses anything else.
 *
 * @returns the ids the scenarios need and how long seeding took.
 */
export async function ensureDataSet(client, { services = 100, mappings = 10_000, scripts = 100, concurrency = 8 }) {
  const t0 = performance.now();
  const existing = (await client.get(`${H}/services`)).body.services;
  const bigName = `bench-svc-${mappings}`;
  if (existing.length > 0) {
    const byName = new Map(existing.map((service) => [service.name, service.service_id]));
    const plain = existing.filter((service) => /^svc-\d{4}$/.test(service.name)).length;
    if (!byName.has(bigName) || !byName.has('bench-post') || plain < services) {
      throw new Error(
        `refusing to seed: the API already has ${existing.length} services but not the bench data set ` +
          `(${bigName}, bench-post, ${services} svc-NNNN); use an empty database`,
      );
    }
    const bigServiceId = byName.get(bigName);
    process.stderr.write(`[seed] reusing the existing data set (listing ${mappings} mappings once to check it)\n`);
    const list = (await client.get(`${H}/mappings?service_id=${bigServiceId}`)).body.mappings;
    if (list.length !== mappings) throw new Error(`${bigName} has ${list.length} mappings, expected ${mappings}`);
    const fields = (await client.get(`${H}/fields?service_id=${byName.get('bench-post')}`)).body.fields;
    const flavor = fields.find((field) => field.name === 'flavor');
    if (!flavor) throw new Error('bench-post has no field flavor');
    const scriptList = (await client.get(`${P}/scripts?no_data=true`)).body.scripts;
    if (scriptList.length < scripts) throw new Error(`found ${scriptList.length} scripts, expected ${scripts}`);
    await ensureQuoteRules(client);
    return {
      reused: true,
      seconds: (performance.now() - t0) / 1000,
      counts: { services: existing.length, mappings: list.length, scripts: scriptList.length },
      ids: { bigServiceId, mappingId: list[0].mapping_id, postFieldId: flavor.field_id },
    };
  }

  const names = Array.from({ length: services }, (_, i) => `svc-${pad(i, 4)}`);
  await pmap(names, concurrency, (name) => client.post(`${H}/services`, { name }), progress('services'));

  const bigServiceId = (await client.post(`${H}/services`, { name: bigName })).body.service_id;
  const t1 = performance.now();
  const mappingIds = await pmap(
    Array.from({ length: mappings }, (_, i) => i),
    concurrency,
    async (i) => (await client.post(`${H}/mappings`, { service_id: bigServiceId, type: 'flat', cost: cost(i), tenant_id: `t-${pad(i, 5)}` })).body.mapping_id,
    progress(`${bigName} mappings`),
  );
  const mappingSeconds = (performance.now() - t1) / 1000;

  const postServiceId = (await client.post(`${H}/services`, { name: 'bench-post' })).body.service_id;
  const postFieldId = (await client.post(`${H}/fields`, { service_id: postServiceId, name: 'flavor' })).body.field_id;

  await pmap(
    Array.from({ length: scripts }, (_, i) => i),
    concurrency,
    (i) => client.post(`${P}/scripts`, { name: `script-${pad(i, 4)}`, data: `a = ${i}\n` }),
    progress('scripts'),
  );
  await ensureQuoteRules(client);
  const seconds = (performance.now() - t0) / 1000;
  process.stderr.write(
    `[seed] done in ${seconds.toFixed(1)} s (${mappings} mappings in ${mappingSeconds.toFixed(1)} s = ` +
      `${(mappings / mappingSeconds).toFixed(0)} POST/s with ${concurrency} clients)\n`,
  );
  return {
    reused: false,
    seconds,
    mappingPostsPerSecond: mappings / mappingSeconds,
    concurrency,
    counts: { services: services + 2, mappings, scripts },
    ids: { bigServiceId, mappingId: mappingIds[0], postFieldId },
  };
}

/** The flavors the quote scenarios price, with their flat costs in bench-quote's field `flavor`. */
export const QUOTE_FLAVORS = { 'm1.nano': '0.01', 'm1.tiny': '0.02', 'm1.small': '0.05', 'm1.large': '0.2' };

/**
 * Makes sure the quote scenarios have rules to price with: service `bench-quote` with a 1.1 rate
 * service mapping and field `flavor` with one flat mapping per {@link QUOTE_FLAVORS}, and the
 * hashmap module enabled (modules are disabled by default, as in CloudKitty). The module is
 * enabled with `Prefer: return=representation` so Tariff answers 200 rather than CloudKitty's 302.
 */
async function ensureQuoteRules(client) {
  const services = (await client.get(`${H}/services`)).body.services;
  if (!services.some((service) => service.name === 'bench-quote')) {
    const serviceId = (await client.post(`${H}/services`, { name: 'bench-quote' })).body.service_id;
    await client.post(`${H}/mappings`, { service_id: serviceId, type: 'rate', cost: '1.1' });
    const fieldId = (await client.post(`${H}/fields`, { service_id: serviceId, name: 'flavor' })).body.field_id;
    for (const [value, flat] of Object.entries(QUOTE_FLAVORS)) await client.post(`${H}/mappings`, { field_id: fieldId, type: 'flat', cost: flat, value });
  }
  const response = await fetch(`${client.baseUrl}/v1/rating/modules/hashmap`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', Prefer: 'return=representation' },
    body: JSON.stringify({ enabled: true }),
    redirect: 'manual',
  });
  await response.arrayBuffer();
  if (![200, 302].includes(response.status)) throw new Error(`enabling hashmap answered ${response.status}`);
}
