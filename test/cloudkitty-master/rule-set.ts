/**
 * A hashmap rule set written through Tariff's API for the tests that price with CloudKitty
 * master's processor on the same database: versioned, ended, scheduled and soft-deleted mappings,
 * tenant overrides, groups, field and service thresholds, and field mappings on numbers written in
 * Python's `str()` forms (`2.0`, `1e+16`, `1e-05`...). Every boundary instant is returned, so the
 * tests can rate on both sides of each.
 */

/** Sends one JSON request to Tariff and returns status and body. */
export type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

const H = '/v1/rating/module_config/hashmap';

/** Instants (UTC) where some rule starts or ends. */
export const BOUNDARIES = {
  /** compute's first service price starts. */
  firstPrice: '2030-01-01T00:00:00+00:00',
  /** it ends and the second starts. */
  secondPrice: '2030-06-01T00:00:00+00:00',
  /** tenant-x's own m1.tiny price starts. */
  tenantOverride: '2031-01-01T00:00:00+00:00',
  /** the scheduled m1.small price ends. */
  smallEnds: '2031-03-01T12:30:45+00:00',
} as const;

/** Rating times: one second before every boundary and at it, plus one before any of them. */
export function ratingTimes(): string[] {
  const times = ['2026-12-01T00:00:00+00:00'];
  for (const boundary of Object.values(BOUNDARIES)) {
    const instant = new Date(boundary).getTime();
    times.push(new Date(instant - 1000).toISOString().replace('.000Z', '+00:00'), boundary);
  }
  return times;
}

/** Tenants the tests rate for: none (global rules only) and two with rules of their own. */
export const TENANTS = [null, 'tenant-x', 'tenant-y'] as const;

/**
 * Field mapping values of `size`, each as CloudKitty matches it: Python's `str()` of the JSON
 * number a point carries (a float keeps its `.0`, goes to exponent form from 1e16 and below 1e-4).
 */
export const SIZE_VALUES = [
  '2',
  '2.0',
  '1e+16',
  '10000000000000000',
  '1e-05',
  '0.0001',
  '1500.0',
  '1500',
  '-0.0',
  '0',
  '0.0',
  '12345678901234567890',
  '1e+22',
  '123456789.12345679',
  '5e-324',
  '1.7976931348623157e+308',
  '0.1',
  '0.30000000000000004',
] as const;

async function created(call: Call, path: string, body: unknown): Promise<any> {
  const answer = await call('POST', path, body);
  if (answer.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(body)} → ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Writes the rule set through Tariff's API and enables hashmap. */
export async function writeRuleSet(call: Call): Promise<void> {
  const service = (name: string) => created(call, `${H}/services`, { name });
  const compute = await service('compute');
  const volume = await service('volume');
  const image = await service('image');
  const field = (serviceId: string, name: string) => created(call, `${H}/fields`, { service_id: serviceId, name });
  const flavor = await field(compute.service_id, 'flavor');
  const size = await field(compute.service_id, 'size');
  const vcpus = await field(compute.service_id, 'vcpus');
  const instance = await created(call, `${H}/groups`, { name: 'instance' });
  const sizes = await created(call, `${H}/groups`, { name: 'sizes' });
  const discount = await created(call, `${H}/groups`, { name: 'discount' });
  const mapping = (body: Record<string, unknown>) => created(call, `${H}/mappings?force=true`, body);
  const threshold = (body: Record<string, unknown>) => created(call, `${H}/thresholds`, body);

  await mapping({ service_id: compute.service_id, cost: '1.00', type: 'flat', start: BOUNDARIES.firstPrice, end: BOUNDARIES.secondPrice });
  await mapping({ service_id: compute.service_id, cost: '1.5', type: 'flat', start: BOUNDARIES.secondPrice, description: 'second price' });
  await mapping({ field_id: flavor.field_id, value: 'm1.tiny', cost: '1.42', type: 'flat', group_id: instance.group_id, start: '2020-01-01' });
  await mapping({
    field_id: flavor.field_id,
    value: 'm1.tiny',
    cost: '2',
    type: 'flat',
    group_id: instance.group_id,
    tenant_id: 'tenant-x',
    start: BOUNDARIES.tenantOverride,
  });
  await mapping({ field_id: flavor.field_id, value: 'm1.small', cost: '1.1', type: 'rate', start: '2020-01-01', end: BOUNDARIES.smallEnds });
  const deleted = await mapping({ field_id: flavor.field_id, value: 'm1.large', cost: '3', type: 'flat', start: '2020-01-01' });
  const deletion = await call('DELETE', `${H}/mappings/${deleted.mapping_id}`);
  if (deletion.status !== 204) throw new Error(`DELETE mapping → ${deletion.status}`);
  for (const [index, value] of SIZE_VALUES.entries()) {
    await mapping({
      field_id: size.field_id,
      value,
      cost: `0.${String(index + 1).padStart(2, '0')}`,
      type: 'flat',
      group_id: sizes.group_id,
      start: '2020-01-01',
    });
  }
  await threshold({ field_id: vcpus.field_id, level: '2', cost: '0.9', type: 'rate' });
  await threshold({ field_id: vcpus.field_id, level: '4', cost: '3', type: 'flat' });
  await threshold({ field_id: vcpus.field_id, level: '3.5', cost: '5', type: 'flat', tenant_id: 'tenant-x' });
  await mapping({ service_id: volume.service_id, cost: '0.01', type: 'rate', group_id: discount.group_id, start: '2020-01-01' });
  await threshold({ service_id: volume.service_id, level: '100', cost: '0.95', type: 'rate', group_id: discount.group_id });
  await threshold({ service_id: volume.service_id, level: '200', cost: '0.9', type: 'rate', group_id: discount.group_id });
  await mapping({ service_id: image.service_id, cost: '0.7', type: 'flat', tenant_id: 'tenant-y', start: '2020-01-01' });
  await mapping({ service_id: image.service_id, cost: '0.2', type: 'flat', start: '2020-01-01' });
  const enabled = await call('PUT', '/v2/rating/modules/hashmap', { enabled: true });
  if (enabled.status !== 204) throw new Error(`enabling hashmap → ${enabled.status}`);
}

/** Sends one JSON request to CloudKitty 17's API and returns its answer; throws on a fault. */
export type CloudKittyCall = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * The same kinds of rules written through CloudKitty 17's own API (no validity dates before
 * CloudKitty 23: every rule is adopted as starting at the epoch), for the adoption test.
 */
export async function writeCloudKitty17RuleSet(call: CloudKittyCall): Promise<void> {
  const compute = await call('POST', `${H}/services/`, { name: 'compute' });
  const volume = await call('POST', `${H}/services/`, { name: 'volume' });
  const image = await call('POST', `${H}/services/`, { name: 'image' });
  const field = (serviceId: string, name: string) => call('POST', `${H}/fields/`, { service_id: serviceId, name });
  const flavor = await field(compute.service_id, 'flavor');
  const size = await field(compute.service_id, 'size');
  const vcpus = await field(compute.service_id, 'vcpus');
  const instance = await call('POST', `${H}/groups/`, { name: 'instance' });
  const sizes = await call('POST', `${H}/groups/`, { name: 'sizes' });
  const discount = await call('POST', `${H}/groups/`, { name: 'discount' });
  const mapping = (body: Record<string, unknown>) => call('POST', `${H}/mappings/`, body);
  const threshold = (body: Record<string, unknown>) => call('POST', `${H}/thresholds/`, body);
  await mapping({ service_id: compute.service_id, cost: '1.5', type: 'flat' });
  await mapping({ field_id: flavor.field_id, value: 'm1.tiny', cost: '1.42', type: 'flat', group_id: instance.group_id });
  await mapping({ field_id: flavor.field_id, value: 'm1.tiny', cost: '2', type: 'flat', group_id: instance.group_id, tenant_id: 'tenant-x' });
  await mapping({ field_id: flavor.field_id, value: 'm1.small', cost: '1.1', type: 'rate' });
  for (const [index, value] of SIZE_VALUES.entries()) {
    await mapping({ field_id: size.field_id, value, cost: `0.${String(index + 1).padStart(2, '0')}`, type: 'flat', group_id: sizes.group_id });
  }
  await threshold({ field_id: vcpus.field_id, level: '2', cost: '0.9', type: 'rate' });
  await threshold({ field_id: vcpus.field_id, level: '4', cost: '3', type: 'flat' });
  await threshold({ field_id: vcpus.field_id, level: '3.5', cost: '5', type: 'flat', tenant_id: 'tenant-x' });
  await mapping({ service_id: volume.service_id, cost: '0.01', type: 'rate', group_id: discount.group_id });
  await threshold({ service_id: volume.service_id, level: '100', cost: '0.95', type: 'rate', group_id: discount.group_id });
  await threshold({ service_id: volume.service_id, level: '200', cost: '0.9', type: 'rate', group_id: discount.group_id });
  await mapping({ service_id: image.service_id, cost: '0.7', type: 'flat', tenant_id: 'tenant-y' });
  await mapping({ service_id: image.service_id, cost: '0.2', type: 'flat' });
  await call('PUT', '/v1/rating/modules/hashmap', { module_id: 'hashmap', enabled: true, priority: 1 });
}
