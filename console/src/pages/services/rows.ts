/**
 * The services page's rows: the hashmap catalog flattened in reading order (each service, its own
 * mappings and thresholds, then each of its fields with theirs), every rule with the names the
 * page shows and a lower-case text to search, and the filter that narrows them.
 */
import { groupName, type Catalog, type Field, type Mapping, type Service, type Threshold } from '../../catalog.js';
import { validityState, type ValidityState } from '../../validity.js';
import { formatDecimal } from '../../format.js';

/** A service's heading row, with how many rules it holds (its fields' included). */
export interface ServiceRow {
  kind: 'service';
  key: string;
  service: Service;
  ruleCount: number;
}

/** A field's heading row, under its service. */
export interface FieldRow {
  kind: 'field';
  key: string;
  service: Service;
  field: Field;
  ruleCount: number;
}

/** What a mapping row and a threshold row share: where the rule sits and the names shown. */
interface RuleRowBase {
  key: string;
  service: Service;
  /** The field, for a field rule; undefined for a service rule. */
  field: Field | undefined;
  /** The group's name, `—` for none. */
  group: string;
  /** Every searchable text of the rule, lower case, joined by newlines (made by the first search). */
  searchText?: string;
}

/** A mapping, with its validity state at the time the rows were built. */
export interface MappingRow extends RuleRowBase {
  kind: 'mapping';
  mapping: Mapping;
  state: ValidityState;
}

/** A threshold (thresholds have no validity, hence no state). */
export interface ThresholdRow extends RuleRowBase {
  kind: 'threshold';
  threshold: Threshold;
}

/** A rule row. */
export type RuleRow = MappingRow | ThresholdRow;

/** One row of the services table. */
export type ServicesRow = ServiceRow | FieldRow | RuleRow;

/** What the page's filters ask: a search text and the kinds and states kept (`all` keeps any). */
export interface RowFilter {
  search: string;
  kind: 'all' | 'mapping' | 'threshold';
  state: 'all' | ValidityState;
}

/** The filter that keeps every row. */
export const NO_FILTER: RowFilter = { search: '', kind: 'all', state: 'all' };

const byName = <T extends { name: string }>(left: T, right: T) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0);

const compareText = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/**
 * A text's key for natural order, compared as plain strings: lower case, each run of digits
 * padded to 20 so that `m2` sorts before `m10`. (Ten times faster than an `Intl.Collator` with
 * `numeric`, which took 150 ms over 10,000 mappings.)
 */
function naturalKey(text: string | null): string {
  return text === null ? '' : text.toLowerCase().replace(/\d+/g, (digits) => digits.padStart(20, '0'));
}

/** Mappings by value (naturally), tenant, then start. */
function sortMappings(mappings: Mapping[]): Mapping[] {
  return mappings
    .map((mapping) => ({ mapping, key: `${naturalKey(mapping.value)}\u0000${naturalKey(mapping.tenant_id)}\u0000${mapping.start ?? ''}` }))
    .sort((left, right) => compareText(left.key, right.key))
    .map((keyed) => keyed.mapping);
}

/** Thresholds by level (numerically), then tenant. */
function compareThresholds(left: Threshold, right: Threshold): number {
  return Number(left.level ?? 0) - Number(right.level ?? 0) || compareText(naturalKey(left.tenant_id), naturalKey(right.tenant_id));
}

/** The rule's searchable texts: where it sits, its kind, and what it says, by names. */
function searchTextOf(row: RuleRow): string {
  const parts: (string | null)[] = [row.service.name, row.field?.name ?? null, row.kind, row.group === '—' ? null : row.group];
  if (row.kind === 'mapping') parts.push(row.mapping.value, row.mapping.name, row.mapping.description, row.mapping.tenant_id);
  else parts.push(row.threshold.level === null ? null : formatDecimal(row.threshold.level), row.threshold.tenant_id);
  return parts
    .filter((part) => part !== null)
    .join('\n')
    .toLowerCase();
}

/**
 * Every row of the catalog in reading order. Mapping states are taken at `now` (epoch ms).
 * Rules whose parent the catalog does not hold are left out (none, in a consistent catalog).
 */
export function buildRows(catalog: Catalog, now: number = Date.now()): ServicesRow[] {
  const mappingsByParent = new Map<string, Mapping[]>();
  const thresholdsByParent = new Map<string, Threshold[]>();
  const push = <T>(index: Map<string, T[]>, parentId: string | null, item: T) => {
    if (parentId === null) return;
    const list = index.get(parentId);
    if (list === undefined) index.set(parentId, [item]);
    else list.push(item);
  };
  for (const mapping of catalog.mappings) push(mappingsByParent, mapping.field_id ?? mapping.service_id, mapping);
  for (const threshold of catalog.thresholds) push(thresholdsByParent, threshold.field_id ?? threshold.service_id, threshold);
  const fieldsByService = new Map<string, Field[]>();
  for (const field of catalog.fields) push(fieldsByService, field.service_id, field);

  const rows: ServicesRow[] = [];
  const ruleRows = (service: Service, field: Field | undefined, parentId: string): RuleRow[] => {
    const mappings = sortMappings(mappingsByParent.get(parentId) ?? []).map((mapping): MappingRow => ({
      kind: 'mapping',
      key: `m${mapping.mapping_id}`,
      service,
      field,
      group: groupName(catalog, mapping.group_id),
      mapping,
      state: validityState(mapping.start, mapping.end, now),
    }));
    const thresholds = (thresholdsByParent.get(parentId) ?? []).sort(compareThresholds).map((threshold): ThresholdRow => ({
      kind: 'threshold',
      key: `t${threshold.threshold_id}`,
      service,
      field,
      group: groupName(catalog, threshold.group_id),
      threshold,
    }));
    return [...mappings, ...thresholds];
  };

  for (const service of [...catalog.services].sort(byName)) {
    const serviceRow: ServiceRow = { kind: 'service', key: `s${service.service_id}`, service, ruleCount: 0 };
    rows.push(serviceRow);
    const own = ruleRows(service, undefined, service.service_id);
    for (const rule of own) rows.push(rule);
    serviceRow.ruleCount += own.length;
    for (const field of (fieldsByService.get(service.service_id) ?? []).sort(byName)) {
      const rules = ruleRows(service, field, field.field_id);
      rows.push({ kind: 'field', key: `f${field.field_id}`, service, field, ruleCount: rules.length });
      for (const rule of rules) rows.push(rule);
      serviceRow.ruleCount += rules.length;
    }
  }
  return rows;
}

/** Whether `filter` narrows anything. */
export function isFiltering(filter: RowFilter): boolean {
  return filter.search.trim() !== '' || filter.kind !== 'all' || filter.state !== 'all';
}

/** Whether a rule row passes the filter; `search` already trimmed and in lower case. */
function keepsRule(row: RuleRow, filter: RowFilter, search: string): boolean {
  if (filter.kind !== 'all' && row.kind !== filter.kind) return false;
  if (filter.state !== 'all' && (row.kind !== 'mapping' || row.state !== filter.state)) return false;
  if (search === '') return true;
  row.searchText ??= searchTextOf(row);
  return row.searchText.includes(search);
}

/**
 * The rows `filter` keeps, in order: the rules it passes, each under its service's and field's
 * heading rows; with only a search, a service or field whose name matches is kept with all its
 * rules, even none. Without any filter, every row.
 */
export function filterRows(rows: ServicesRow[], filter: RowFilter): ServicesRow[] {
  if (!isFiltering(filter)) return rows;
  const search = filter.search.trim().toLowerCase();
  const headingsMatch = filter.kind === 'all' && filter.state === 'all' && search !== '';
  const kept: ServicesRow[] = [];
  let serviceHeading: ServiceRow | undefined;
  let fieldHeading: FieldRow | undefined;
  let serviceMatches = false;
  let fieldMatches = false;
  const keepHeadings = () => {
    if (serviceHeading !== undefined) kept.push(serviceHeading);
    if (fieldHeading !== undefined) kept.push(fieldHeading);
    serviceHeading = undefined;
    fieldHeading = undefined;
  };
  for (const row of rows) {
    switch (row.kind) {
      case 'service':
        serviceHeading = row;
        fieldHeading = undefined;
        serviceMatches = headingsMatch && row.service.name.toLowerCase().includes(search);
        fieldMatches = false;
        if (serviceMatches) keepHeadings();
        break;
      case 'field':
        fieldHeading = row;
        fieldMatches = headingsMatch && (serviceMatches || row.field.name.toLowerCase().includes(search));
        if (fieldMatches) keepHeadings();
        break;
      case 'mapping':
      case 'threshold':
        if (keepsRule(row, filter, search)) {
          keepHeadings();
          kept.push(row);
        }
        break;
    }
  }
  return kept;
}

/** How many rule rows (mappings and thresholds) `rows` holds. */
export function countRules(rows: ServicesRow[]): number {
  let count = 0;
  for (const row of rows) if (row.kind === 'mapping' || row.kind === 'threshold') count += 1;
  return count;
}
