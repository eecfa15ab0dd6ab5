/**
 * The price-list document's JSON Schema (docs/price-list.md §1), gathered from the registered
 * modules' sections, and the structural check against it (Ajv, every error at once). What JSON
 * Schema cannot say (exact decimals, dates, duplicates, references) the sections check after.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Type, type TSchema } from 'typebox';
import type { ModuleSet } from '../contract/module-set.js';
import type { DocumentPath } from '../contract/price-list-section.js';
import { Priority } from '../module-states/schemas.js';
import { NamedMap } from '../common/schemas.js';
import type { PriceListProblems } from './problems.js';

/** The `$id` of the published schema. */
const SCHEMA_ID = 'https://tariff.openstack.invalid/price-list.schema.json';

/** A module's state in the document: both members optional (a member left out keeps its value). */
const ModuleStateEntry = Type.Object(
  { enabled: Type.Optional(Type.Boolean()), priority: Type.Optional(Priority) },
  { additionalProperties: false, description: 'A module left out keeps its state.' },
);

/**
 * The document's schema for `modules`: `revision` (export only), `modules`, then each section's
 * members in module name order.
 */
export function priceListSchema(modules: ModuleSet): TSchema {
  const members: Record<string, TSchema> = {
    revision: Type.Optional(Type.Integer({ minimum: 0, description: "The configuration's write counter at export; ignored on apply." })),
    at: Type.Optional(Type.String({ description: 'The time the export shows (ISO 8601); ignored on apply.' })),
    modules: Type.Optional(NamedMap({ pattern: '^[A-Za-z][A-Za-z0-9_]*$' }, ModuleStateEntry, 'Rating modules by name: enabled and priority.')),
  };
  for (const module of modules.all) {
    for (const [name, schema] of Object.entries(module.priceList?.members ?? {})) members[name] = Type.Optional(schema);
  }
  return Type.Object(members, {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_ID,
    title: 'Tariff price list',
    description: 'The rating configuration of a Tariff (CloudKitty-compatible) service: docs/price-list.md.',
    additionalProperties: false,
  });
}

/** `/services/compute/mappings/3` → `['services', 'compute', 'mappings', 3]` (indexes where `value` has arrays). */
function pathOf(pointer: string, value: unknown): (string | number)[] {
  const path: (string | number)[] = [];
  let node = value;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      path.push(Number(segment));
      node = node[Number(segment)];
    } else {
      path.push(segment);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}

function typeNames(type: unknown): string {
  return [type].flat().join(' or ');
}

/** One Ajv error as a problem: its path in the document and a short message. */
function problemOf(error: ErrorObject, value: unknown): { path: DocumentPath; message: string } {
  const path = pathOf(error.instancePath, value);
  // A name's own fault (too long, too short): at the name, with the limit (fix, issue 24: `services`, without the name).
  if (error.propertyName !== undefined) return { path: [...path, error.propertyName], message: `name ${error.message ?? 'is not valid'}` };
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: [...path, String(error.params.additionalProperty)], message: 'unknown key' };
    case 'required':
      return { path: [...path, String(error.params.missingProperty)], message: 'required' };
    case 'type':
      return { path, message: `must be ${typeNames(error.params.type)}` };
    case 'enum':
      return { path, message: `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}` };
    case 'pattern':
      return { path, message: 'has an invalid format' };
    case 'propertyNames':
      return { path: [...path, String(error.params.propertyName)], message: 'not a valid name' };
    default:
      return { path, message: error.message ?? `invalid (${error.keyword})` };
  }
}

/** The document schema compiled once per module set. */
export class PriceListSchema {
  /** The JSON Schema, as published. */
  readonly schema: TSchema;
  private readonly validate: ValidateFunction;

  /** @param modules - the registered modules, or the schema they give (in a worker thread, reading.ts). */
  constructor(modules: ModuleSet | TSchema) {
    this.schema = 'all' in modules ? priceListSchema(modules) : modules;
    this.validate = new Ajv2020({ allErrors: true, strict: false }).compile(this.schema);
  }

  /**
   * Checks `value` against the schema; every error becomes a problem. So that the sections can
   * still report their own problems in the same answer, the parts in error are then left out:
   * an unknown key alone, anything else with the rule (or service, field, module) holding it.
   *
   * @returns the value without the parts in error (the value itself when it holds; a rule left
   *   out of a list is `undefined` there, so that the others keep their index), or undefined
   *   when not even its top level is an object.
   */
  check(value: unknown, problems: PriceListProblems): unknown {
    if (this.validate(value)) return value;
    const errors = this.validate.errors ?? [];
    // A name's own fault says more than the `propertyNames` error Ajv adds after it.
    const namedFaults = new Set(errors.flatMap((error) => (error.propertyName !== undefined ? [`${error.instancePath}/${error.propertyName}`] : [])));
    for (const error of errors) {
      if (error.keyword === 'propertyNames' && namedFaults.has(`${error.instancePath}/${String(error.params.propertyName)}`)) continue;
      const { path, message } = problemOf(error, value);
      problems.add(path, message);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const rest = structuredClone(value);
    for (const error of errors) leaveOut(rest, error);
    return rest;
  }
}

/** Deletes what an error is about from `root`: the unknown key, or the entry (rule, service, module) holding the fault. */
function leaveOut(root: unknown, error: ErrorObject): void {
  const path = pathOf(error.instancePath, root);
  const target = error.keyword === 'additionalProperties' ? [...path, String(error.params.additionalProperty)] : path.slice(0, entryLength(path));
  if (target.length === 0) return;
  let container: unknown = root;
  for (const segment of target.slice(0, -1))
    container = container === null || typeof container !== 'object' ? undefined : (container as Record<string, unknown>)[segment];
  const last = target[target.length - 1];
  if (Array.isArray(container) && typeof last === 'number') container.splice(last, 1, undefined);
  else if (container !== null && typeof container === 'object') delete (container as Record<string, unknown>)[last];
}

/** Members whose members are entries (a module, a service, a field), beside array items. */
const NAMED_ENTRIES = new Set(['modules', 'services', 'fields']);

/** The length of the path's deepest prefix that ends at an entry: an array item or a named entry; the whole path when none. */
function entryLength(path: readonly (string | number)[]): number {
  for (let index = path.length - 1; index >= 1; index -= 1) {
    const parentKey = path[index - 1];
    if (typeof path[index] === 'number' || (typeof parentKey === 'string' && NAMED_ENTRIES.has(parentKey))) return index + 1;
  }
  return path.length;
}
