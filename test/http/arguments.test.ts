/**
 * Where v1 arguments travel (api.md §1, issue 23 class 1): WSME reads a handler's arguments from
 * the path, the query string or the JSON body, a GET's too, and CloudKitty's tempest plugin sends
 * its GET filters in the body. For every v1 GET in the OpenAPI document, generated arguments split
 * between query and body (or given in both with the same text) must answer exactly what the query
 * alone answers; two different values are a 400; an unknown body member is the unknown-argument 400.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModuleNames } from '../../src/rating/registry.js';
import { H, P, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { expectFault } from '../helpers/fixtures.js';

interface Parameter {
  name: string;
  in: 'query' | 'path';
}

interface Route {
  template: string;
  parameters: Parameter[];
}

let t: TestApp;
let routes: Route[];
/** Candidate values by argument name, drawn from the data below plus text that names nothing. */
const values: Record<string, string[]> = {};

async function created(url: string, body: unknown, key: string): Promise<string> {
  const response = await t.post(url, body);
  expect(response.status, response.text).toBe(201);
  return response.body[key] as string;
}

beforeAll(async () => {
  t = await startTestApp();
  const services = [await created(`${H}/services/`, { name: 'compute' }, 'service_id'), await created(`${H}/services/`, { name: 'volume' }, 'service_id')];
  const fields = [await created(`${H}/fields/`, { name: 'flavor', service_id: services[0] }, 'field_id')];
  const groups = [await created(`${H}/groups/`, { name: 'instances' }, 'group_id'), await created(`${H}/groups/`, { name: 'volumes' }, 'group_id')];
  const mappings = [
    await created(`${H}/mappings/`, { service_id: services[0], cost: 1, group_id: groups[0] }, 'mapping_id'),
    await created(`${H}/mappings/`, { field_id: fields[0], value: 'm1.small', cost: 2, tenant_id: 'tenant-a' }, 'mapping_id'),
    await created(`${H}/mappings/`, { service_id: services[1], cost: 3, description: 'Volumes', group_id: groups[1] }, 'mapping_id'),
  ];
  const thresholds = [
    await created(`${H}/thresholds/`, { service_id: services[1], level: 10, cost: 1, group_id: groups[1] }, 'threshold_id'),
    await created(`${H}/thresholds/`, { field_id: fields[0], level: 2, cost: 1, tenant_id: 'tenant-a' }, 'threshold_id'),
  ];
  const scripts = [await created(`${P}/scripts/`, { name: 'discount', data: 'a = 1' }, 'script_id')];
  Object.assign(values, {
    service_id: [...services, 'instance'],
    field_id: [...fields, '42'],
    group_id: [...groups, 'nope'],
    mapping_id: [...mappings, 'notauuid'],
    threshold_id: [...thresholds],
    script_id: [...scripts],
    module_id: defaultModuleNames(),
    tenant_id: ['tenant-a', 'tenant-b'],
    description: ['volumes', 'VOL'],
    start: ['2020-01-01T00:00:00', '2999-01-01'],
    end: ['2999-01-01T00:00:00+00:00'],
    created_by: ['unknown', 'alice'],
    updated_by: ['unknown'],
    deleted_by: ['bob'],
  });
  const paths = (await t.get('/v1/openapi.json')).body.paths as Record<string, Record<string, { parameters?: Parameter[] }>>;
  routes = Object.entries(paths)
    .filter(([template, methods]) => template.startsWith('/v1/rating/') && methods.get)
    .map(([template, methods]) => ({
      template,
      parameters: (methods.get.parameters ?? []).filter((parameter) => parameter.in === 'query' || parameter.in === 'path'),
    }));
});
afterAll(() => t.close());

const BOOLEAN_TEXTS = ['true', 'True', '1', 'false', 'False', '0'];

/** A value for an argument: an id of the data, a boolean text, or other text. */
function valueFor(name: string): fc.Arbitrary<string> {
  const known = values[name];
  if (known) return fc.constantFrom(...known);
  if (['no_group', 'filter_tenant', 'deleted', 'is_active', 'all', 'no_data', 'force', 'recursive', 'detailed'].includes(name))
    return fc.constantFrom(...BOOLEAN_TEXTS);
  return fc.constantFrom('x', 'alice');
}

/** A body member's JSON value for a text: booleans as JSON booleans half the time (the client's form). */
function bodyValue(text: string, asJson: boolean): unknown {
  if (asJson && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

function query(entries: [string, string][]): string {
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}

function comparable(response: TestResponse) {
  return { status: response.status, body: response.body };
}

/** One generated request: a route, its path values, and each chosen argument's place. */
const requests = fc.integer({ min: 0, max: 1_000 }).chain((index) => {
  const route = routes[index % routes.length];
  const pathParameters = route.parameters.filter((parameter) => parameter.in === 'path');
  const queryParameters = route.parameters.filter((parameter) => parameter.in === 'query');
  return fc.record({
    route: fc.constant(route),
    path: fc.tuple(...pathParameters.map((parameter) => valueFor(parameter.name).map((value) => [parameter.name, value] as const))),
    // A query argument named like a path parameter is its redundant copy (api.md §1): the same value.
    arguments: fc.subarray(queryParameters.filter((parameter) => !pathParameters.some((inPath) => inPath.name === parameter.name))).chain((chosen) =>
      fc.tuple(
        ...chosen.map((parameter) =>
          fc.record({
            name: fc.constant(parameter.name),
            value: valueFor(parameter.name),
            place: fc.constantFrom('query', 'body', 'both'),
            asJson: fc.boolean(),
          }),
        ),
      ),
    ),
  });
});

function urlOf(template: string, path: readonly (readonly [string, string])[]): string {
  return path.reduce((url, [name, value]) => url.replace(`{${name}}`, encodeURIComponent(value)), template);
}

describe('v1 GET arguments from the path, the query string or the JSON body (api.md §1)', () => {
  it('covers every v1 GET route with query parameters', () => {
    const withQuery = routes.filter((route) => route.parameters.some((parameter) => parameter.in === 'query'));
    expect(withQuery.map((route) => route.template)).toEqual(
      expect.arrayContaining([`${H}/fields`, `${H}/mappings`, `${H}/thresholds`, `${H}/groups/mappings`, `${H}/mappings/group`, `${P}/scripts`]),
    );
  });

  it('answers the same wherever each argument travels', async () => {
    await fc.assert(
      fc.asyncProperty(requests, async ({ route, path, arguments: chosen }) => {
        const url = urlOf(route.template, path);
        const byQuery = await t.get(`${url}${query(chosen.map(({ name, value }) => [name, value]))}`);
        const inQuery = chosen.filter(({ place }) => place !== 'body').map(({ name, value }) => [name, value] as [string, string]);
        const inBody = Object.fromEntries(chosen.filter(({ place }) => place !== 'query').map(({ name, value, asJson }) => [name, bodyValue(value, asJson)]));
        const split = await t.request('GET', `${url}${query(inQuery)}`, Object.keys(inBody).length > 0 ? inBody : undefined);
        expect(comparable(split), `${url} query ${JSON.stringify(inQuery)} body ${JSON.stringify(inBody)}`).toEqual(comparable(byQuery));
      }),
      { numRuns: 300 },
    );
  });

  it('tempest: GET H/fields/ with {"service_id"} in the body lists that service\'s fields', async () => {
    const [serviceId] = values.service_id;
    const byBody = await t.request('GET', `${H}/fields/`, { service_id: serviceId });
    expect(byBody.status, byBody.text).toBe(200);
    expect(byBody.body.fields.map((field: { name: string }) => field.name)).toEqual(['flavor']);
  });

  it('tempest: filters in the body filter (GET H/mappings/ {"field_id"}, GET H/thresholds/ {"field_id"})', async () => {
    const [fieldId] = values.field_id;
    const mappings = await t.request('GET', `${H}/mappings/`, { field_id: fieldId, no_group: false, filter_tenant: false });
    expect(mappings.body.mappings.map((mapping: { value: string }) => mapping.value)).toEqual(['m1.small']);
    const thresholds = await t.request('GET', `${H}/thresholds/`, { field_id: fieldId });
    expect(thresholds.body.thresholds.map((threshold: { field_id: string }) => threshold.field_id)).toEqual([fieldId]);
  });

  it('two different values for one argument are a 400 naming it, wherever they come from', async () => {
    const [first, second] = values.service_id;
    expectFault(
      await t.request('GET', `${H}/fields/?service_id=${first}`, { service_id: second }),
      400,
      expect.stringMatching(/^Parameter service_id was given several times with different values/),
    );
    expectFault(
      await t.request('GET', `${H}/services/${first}/fields`, { service_id: second }),
      400,
      expect.stringMatching(/^Parameter service_id was given several times/),
    );
    expectFault(
      await t.request('GET', `${H}/mappings/?no_group=True`, { no_group: true }),
      400,
      expect.stringMatching(/^Parameter no_group was given several times/),
    );
  });

  it('a body that is not a JSON object, an unknown member or a nested value is a 400', async () => {
    expectFault(await t.request('GET', `${H}/mappings/`, [1]), 400, 'Request must be a JSON dict');
    expectFault(await t.request('GET', `${H}/mappings/`, '"text"'), 400, 'Request must be a JSON dict');
    expectFault(await t.request('GET', `${H}/mappings/`, { bogus: 1 }), 400, 'Unknown argument: "bogus"');
    expectFault(await t.request('GET', `${H}/types/`, { x: 'y' }), 400, 'Unknown argument: "x"');
    expectFault(await t.request('GET', `${H}/mappings/`, 'nojson'), 400, expect.stringMatching(/^Request is not in valid JSON format/));
    expectFault(await t.request('GET', `${H}/mappings/`, { service_id: { a: 1 } }), 400, expect.stringMatching(/service_id.*Wrong type/));
    expectFault(
      await t.request('GET', `${H}/mappings/`, '{"service_id": "x"}', { 'content-type': 'text/plain' }),
      415,
      expect.stringMatching(/Unknown mimetype: text\/plain/),
    );
  });

  it('a GET naming a content type with no body, or with null members, answers as without them', async () => {
    const plain = await t.get(`${H}/services/`);
    expect(comparable(await t.request('GET', `${H}/services/`, '', { 'content-type': 'text/plain' }))).toEqual(comparable(plain));
    expect(comparable(await t.request('GET', `${H}/services/`, { service_id: null }))).toEqual(comparable(await t.request('GET', `${H}/services/`, {})));
  });
});
