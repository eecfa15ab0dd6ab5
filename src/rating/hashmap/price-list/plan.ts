/**
 * The diff of the hashmap rules (docs/price-list.md §3): what an apply at `effective_at` changes
 * so that the stored rules are the document's from then on. Pure: the stored rules are read
 * before, the writes come after (`write.ts`).
 */
import { formatApiDateTime } from '../../common/datetime.js';
import type { DocumentPath, PriceListChange } from '../../contract/price-list-section.js';
import { generatedRuleName } from '../validation.js';
import { fieldKey, type StoredParents } from './stored.js';
import {
  mappingIdentity,
  mappingPath,
  shortDecimal,
  thresholdIdentity,
  thresholdPath,
  type DocumentMapping,
  type DocumentThreshold,
  type HashmapSection,
  type ParentName,
  type StoredMapping,
  type StoredThreshold,
} from './rules.js';

/** A mapping to insert: the document's attributes with its final name and validity. */
export interface NewMapping extends Omit<DocumentMapping, 'start' | 'name'> {
  name: string;
  start: Date;
}

/** Everything an apply writes to the hashmap tables. */
export interface HashmapWrites {
  groups: string[];
  services: string[];
  fields: ParentName[];
  /** Mappings soft-deleted (scheduled ones that never started). */
  deleteMappings: number[];
  /** Mappings whose `end` becomes the effective time. */
  endMappings: number[];
  /** Mappings whose `end` moves elsewhere. */
  moveEnds: { id: number; end: Date | null }[];
  insertMappings: NewMapping[];
  deleteThresholds: number[];
  updateThresholds: { id: number; rule: DocumentThreshold }[];
  insertThresholds: DocumentThreshold[];
}

/** The changes and the writes they take. */
export interface HashmapPlan {
  changes: PriceListChange[];
  unversioned: string[];
  writes: HashmapWrites;
}

function sameTime(left: Date | null, right: Date | null): boolean {
  return left === null || right === null ? left === right : left.getTime() === right.getTime();
}

function dateText(date: Date | null): string | null {
  return date === null ? null : formatApiDateTime(date);
}

/** A mapping in a diff's terms (API attribute names, parent and group by name). */
function mappingTerms(rule: StoredMapping | NewMapping): Record<string, unknown> {
  return {
    ...('mappingId' in rule ? { mapping_id: rule.mappingId } : {}),
    service: rule.parent.service,
    field: rule.parent.field,
    value: rule.value,
    type: rule.type,
    cost: shortDecimal(rule.cost),
    tenant_id: rule.tenantId,
    group: rule.group,
    name: rule.name,
    description: rule.description,
    start: dateText(rule.start),
    end: dateText(rule.end),
  };
}

function thresholdTerms(rule: StoredThreshold | DocumentThreshold): Record<string, unknown> {
  return {
    ...('thresholdId' in rule ? { threshold_id: rule.thresholdId } : {}),
    service: rule.parent.service,
    field: rule.parent.field,
    level: shortDecimal(rule.level),
    type: rule.type,
    cost: shortDecimal(rule.cost),
    tenant_id: rule.tenantId,
    group: rule.group,
  };
}

/** Whether a document mapping says what a stored one says, `end` aside. */
function sameRule(stored: StoredMapping, wanted: DocumentMapping): boolean {
  return (
    stored.type === wanted.type &&
    stored.cost === wanted.cost &&
    stored.description === wanted.description &&
    (wanted.name === null || wanted.name === stored.name)
  );
}

/** Plans the hashmap changes; `problem` reports a document fault only the stored rules show. */
export class HashmapPlanner {
  private readonly changes: PriceListChange[] = [];
  private readonly unversioned: string[] = [];
  private readonly writes: HashmapWrites = {
    groups: [],
    services: [],
    fields: [],
    deleteMappings: [],
    endMappings: [],
    moveEnds: [],
    insertMappings: [],
    deleteThresholds: [],
    updateThresholds: [],
    insertThresholds: [],
  };
  /** The rules valid from the effective time on, by name: a name is shared only by rules valid at different times. */
  private readonly named: { name: string; start: Date; end: Date | null; path: DocumentPath }[] = [];

  constructor(
    private readonly effectiveAt: Date,
    private readonly problem: (path: DocumentPath, message: string) => void,
  ) {}

  /** The plan for `section` against the stored parents and rules. */
  plan(section: HashmapSection, parents: StoredParents, mappings: readonly StoredMapping[], thresholds: readonly StoredThreshold[]): HashmapPlan {
    this.planParents(section, parents);
    this.planMappings(section.mappings, mappings);
    this.planThresholds(section.thresholds, thresholds);
    this.checkNames();
    return { changes: this.changes, unversioned: this.unversioned, writes: this.writes };
  }

  private planParents(section: HashmapSection, parents: StoredParents): void {
    for (const group of section.groups) {
      if (parents.groups.has(group)) continue;
      this.writes.groups.push(group);
      this.changes.push({ action: 'created', resource: 'group', path: `groups[${group}]`, after: { name: group } });
    }
    for (const service of section.services) {
      if (!parents.services.has(service.name)) {
        this.writes.services.push(service.name);
        this.changes.push({ action: 'created', resource: 'service', path: `services[${service.name}]`, after: { name: service.name } });
      }
      for (const field of service.fields) {
        if (parents.fields.has(fieldKey(service.name, field))) continue;
        this.writes.fields.push({ service: service.name, field });
        this.changes.push({
          action: 'created',
          resource: 'field',
          path: `services[${service.name}].fields[${field}]`,
          after: { service: service.name, name: field },
        });
      }
    }
  }

  private planMappings(wanted: readonly DocumentMapping[], stored: readonly StoredMapping[]): void {
    const at = this.effectiveAt.getTime();
    const storedBy = groupBy(stored, mappingIdentity);
    // A document rule over by the effective time describes the past: ignored.
    const wantedBy = groupBy(
      wanted.filter((rule) => rule.end === null || rule.end.getTime() > at),
      mappingIdentity,
    );
    for (const [identity, rules] of wantedBy) {
      const kept = storedBy.get(identity) ?? [];
      storedBy.delete(identity);
      this.planIdentity(rules, kept);
    }
    for (const rules of storedBy.values()) this.planIdentity([], rules);
  }

  /** One identity: the rule in force at the effective time, then the scheduled ones by start. */
  private planIdentity(wanted: readonly DocumentMapping[], stored: readonly StoredMapping[]): void {
    const at = this.effectiveAt.getTime();
    const inForce = stored.filter((rule) => rule.start.getTime() <= at);
    const scheduled = new Map(stored.filter((rule) => rule.start.getTime() > at).map((rule) => [rule.start.getTime(), rule]));
    const wantedNow = wanted.find((rule) => rule.start === null || rule.start.getTime() <= at);
    const [current, ...extra] = inForce;
    for (const rule of extra) this.endMapping(rule);
    if (wantedNow) this.planRule(wantedNow, current, this.effectiveAt);
    else if (current) this.endMapping(current);
    for (const rule of wanted) {
      if (rule === wantedNow || rule.start === null) continue;
      const match = scheduled.get(rule.start.getTime());
      scheduled.delete(rule.start.getTime());
      this.planRule(rule, match, rule.start);
    }
    for (const rule of scheduled.values()) this.deleteMapping(rule);
  }

  /** A document rule against the stored one it continues (same identity, in force or same start). */
  private planRule(wanted: DocumentMapping, stored: StoredMapping | undefined, start: Date): void {
    if (stored && sameRule(stored, wanted)) {
      this.named.push({ name: stored.name, start: stored.start, end: wanted.end, path: wanted.path });
      if (sameTime(stored.end, wanted.end)) return;
      this.writes.moveEnds.push({ id: stored.id, end: wanted.end });
      this.changes.push({
        action: 'updated',
        resource: 'mapping',
        path: mappingPath(stored, stored.start.getTime() > this.effectiveAt.getTime() ? stored.start : undefined),
        before: mappingTerms(stored),
        after: { ...mappingTerms(stored), end: dateText(wanted.end) },
      });
      return;
    }
    const created: NewMapping = { ...wanted, name: wanted.name ?? stored?.name ?? generatedRuleName(), start };
    this.named.push({ name: created.name, start, end: created.end, path: wanted.path });
    this.writes.insertMappings.push(created);
    const path = mappingPath(wanted, start.getTime() > this.effectiveAt.getTime() ? start : undefined);
    if (!stored) {
      this.changes.push({ action: 'added', resource: 'mapping', path, after: mappingTerms(created) });
      return;
    }
    // The stored rule stops where the new one starts: ended if it ran before, deleted if it never did.
    if (stored.start.getTime() < start.getTime()) this.writes.endMappings.push(stored.id);
    else this.writes.deleteMappings.push(stored.id);
    this.changes.push({ action: 'replaced', resource: 'mapping', path, before: mappingTerms(stored), after: mappingTerms(created) });
  }

  private endMapping(rule: StoredMapping): void {
    if (rule.start.getTime() >= this.effectiveAt.getTime()) return this.deleteMapping(rule);
    this.writes.endMappings.push(rule.id);
    this.changes.push({
      action: 'ended',
      resource: 'mapping',
      path: mappingPath(rule),
      before: mappingTerms(rule),
      after: { ...mappingTerms(rule), end: dateText(this.effectiveAt) },
    });
  }

  private deleteMapping(rule: StoredMapping): void {
    this.writes.deleteMappings.push(rule.id);
    this.changes.push({ action: 'deleted', resource: 'mapping', path: mappingPath(rule, rule.start), before: mappingTerms(rule) });
  }

  private planThresholds(wanted: readonly DocumentThreshold[], stored: readonly StoredThreshold[]): void {
    const storedBy = groupBy(stored, thresholdIdentity);
    for (const rule of wanted) {
      const identity = thresholdIdentity(rule);
      const [match, ...extra] = storedBy.get(identity) ?? [];
      storedBy.delete(identity);
      for (const duplicate of extra) this.deleteThreshold(duplicate);
      const path = thresholdPath(rule);
      if (!match) {
        this.writes.insertThresholds.push(rule);
        this.changes.push({ action: 'added', resource: 'threshold', path, after: thresholdTerms(rule) });
        this.unversioned.push(path);
      } else if (match.type !== rule.type || match.cost !== rule.cost || match.group !== rule.group) {
        this.writes.updateThresholds.push({ id: match.id, rule });
        this.changes.push({
          action: 'updated',
          resource: 'threshold',
          path,
          before: thresholdTerms(match),
          after: thresholdTerms({ ...rule, thresholdId: match.thresholdId, id: match.id }),
        });
        this.unversioned.push(path);
      }
    }
    for (const rules of storedBy.values()) for (const rule of rules) this.deleteThreshold(rule);
  }

  private deleteThreshold(rule: StoredThreshold): void {
    const path = thresholdPath(rule);
    this.writes.deleteThresholds.push(rule.id);
    this.changes.push({ action: 'deleted', resource: 'threshold', path, before: thresholdTerms(rule) });
    this.unversioned.push(path);
  }

  /** Reports a name given to two rules valid at the same time from the effective time on. */
  private checkNames(): void {
    const byName = groupBy(this.named, (entry) => entry.name);
    for (const entries of byName.values()) {
      if (entries.length < 2) continue;
      entries.sort((left, right) => left.start.getTime() - right.start.getTime());
      for (let index = 1; index < entries.length; index += 1) {
        const previous = entries[index - 1];
        if (previous.end === null || previous.end.getTime() > entries[index].start.getTime()) {
          this.problem([...entries[index].path, 'name'], `name '${entries[index].name}' is used by another rule valid at the same time`);
        }
      }
    }
  }
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
