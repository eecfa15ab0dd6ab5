// The price-list bench's document (docs/price-list.md §1), deterministic, valid for both Tariff's
// price list and CloudKitty 17's hashmap API (no name/description/start/end, which CloudKitty 17
// lacks; every (field, value, tenant) and (parent, level, tenant) unique, as its uniq_*
// constraints want), and the same rules as the CloudKitty 17 v1 calls an operator makes.
//
// Per service (pl-svc-000 …), 100 mappings:
//   1 global service mapping (flat, in a group for even services)
//   3 fields (flavor: flat, region: rate, size: flat), 33 mappings each: 30 global values (every
//   other one in a group) and 3 tenant overrides of the first three values (same group)
//   2 service thresholds (levels 100, 1000, rate, in the service's group); 2 thresholds on `size`
//   (levels 10, 50, flat); every 10th service one tenant threshold on `size`
// Groups: pl-group-00 … (10). Tenants: 7 project-like ids.
import { H } from './client.js';

const pad = (n, width) => String(n).padStart(width, '0');

/** A normalized decimal (no trailing zeros) from a seed: 0 to 9.9999. */
function cost(seed) {
  const n = (seed * 7919 + 13) % 100_000;
  const text = `${Math.floor(n / 10_000)}.${pad(n % 10_000, 4)}`.replace(/0+$/, '').replace(/\.$/, '');
  return text;
}

export const FIELDS = [
  { name: 'flavor', type: 'flat', value: (j) => `m1.f${pad(j, 3)}` },
  { name: 'region', type: 'rate', value: (j) => `region-${pad(j, 3)}` },
  { name: 'size', type: 'flat', value: (j) => String(10 * (j + 1)) },
];

/**
 * @param {object} o
 * @param {number} o.services  services (100 mappings each)
 * @param {number} o.groups
 * @returns the document (plain object: groups, services)
 */
export function buildDocument({ services = 100, groups = 10 } = {}) {
  const groupNames = Array.from({ length: groups }, (_, g) => `pl-group-${pad(g, 2)}`);
  const tenant = (k) => `${pad(k, 8)}bench${pad(k, 19)}`; // 32 characters, like a Keystone project id
  const doc = { modules: { hashmap: { enabled: true, priority: 1 } }, groups: groupNames, services: {} };
  let seed = 0;
  for (let i = 0; i < services; i += 1) {
    const group = groupNames[i % groups];
    const service = { mappings: [], thresholds: [], fields: {} };
    const serviceMapping = { type: 'flat', cost: cost((seed += 1)) };
    if (i % 2 === 0) serviceMapping.group = group;
    service.mappings.push(serviceMapping);
    service.thresholds.push({ level: '100', type: 'rate', cost: '0.95', group });
    service.thresholds.push({ level: '1000', type: 'rate', cost: '0.9', group });
    for (const [f, field] of FIELDS.entries()) {
      const mappings = [];
      for (let j = 0; j < 30; j += 1) {
        const mapping = { value: field.value(j), type: field.type, cost: cost((seed += 1)) };
        if (j % 2 === 0) mapping.group = groupNames[(i + f + j) % groups];
        mappings.push(mapping);
      }
      for (let j = 0; j < 3; j += 1) {
        const overridden = mappings[j];
        const mapping = { value: overridden.value, type: field.type, cost: cost((seed += 1)), tenant_id: tenant((i + j) % 7) };
        if (overridden.group) mapping.group = overridden.group;
        mappings.push(mapping);
      }
      const thresholds = [];
      if (field.name === 'size') {
        thresholds.push({ level: '10', type: 'flat', cost: '0.5', group });
        thresholds.push({ level: '50', type: 'flat', cost: '2', group });
        if (i % 10 === 0) thresholds.push({ level: '50', type: 'flat', cost: '1.5', tenant_id: tenant(i % 7), group });
      }
      service.fields[field.name] = { mappings, thresholds };
    }
    doc.services[`pl-svc-${pad(i, 3)}`] = service;
  }
  return doc;
}

/** Counts of a document's parts. */
export function countRules(doc) {
  // Every member may be left out (exports leave out empty lists).
  const counts = { groups: doc.groups?.length ?? 0, services: 0, fields: 0, mappings: 0, thresholds: 0 };
  for (const service of Object.values(doc.services ?? {})) {
    counts.services += 1;
    counts.mappings += service.mappings?.length ?? 0;
    counts.thresholds += service.thresholds?.length ?? 0;
    for (const field of Object.values(service.fields ?? {})) {
      counts.fields += 1;
      counts.mappings += field.mappings?.length ?? 0;
      counts.thresholds += field.thresholds?.length ?? 0;
    }
  }
  return counts;
}

/** A copy of `doc` with `count` field-mapping costs changed, spread over the services. */
export function withChangedCosts(doc, count = 100) {
  const copy = structuredClone(doc);
  const all = [];
  for (const service of Object.values(copy.services)) for (const field of Object.values(service.fields)) all.push(...field.mappings);
  const step = Math.floor(all.length / count);
  for (let k = 0; k < count; k += 1) {
    const mapping = all[k * step];
    mapping.cost = `${10 + k}.25`;
  }
  return copy;
}

/** The first `services` services of `doc` (with all its groups): CloudKitty 17's sample. */
export function sampleOf(doc, services) {
  return { ...doc, services: Object.fromEntries(Object.entries(doc.services).slice(0, services)) };
}

/**
 * Creates the document's rules one by one through CloudKitty 17's v1 hashmap API, as an operator
 * (or a script around the `openstack rating hashmap` CLI) does: groups, then per service the
 * service, its mappings and thresholds, each field and its mappings and thresholds. Sequential.
 *
 * @param call (method, path, body) → parsed JSON answer
 * @returns the number of requests made
 */
export async function createOneByOne(call, doc) {
  let requests = 0;
  const post = async (what, body) => {
    requests += 1;
    return call('POST', `${H}/${what}`, body);
  };
  const groupIds = {};
  for (const name of doc.groups) groupIds[name] = (await post('groups', { name })).group_id;
  const rule = (parent, rule) => {
    const body = { ...parent, type: rule.type ?? 'flat', cost: rule.cost };
    if (rule.value !== undefined) body.value = rule.value;
    if (rule.level !== undefined) body.level = rule.level;
    if (rule.tenant_id) body.tenant_id = rule.tenant_id;
    if (rule.group) body.group_id = groupIds[rule.group];
    return body;
  };
  for (const [name, service] of Object.entries(doc.services)) {
    const serviceId = (await post('services', { name })).service_id;
    for (const mapping of service.mappings) await post('mappings', rule({ service_id: serviceId }, mapping));
    for (const threshold of service.thresholds) await post('thresholds', rule({ service_id: serviceId }, threshold));
    for (const [fieldName, field] of Object.entries(service.fields)) {
      const fieldId = (await post('fields', { service_id: serviceId, name: fieldName })).field_id;
      for (const mapping of field.mappings) await post('mappings', rule({ field_id: fieldId }, mapping));
      for (const threshold of field.thresholds) await post('thresholds', rule({ field_id: fieldId }, threshold));
    }
  }
  return requests;
}

/**
 * Reads every rule back through the v1 API, as a script exporting CloudKitty 17's configuration
 * must (it has no export): groups, services, and per service and field its mappings and
 * thresholds. Sequential.
 *
 * @returns {{requests: number, mappings: number, thresholds: number}}
 */
export async function readOneByOne(call) {
  let requests = 0;
  const get = async (path) => {
    requests += 1;
    return call('GET', `${H}/${path}`);
  };
  let mappings = 0;
  let thresholds = 0;
  await get('groups');
  for (const service of (await get('services')).services) {
    mappings += (await get(`mappings?service_id=${service.service_id}`)).mappings.length;
    thresholds += (await get(`thresholds?service_id=${service.service_id}`)).thresholds.length;
    for (const field of (await get(`fields?service_id=${service.service_id}`)).fields) {
      mappings += (await get(`mappings?field_id=${field.field_id}`)).mappings.length;
      thresholds += (await get(`thresholds?field_id=${field.field_id}`)).thresholds.length;
    }
  }
  return { requests, mappings, thresholds };
}
