/**
 * Requests for the fuzzer of issue 11, derived from Tariff's own OpenAPI document
 * (`GET /v1/openapi.json`): for each path and method, fast-check arbitraries of path parameters,
 * query strings, headers (the acting user, the request id), content types and bodies. A body
 * starts as a value shaped by the operation's request body schema (ids of seeded objects,
 * decimals, datetimes, desc values that meet the seeded thresholds) and then gets hostile values
 * substituted at random places, keys renamed, removed or added, or is replaced whole by raw bytes.
 */
import fc from 'fast-check';
import {
  HOSTILE_CLASSES,
  IdRef,
  Raw,
  Repeat,
  UrlPiece,
  anyHostileValue,
  encodeJson,
  exponentValue,
  hugeDecimalText,
  hugeJsonNumber,
  invalidUtf8Bytes,
  hostileKey,
  hostileQueryName,
  hostileUrlText,
  hostileValue,
  objectOf,
  oddDatetime,
  percentEncode,
  prototypeName,
  rawBody,
  trickyText,
  type HostileClass,
  type IdKind,
  type IdResolver,
  type Node,
  type UrlText,
} from './arbitraries.js';

/** The part of a JSON schema the fuzzer reads. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  minimum?: number;
  maxLength?: number;
  nullable?: boolean;
  description?: string;
}

/** One operation of the API: what the fuzzer aims requests at. */
export interface Route {
  method: string;
  /** The OpenAPI path, e.g. `/v1/rating/module_config/hashmap/services/{service_id}`. */
  path: string;
  pathParameters: string[];
  queryParameters: string[];
  body?: Schema;
}

/** `METHOD /path`, the route's name in reports. */
export function routeName(route: Route): string {
  return `${route.method} ${route.path}`;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
}

/**
 * Every operation of the OpenAPI document, plus the routes it leaves out: version discovery,
 * the health check, the document itself, the `/v1/billing` alias of the v1 quote and the noop
 * module's configuration.
 */
export function routesOf(document: OpenApiDocument): Route[] {
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
      const parameters = operation.parameters ?? [];
      routes.push({
        method: method.toUpperCase(),
        path,
        pathParameters: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  const quote = routes.find((route) => route.method === 'POST' && route.path === '/v1/rating/quote');
  const extra: Route[] = [
    ...['/', '/v1', '/v2', '/healthcheck', '/v1/openapi.json'].map((path) => ({ method: 'GET', path, pathParameters: [], queryParameters: [] })),
    ...(quote ? [{ ...quote, path: '/v1/billing/quote' }] : []),
    { method: 'POST', path: '/v1/rating/module_config/noop/{rest}', pathParameters: ['rest'], queryParameters: [] },
  ];
  for (const route of extra) if (!routes.some((known) => known.method === route.method && known.path === route.path)) routes.push(route);
  return routes;
}

// ---------------------------------------------------------------------------------------------
// Valid-shaped values, by attribute name

const DECIMAL_KEYS = new Set(['cost', 'level', 'volume', 'qty', 'price']);
const ID_KINDS: Record<string, IdKind> = {
  service_id: 'service',
  field_id: 'field',
  group_id: 'group',
  mapping_id: 'mapping',
  threshold_id: 'threshold',
  script_id: 'script',
  module_id: 'module',
};
const DATETIME_KEYS = new Set(['start', 'end', 'at', 'begin']);
const BOOLEAN_PARAMETERS = new Set(['no_group', 'filter_tenant', 'deleted', 'is_active', 'all', 'no_data', 'force', 'recursive']);

/** An id of a seeded object of the kind (mostly), of nothing, or not an id at all. */
function idValue(kind: IdKind): fc.Arbitrary<Node> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.nat({ max: 3 }).map((index) => new IdRef(kind, index)) },
    { weight: 1, arbitrary: fc.constant(new IdRef('unknown', 0)) },
    { weight: 1, arbitrary: fc.constantFrom<Node>('', 'not-a-uuid', 'F5600101-8FA2-4864-899E-EBCB7ED6B568', '{f5600101-8fa2-4864-899e-ebcb7ed6b568}') },
  );
}

/** A decimal a rule or a quote accepts, or nearly. */
const decimalValue: fc.Arbitrary<Node> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Node>('0', '1', '1.5', '0.1', '10', '11', '5', '0.5', 2, 0.25, 10, '1E1', '10.000000000000000000001') },
  { weight: 3, arbitrary: fc.tuple(fc.nat({ max: 100_000 }), fc.nat({ max: 999 })).map(([whole, fraction]) => `${whole}.${fraction}`) },
  { weight: 1, arbitrary: fc.constantFrom<Node>('-0.5', '999999999999', -1) },
  { weight: 1, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }) },
);

/** A datetime rules and quotes accept (mostly in the future, so versioned rules may start then). */
const datetimeValue: fc.Arbitrary<Node> = fc.oneof(
  fc.integer({ min: 1, max: 3650 }).map((days) => new Date(Date.UTC(2031, 0, 1) + days * 86_400_000).toISOString().replace('.000Z', '+00:00')),
  fc.constantFrom('2030-06-01T00:00:00', '2030-06-01 12:00:00', '2020-01-01T00:00:00+00:00', '2030-06-01T00:00:00+02:00'),
);

/** An end after any {@link datetimeValue} but the odd ones, so most versioned rules are valid. */
const endValue: fc.Arbitrary<Node> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.integer({ min: 1, max: 3650 }).map((days) => new Date(Date.UTC(2041, 0, 1) + days * 86_400_000).toISOString().replace('.000Z', '+00:00')),
  },
  { weight: 1, arbitrary: datetimeValue },
);

/** Python sources: ones that compile and run quickly, and ones that do not compile. */
const scriptSource: fc.Arbitrary<Node> = fc.constantFrom(
  'pass\n',
  'x = 1\n',
  "from decimal import Decimal\nfor p in data['usage'].get('compute', []):\n    p['rating']['price'] = p['rating']['price'] + Decimal('0.01')\n",
  'def f(:\n',
  'import os\n',
  '',
  '\u0000',
);

/** Desc, groupby or metadata values that meet the seeded rules: the mapped flavor, numbers near the thresholds. */
const descObject: fc.Arbitrary<Node> = fc
  .record(
    {
      flavor: fc.constantFrom<Node>('m1.tiny', 'm1.nano', 'M1.TINY', null, 1),
      memory: fc.constantFrom<Node>('512', '10', '9.99', 10, 11, '1e1', true),
      other: fc.string({ maxLength: 5 }),
    },
    { requiredKeys: [] },
  )
  .map((record) => objectOf(Object.entries<Node>(record as Record<string, Node>)));

/** A dataframe point of a v2 quote. */
const point: fc.Arbitrary<Node> = fc
  .record(
    {
      vol: fc.record({ unit: fc.constant<Node>('instance'), qty: decimalValue }, { requiredKeys: ['qty'] }),
      rating: fc.record({ price: decimalValue }),
      groupby: descObject,
      metadata: descObject,
    },
    { requiredKeys: ['vol'] },
  )
  .map((record) => objectOf(Object.entries(record) as [string, Node][]));

/** A service name of a quote: the seeded ones mostly. */
const serviceName: fc.Arbitrary<Node> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('compute') },
  { weight: 1, arbitrary: fc.constantFrom('volume', 'image', 'Compute') },
);

/** A value shaped by `schema`, chosen by the attribute's name where the schema says little. */
export function validValue(schema: Schema, name: string): fc.Arbitrary<Node> {
  if (ID_KINDS[name] && name !== 'module_id') return idValue(ID_KINDS[name]);
  if (DECIMAL_KEYS.has(name)) return decimalValue;
  if (name === 'end') return endValue;
  if (DATETIME_KEYS.has(name)) return datetimeValue;
  if (schema.enum) return fc.constantFrom(...(schema.enum as Node[]));
  switch (name) {
    case 'service':
      return serviceName;
    case 'usage':
      return fc
        .array(fc.tuple(serviceName.map(String), fc.array(point, { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 2 })
        .map((entries) => objectOf(entries as [string, Node][]));
    case 'desc':
      return fc.oneof(
        descObject,
        fc.tuple(descObject, descObject).map(([groupby, metadata]) =>
          objectOf([
            ['groupby', groupby],
            ['metadata', metadata],
          ]),
        ),
      );
    case 'groupby':
    case 'metadata':
      return descObject;
    case 'vol':
    case 'rating':
    case 'period':
      break;
    case 'name':
      return fc.oneof(fc.stringMatching(/^fz-[a-z0-9]{1,12}$/), fc.constantFrom('compute', 'flavor', 'fz-group'));
    case 'value':
      return fc.constantFrom<Node>('m1.tiny', 'm1.large', null, 'x');
    case 'tenant_id':
      return fc.constantFrom<Node>(null, 'tenant-a', 'f5600101-8fa2-4864-899e-ebcb7ed6b568');
    case 'description':
      return fc.constantFrom<Node>(null, 'fuzz', '');
    case 'data':
      return scriptSource;
    case 'priority':
      return fc.integer({ min: 1, max: 1000 });
  }
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((option) => validValue(option, name)));
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: 1000 });
    case 'number':
      return decimalValue;
    case 'string':
      return fc.string({ maxLength: Math.min(schema.maxLength ?? 20, 20) });
    case 'array':
      return fc.array(validValue(schema.items ?? {}, name), { minLength: 1, maxLength: 3 });
    case 'object': {
      const properties = Object.entries(schema.properties ?? {}).filter(([, property]) => !property.description?.startsWith('read-only'));
      if (!properties.length) return fc.constant(objectOf([]));
      const required = new Set(schema.required ?? []);
      // Each optional attribute present half of the time, so valid writes happen too. A rule hangs
      // off a service or a field (mostly not both), and only a field's rules have a value.
      const ruleParents = properties.some(([key]) => key === 'service_id') && properties.some(([key]) => key === 'field_id');
      return fc
        .tuple(
          fc.nat({ max: 7 }),
          ...properties.map(([key, property]) => fc.tuple(required.has(key) ? fc.constant(true) : fc.boolean(), validValue(property, key))),
        )
        .map(([parent, ...values]) =>
          objectOf(
            properties.flatMap(([key], index) => {
              let present = values[index][0];
              if (ruleParents && parent < 6 && (key === 'service_id' || key === 'field_id' || key === 'value')) present = (key === 'service_id') === parent < 3;
              return present ? [[key, values[index][1]] as [string, Node]] : [];
            }),
          ),
        );
    }
    default:
      // No type (or one not listed): any small JSON value.
      return fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Node>;
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations

/** One change to a valid body: picks its place with `at` (modulo the places there are). */
export interface Mutation {
  op: 'replace' | 'setKey' | 'deleteKey' | 'renameKey';
  at: number;
  key: string;
  value: Node;
}

interface Place {
  parent: Node[] | { [key: string]: Node } | undefined;
  key: string | number;
  node: Node;
}

function isContainer(node: Node): node is Node[] | { [key: string]: Node } {
  return node !== null && typeof node === 'object' && !(node instanceof Raw) && !(node instanceof Repeat) && !(node instanceof IdRef);
}

function clone(node: Node): Node {
  if (Array.isArray(node)) return node.map(clone);
  if (isContainer(node)) return objectOf(Object.keys(node).map((key) => [key, clone(node[key])]));
  return node;
}

function places(root: Node): Place[] {
  const found: Place[] = [{ parent: undefined, key: '', node: root }];
  const visit = (node: Node) => {
    if (Array.isArray(node)) {
      node.forEach((child, index) => {
        found.push({ parent: node, key: index, node: child });
        visit(child);
      });
    } else if (isContainer(node)) {
      for (const key of Object.keys(node)) {
        found.push({ parent: node, key, node: node[key] });
        visit(node[key]);
      }
    }
  };
  visit(root);
  return found;
}

/** Places where a decimal or a compared desc value lives (the first targets of the `exponent` class). */
function isNumericPlace(place: Place): boolean {
  return typeof place.key === 'string' && NUMERIC_KEYS.has(place.key);
}

/** Attributes holding numbers: decimals, the module priority, and the desc value the seeded thresholds compare. */
const NUMERIC_KEYS = new Set([...DECIMAL_KEYS, 'priority', 'memory']);

/** Objects whose keys the caller chooses: service names of a v2 quote, desc keys. */
const CALLER_KEYED = new Set(['usage', 'desc', 'groupby', 'metadata']);

/** Places where caller text names something (the first targets of the `prototype` class). */
function isNamePlace(place: Place): boolean {
  return typeof place.key === 'string' && ['service', 'name', 'tenant_id', 'value', 'flavor', 'unit'].includes(place.key);
}

function setAt(root: { node: Node }, place: Place, value: Node): void {
  if (!place.parent) root.node = value;
  else if (Array.isArray(place.parent)) place.parent[place.key as number] = value;
  else Object.defineProperty(place.parent, place.key, { value, enumerable: true, writable: true, configurable: true });
}

/** The places a class is about: numbers for exponents, names for prototype names and odd text. */
function preferredPlaces(all: Place[], prefer: HostileClass | undefined): Place[] {
  switch (prefer) {
    case 'exponent':
      return all.filter(isNumericPlace);
    case 'prototype':
    case 'nul':
    case 'surrogate':
    case 'utf8':
      return all.filter(isNamePlace);
    case 'long':
      return all.filter((place) => isNumericPlace(place) || isNamePlace(place));
    default:
      return [];
  }
}

/**
 * Applies mutations to a copy of a body. `prefer` steers each mutation's place towards the places
 * its class is about (numeric places for exponents, names for prototype names), when the body has
 * any: three times out of four, or always when `strict`.
 */
export function mutate(body: Node, mutations: readonly Mutation[], prefer?: HostileClass, strict = false): Node {
  const root = { node: clone(body) };
  for (const mutation of mutations) {
    const all = places(root.node);
    const preferred = preferredPlaces(all, prefer);
    const candidates = preferred.length && (strict || mutation.at % 4 !== 3) ? preferred : all;
    const place = candidates[mutation.at % candidates.length];
    // An aimed value with nowhere to go (an optional attribute left out) is added under its key.
    if (strict && !preferred.length && mutation.op === 'replace' && mutation.key && isContainer(root.node) && !Array.isArray(root.node)) {
      setAt(root, { parent: root.node, key: mutation.key, node: null }, mutation.value);
      continue;
    }
    const objects = all.filter((candidate) => isContainer(candidate.node) && !Array.isArray(candidate.node));
    // Prototype names as keys go first where the caller names the keys (services, desc keys).
    const callerNamed = prefer === 'prototype' ? objects.filter((candidate) => typeof candidate.key === 'string' && CALLER_KEYED.has(candidate.key)) : [];
    const containers = callerNamed.length && (strict || mutation.at % 4 !== 3) ? callerNamed : objects;
    const objectPlace = containers.length ? containers[mutation.at % containers.length] : undefined;
    switch (mutation.op) {
      case 'replace':
        setAt(root, place, mutation.value);
        break;
      case 'setKey':
        if (objectPlace) setAt({ node: null }, { parent: objectPlace.node as { [key: string]: Node }, key: mutation.key, node: null }, mutation.value);
        else if (Array.isArray(place.node)) place.node.push(mutation.value);
        else setAt(root, place, objectOf([[mutation.key, mutation.value]]));
        break;
      case 'deleteKey':
      case 'renameKey': {
        if (!objectPlace) break;
        const target = objectPlace.node as { [key: string]: Node };
        const keys = Object.keys(target);
        if (!keys.length) break;
        const key = keys[mutation.at % keys.length];
        const value = target[key];
        delete target[key];
        if (mutation.op === 'renameKey') setAt({ node: null }, { parent: target, key: mutation.key, node: null }, value);
        break;
      }
    }
  }
  return root.node;
}

/** The keys a schema (and its nested schemas) knows, for misspelled and misplaced keys. */
function schemaKeys(schema: Schema | undefined): string[] {
  if (!schema) return [];
  const keys = new Set<string>();
  const visit = (node: Schema) => {
    for (const [key, property] of Object.entries(node.properties ?? {})) {
      keys.add(key);
      visit(property);
    }
    if (node.items) visit(node.items);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties);
    node.anyOf?.forEach(visit);
  };
  visit(schema);
  return [...keys];
}

/** A mutation carrying a value or key of `klass`. */
function mutationOf(klass: HostileClass, knownKeys: string[]): fc.Arbitrary<Mutation> {
  const at = fc.nat({ max: 1000 });
  const value = hostileValue(klass);
  if (klass === 'missing') return at.map((position) => ({ op: 'deleteKey' as const, at: position, key: '', value: null }));
  if (klass === 'extra')
    return fc.record({ op: fc.constant('setKey' as const), at, key: hostileKey(klass, knownKeys), value: fc.oneof(value, validValue({}, 'name')) });
  if (klass === 'prototype' || klass === 'nul' || klass === 'surrogate' || klass === 'long') {
    return fc.record({
      op: fc.constantFrom('replace' as const, 'replace' as const, 'renameKey' as const, 'setKey' as const),
      at,
      key: hostileKey(klass, knownKeys),
      value,
    });
  }
  return fc.record({
    op: fc.constantFrom('replace' as const, 'replace' as const, 'replace' as const, 'setKey' as const),
    at,
    key: hostileKey(klass, knownKeys),
    value,
  });
}

/**
 * One mutation aimed at what a class is about, for the first requests of each class: exponents
 * replace numbers, prototype names replace names or caller-chosen keys, text classes replace names.
 */
function targetedMutation(klass: HostileClass, knownKeys: string[]): fc.Arbitrary<Mutation> {
  const at = fc.nat({ max: 1000 });
  switch (klass) {
    case 'exponent': {
      const numeric = knownKeys.filter((key) => NUMERIC_KEYS.has(key));
      // As many JSON numbers as numeric strings: integer attributes take only the former.
      const value = fc.oneof(hugeDecimalText as fc.Arbitrary<Node>, hugeJsonNumber);
      return fc.record({ op: fc.constant('replace' as const), at, key: numeric.length ? fc.constantFrom(...numeric) : fc.constant(''), value });
    }
    case 'prototype':
      return fc.record({ op: fc.constantFrom('replace' as const, 'renameKey' as const), at, key: prototypeName, value: prototypeName });
    case 'nul':
    case 'surrogate':
    case 'utf8':
    case 'long':
    case 'deep':
    case 'wrongType':
      return fc.record({ op: fc.constant('replace' as const), at, key: fc.constant(''), value: hostileValue(klass) });
    default:
      return mutationOf(klass, knownKeys);
  }
}

/** A random mutation of any class. */
function anyMutation(knownKeys: string[]): fc.Arbitrary<Mutation> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant('replace' as const),
        at: fc.nat({ max: 1000 }),
        key: fc.constant(''),
        value: fc.oneof(anyHostileValue, exponentValue),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constantFrom('setKey' as const, 'renameKey' as const),
        at: fc.nat({ max: 1000 }),
        key: hostileKey('extra', knownKeys),
        value: anyHostileValue,
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('deleteKey' as const), at: fc.nat({ max: 1000 }), key: fc.constant(''), value: fc.constant(null) }) },
  );
}

// ---------------------------------------------------------------------------------------------
// Requests

/** A generated request, still symbolic (ids unresolved, long strings unexpanded). */
export interface RequestSpec {
  route: string;
  method: string;
  /** Path parameter values by name. */
  path: Record<string, UrlText>;
  /** Query pairs in order; a missing value sends the name alone. */
  query: [UrlText, UrlText | undefined][];
  body?: Node;
  /** The content type; undefined sends none. */
  contentType?: string;
  /** Extra headers (the acting user, the request id). */
  headers?: Record<string, UrlText>;
  /** The class this request was built to carry, if any. */
  hostile?: HostileClass;
}

/** A request ready to send. */
export interface ResolvedRequest {
  method: string;
  /** Path and query, ASCII or latin1 characters only (Node sends them as bytes). */
  url: string;
  body?: Buffer;
  contentType?: string;
  /** Header values as latin1 strings (each character one byte on the wire). */
  headers?: Record<string, string>;
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/JSON',
  'application/json, text/plain',
  'multipart/form-data; boundary=x',
];

/** A valid path parameter value. */
function validPathValue(route: Route, name: string): fc.Arbitrary<UrlText> {
  if (name === 'module_id')
    return fc.oneof(
      { weight: 6, arbitrary: fc.nat({ max: 2 }).map((index) => new IdRef('module', index)) },
      { weight: 1, arbitrary: fc.constantFrom('HASHMAP', 'unknown') },
    );
  if (name === 'rest') return fc.constantFrom('mappings', 'services', 'x/y');
  const kind = ID_KINDS[name];
  return kind
    ? (idValue(kind) as fc.Arbitrary<UrlText>).map((value) => (typeof value === 'string' || value instanceof IdRef ? value : String(value)))
    : fc.constant('x');
}

/** A valid query value for a parameter of this name. */
function validQueryValue(name: string): fc.Arbitrary<UrlText> {
  if (BOOLEAN_PARAMETERS.has(name)) return fc.constantFrom('true', 'false', '1', '0', 'True');
  if (name === 'module_id') return fc.nat({ max: 2 }).map((index) => new IdRef('module', index));
  if (ID_KINDS[name]) return idValue(ID_KINDS[name]).map((value) => (value instanceof IdRef ? value : String(value)));
  if (DATETIME_KEYS.has(name)) return datetimeValue.map(String);
  if (name === 'tenant_id') return fc.constantFrom('tenant-a', 'f5600101-8fa2-4864-899e-ebcb7ed6b568');
  return fc.constantFrom('fuzz', 'admin', 'x');
}

/** Query pairs: some of the route's parameters with valid values. */
function validQuery(route: Route): fc.Arbitrary<[UrlText, UrlText | undefined][]> {
  if (!route.queryParameters.length) return fc.constant([]);
  return fc
    .subarray(route.queryParameters, { maxLength: Math.min(4, route.queryParameters.length) })
    .chain((names) =>
      names.length ? fc.tuple(...names.map((name) => validQueryValue(name).map((value) => [name, value] as [UrlText, UrlText | undefined]))) : fc.constant([]),
    );
}

/** `arbitrary` `present` times out of `present + absent`, else undefined. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, present: number, absent: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: absent, arbitrary: fc.constant(undefined) }, { weight: present, arbitrary });
}

/** Headers Tariff reads in noauth mode: the acting user (stored as `created_by`...) and the request id it echoes. */
const HEADER_NAMES = ['x-user-id', 'x-openstack-request-id'] as const;

/** A header value of a class (NUL and other control characters cannot be sent at all). */
function hostileHeaderValue(klass: HostileClass): fc.Arbitrary<UrlText> {
  switch (klass) {
    case 'prototype':
      return prototypeName;
    case 'long':
      return fc.constantFrom(256, 257, 4096, 20_000).map((times) => new Repeat('u', times));
    case 'utf8':
      return invalidUtf8Bytes.map((bytes) => new UrlPiece(bytes.toString('latin1')));
    case 'surrogate':
      return fc.constant(new UrlPiece(Buffer.from([0x75, 0xed, 0xa0, 0x80]).toString('latin1')));
    default:
      return fc.oneof(prototypeName, fc.constantFrom('', ' ', 'req-not-a-uuid', 'req-5f0d6e7a-3b1c-4d2e-9f8a-0b1c2d3e4f50', "admin' --", '%', 'é'));
  }
}

/** Headers carrying values of a class (any class when none). */
function hostileHeaders(klass?: HostileClass): fc.Arbitrary<Record<string, UrlText>> {
  const value = klass ? hostileHeaderValue(klass) : fc.constantFrom<HostileClass>('prototype', 'long', 'utf8', 'surrogate', 'extra').chain(hostileHeaderValue);
  return fc.tuple(fc.constantFrom(...HEADER_NAMES), value).map(([name, text]) => ({ [name]: text }));
}

/** Where a forced hostile value goes. */
type Location = 'body' | 'query' | 'path' | 'queryName' | 'header';

/**
 * Requests for a route. With `klass`, every request carries at least one value of that class, in
 * the body (mostly, when the route takes one; always with `inBody`), the query or the path;
 * without, a mix of valid requests and requests with random hostile values anywhere.
 */
export function requestArbitrary(route: Route, klass?: HostileClass, options: { inBody?: boolean } = {}): fc.Arbitrary<RequestSpec> {
  const knownKeys = schemaKeys(route.body);
  const bodyOf = route.body ? validValue(route.body, 'body') : fc.constant(undefined);
  const pathOf = route.pathParameters.length
    ? fc
        .tuple(...route.pathParameters.map((name) => validPathValue(route, name)))
        .map((values) => Object.fromEntries(route.pathParameters.map((name, index) => [name, values[index]])) as Record<string, UrlText>)
    : fc.constant({});
  const contentType = fc.oneof(
    { weight: 20, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const base = fc.record({ path: pathOf, query: validQuery(route), body: bodyOf, contentType });

  if (klass) {
    const locations: Location[] = [];
    if (route.body || klass === 'raw') locations.push('body', 'body', 'body');
    if (klass !== 'missing') locations.push('query');
    if (klass === 'extra' || klass === 'prototype' || klass === 'utf8' || klass === 'nul') locations.push('queryName');
    if (route.pathParameters.length && klass !== 'missing' && klass !== 'extra') locations.push('path');
    if (klass === 'prototype' || klass === 'long' || klass === 'utf8' || klass === 'surrogate') locations.push('header');
    if (!locations.length) locations.push('query');
    if (options.inBody && route.body) locations.splice(0, locations.length, 'body');
    const mutations =
      options.inBody && route.body ? fc.tuple(targetedMutation(klass, knownKeys)) : fc.array(mutationOf(klass, knownKeys), { minLength: 1, maxLength: 2 });
    return fc
      .tuple(
        base,
        fc.constantFrom(...locations),
        mutations,
        hostileUrlText(klass),
        hostileQueryName(klass, route.queryParameters),
        fc.nat(),
        hostileHeaders(klass),
      )
      .map(([request, location, mutations, text, queryName, pick, headers]): RequestSpec => {
        const spec: RequestSpec = {
          route: routeName(route),
          method: route.method,
          ...request,
          contentType: request.contentType ?? 'application/json',
          hostile: klass,
        };
        if (location === 'body') {
          if (klass === 'raw' || request.body === undefined) spec.body = klass === 'raw' ? mutations[0].value : mutate(objectOf([]), mutations, klass);
          else spec.body = mutate(request.body, mutations, klass, options.inBody);
        } else if (location === 'path') {
          const name = route.pathParameters[pick % route.pathParameters.length];
          spec.path = { ...request.path, [name]: text };
        } else if (location === 'header') {
          spec.headers = headers;
        } else if (location === 'queryName') {
          spec.query = [...request.query, [queryName, pick % 2 ? text : 'x']];
        } else {
          const names = route.queryParameters.length ? route.queryParameters : ['service_id'];
          const query = [...request.query];
          if (klass === 'missing') query.pop();
          else query.splice(pick % (query.length + 1), 0, [names[pick % names.length], text]);
          spec.query = query;
        }
        if (klass === 'missing') {
          // Also leave out a path segment's worth: an empty id.
          const name = route.pathParameters[pick % Math.max(1, route.pathParameters.length)];
          if (name && pick % 3 === 0) spec.path = { ...spec.path, [name]: '' };
        }
        return spec;
      });
  }

  const randomQueryPair = fc.tuple(
    fc.oneof(
      { weight: 3, arbitrary: route.queryParameters.length ? fc.constantFrom<UrlText>(...route.queryParameters) : fc.constant<UrlText>('service_id') },
      { weight: 1, arbitrary: hostileQueryName('extra', route.queryParameters) },
    ),
    fc.option(
      fc.oneof(
        anyHostileValue.filter((value): value is string => typeof value === 'string'),
        fc.constantFrom(...HOSTILE_CLASSES).chain(hostileUrlText),
        trickyText,
        oddDatetime,
      ),
      { nil: undefined },
    ),
  );
  return fc
    .record({
      request: base,
      // A quarter of the requests are left valid, so writes and quotes succeed too.
      mutations: fc.oneof(
        { weight: 1, arbitrary: fc.constant([] as Mutation[]) },
        { weight: 3, arbitrary: fc.array(anyMutation(knownKeys), { minLength: 1, maxLength: 3 }) },
      ),
      extraQuery: fc.oneof(
        { weight: 3, arbitrary: fc.constant([] as [UrlText, UrlText | undefined][]) },
        { weight: 1, arbitrary: fc.array(randomQueryPair, { minLength: 1, maxLength: 3 }) },
      ),
      pathHostile: sometimes(fc.tuple(fc.nat(), fc.constantFrom(...HOSTILE_CLASSES).chain(hostileUrlText)), 1, 3),
      wholeBody: sometimes(rawBody, 1, 11),
      method: sometimes(fc.constantFrom('PATCH', 'OPTIONS', 'HEAD', 'PUT', 'DELETE', 'POST', 'GET'), 1, 24),
      headers: sometimes(hostileHeaders(), 1, 9),
    })
    .map(({ request, mutations, extraQuery, pathHostile, wholeBody, method, headers }): RequestSpec => {
      const spec: RequestSpec = { route: routeName(route), method: method ?? route.method, ...request, ...(headers ? { headers } : {}) };
      if (wholeBody) spec.body = wholeBody;
      else if (request.body !== undefined && mutations.length)
        spec.body = mutate(request.body, mutations, (['exponent', 'prototype', undefined] as const)[mutations[0].at % 3]);
      spec.query = [...request.query, ...extraQuery];
      if (pathHostile && route.pathParameters.length)
        spec.path = { ...request.path, [route.pathParameters[pathHostile[0] % route.pathParameters.length]]: pathHostile[1] };
      return spec;
    });
}

/** The text of a URL text before encoding. */
function urlTextOf(text: UrlText, resolve: IdResolver): string | UrlPiece {
  if (text instanceof UrlPiece) return text;
  if (text instanceof Repeat) return text.text();
  if (text instanceof IdRef) return resolve(text);
  return text;
}

function encodeUrlText(text: UrlText, resolve: IdResolver): string {
  const value = urlTextOf(text, resolve);
  return value instanceof UrlPiece ? value.text : percentEncode(value);
}

/** A header value as latin1 characters: text as its UTF-8 bytes, a {@link UrlPiece} as it is. */
function headerText(text: UrlText, resolve: IdResolver): string {
  const value = urlTextOf(text, resolve);
  return value instanceof UrlPiece ? value.text : Buffer.from(value, 'utf8').toString('latin1');
}

/** Turns a spec into bytes on the wire: ids resolved, path and query percent-encoded, the body written. */
export function resolveRequest(route: Route, spec: RequestSpec, resolve: IdResolver): ResolvedRequest {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeUrlText(spec.path[name] ?? '', resolve));
  const query = spec.query
    .map(([name, value]) => (value === undefined ? encodeUrlText(name, resolve) : `${encodeUrlText(name, resolve)}=${encodeUrlText(value, resolve)}`))
    .join('&');
  return {
    method: spec.method,
    url: query ? `${path}?${query}` : path,
    body: spec.body === undefined ? undefined : encodeJson(spec.body, resolve),
    contentType: spec.contentType,
    ...(spec.headers ? { headers: Object.fromEntries(Object.entries(spec.headers).map(([name, value]) => [name, headerText(value, resolve)])) } : {}),
  };
}
