/**
 * The diff of the hashmap rules (docs/price-list.md §3): what an apply at `effective_at` changes
 * so that the stored rules are the document's from then on. Pure: the stored rules are read
 * before, the writes come after (`write.ts`).
 */
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EventLoopTurns } from '../../../kernel/turns.js';
import { formatOptionalApiDateTime } from '../../common/datetime.js';
import { namesInUseTwice, planVersions, sameTime, type NamedValidity } from '../../common/versioned-plan.js';
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

/** A mapping to insert: the document's attributes with its final name and validity, and its `mapping_id` (chosen when planned). */
export interface NewMapping extends Omit<DocumentMapping, 'start' | 'name'> {
  name: string;
  start: Date;
  newId: string;
}

/** A threshold to insert, and its `threshold_id` (chosen when planned). */
export interface NewThreshold extends DocumentThreshold {
  newId: string;
}

/** A parent to create by name, and its id (chosen when planned, so that the audit trail names it). */
export interface NewParent<Name> {
  name: Name;
  newId: string;
}

/** Everything an apply writes to the hashmap tables. */
export interface HashmapWrites {
  groups: NewParent<string>[];
  services: NewParent<string>[];
  fields: NewParent<ParentName>[];
  /** Mappings soft-deleted (scheduled ones that never started). */
  deleteMappings: number[];
  /** Mappings whose `end` becomes the effective time. */
  endMappings: number[];
  /** Mappings whose `end` moves elsewhere. */
  moveEnds: { id: number; end: Date | null }[];
  insertMappings: NewMapping[];
  deleteThresholds: number[];
  updateThresholds: { id: number; rule: DocumentThreshold }[];
  insertThresholds: NewThreshold[];
}

/** The changes and the writes they take. */
export interface HashmapPlan {
  changes: PriceListChange[];
  /** The id of the object each change touches (the new version's for a replaced rule). */
  objectIds: Map<PriceListChange, string>;
  unversioned: string[];
  writes: HashmapWrites;
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
    start: formatOptionalApiDateTime(rule.start),
    end: formatOptionalApiDateTime(rule.end),
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

/** Mapping identities planned between two turns of the event loop (a few tens of milliseconds of work). */
const IDENTITIES_PER_TURN = 5000;

/** Plans the hashmap changes; `problem` reports a document fault only the stored rules show. */
export class HashmapPlanner {
  private readonly changes: PriceListChange[] = [];
  private readonly objectIds = new Map<PriceListChange, string>();
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
  private readonly named: NamedValidity<DocumentPath>[] = [];

  constructor(
    private readonly effectiveAt: Date,
    private readonly problem: (path: DocumentPath, message: string) => void,
  ) {}

  /**
   * The plan for `section` against the stored parents and rules. It lets the event loop turn every
   * {@link IDENTITIES_PER_TURN} mapping identities (fix, issue 24: a 280,000-rule plan held it for
   * seconds, `/healthcheck` with it).
   */
  async plan(
    section: HashmapSection,
    parents: StoredParents,
    mappings: readonly StoredMapping[],
    thresholds: readonly StoredThreshold[],
  ): Promise<HashmapPlan> {
    this.planParents(section, parents);
    await this.planMappings(section.mappings, mappings);
    await this.planThresholds(section.thresholds, thresholds);
    await this.checkNames();
    return { changes: this.changes, objectIds: this.objectIds, unversioned: this.unversioned, writes: this.writes };
  }

  /** Adds `change` to the diff, touching the object `objectId`. */
  private record(change: PriceListChange, objectId: string): void {
    this.changes.push(change);
    this.objectIds.set(change, objectId);
  }

  private planParents(section: HashmapSection, parents: StoredParents): void {
    for (const group of section.groups) {
      if (parents.groups.has(group)) continue;
      const newId = randomUUID();
      this.writes.groups.push({ name: group, newId });
      this.record({ action: 'created', resource: 'group', path: `groups[${group}]`, after: { name: group } }, newId);
    }
    for (const service of section.services) {
      if (!parents.services.has(service.name)) {
        const newId = randomUUID();
        this.writes.services.push({ name: service.name, newId });
        this.record({ action: 'created', resource: 'service', path: `services[${service.name}]`, after: { name: service.name } }, newId);
      }
      for (const field of service.fields) {
        if (parents.fields.has(fieldKey(service.name, field))) continue;
        const newId = randomUUID();
        this.writes.fields.push({ name: { service: service.name, field }, newId });
        this.record(
          {
            action: 'created',
            resource: 'field',
            path: `services[${service.name}].fields[${field}]`,
            after: { service: service.name, name: field },
          },
          newId,
        );
      }
    }
  }

  private async planMappings(wanted: readonly DocumentMapping[], stored: readonly StoredMapping[]): Promise<void> {
    const storedBy = await groupBy(stored, mappingIdentity);
    let planned = 0;
    for (const [identity, rules] of await groupBy(wanted, mappingIdentity)) {
      const kept = storedBy.get(identity) ?? [];
      storedBy.delete(identity);
      this.planIdentity(rules, kept);
      if (++planned % IDENTITIES_PER_TURN === 0) await nextTurn();
    }
    for (const rules of storedBy.values()) {
      this.planIdentity([], rules);
      if (++planned % IDENTITIES_PER_TURN === 0) await nextTurn();
    }
  }

  /** One identity's versions (common/versioned-plan.ts). */
  private planIdentity(wanted: readonly DocumentMapping[], stored: readonly StoredMapping[]): void {
    planVersions(wanted, stored, this.effectiveAt, {
      same: sameRule,
      keep: (kept, rule) => this.keepMapping(kept, rule),
      add: (rule, start, replaced) => this.addMapping(rule, start, replaced),
      end: (rule) => this.endMapping(rule),
      remove: (rule) => this.deleteMapping(rule),
    });
  }

  /** A stored mapping the document keeps; only its `end` may move. */
  private keepMapping(stored: StoredMapping, wanted: DocumentMapping): void {
    this.named.push({ name: stored.name, start: stored.start, end: wanted.end, path: wanted.path });
    if (sameTime(stored.end, wanted.end)) return;
    this.writes.moveEnds.push({ id: stored.id, end: wanted.end });
    this.record(
      {
        action: 'updated',
        resource: 'mapping',
        path: mappingPath(stored, stored.start.getTime() > this.effectiveAt.getTime() ? stored.start : undefined),
        before: mappingTerms(stored),
        after: { ...mappingTerms(stored), end: formatOptionalApiDateTime(wanted.end) },
      },
      stored.mappingId,
    );
  }

  /** A new mapping from `start`, replacing `stored` when there is one: ended if it ran before, deleted if it never did. */
  private addMapping(wanted: DocumentMapping, start: Date, stored: StoredMapping | undefined): void {
    const created: NewMapping = { ...wanted, name: wanted.name ?? stored?.name ?? generatedRuleName(), start, newId: randomUUID() };
    this.named.push({ name: created.name, start, end: created.end, path: wanted.path });
    this.writes.insertMappings.push(created);
    const path = mappingPath(wanted, start.getTime() > this.effectiveAt.getTime() ? start : undefined);
    if (!stored) {
      this.record({ action: 'added', resource: 'mapping', path, after: mappingTerms(created) }, created.newId);
      return;
    }
    if (stored.start.getTime() < start.getTime()) this.writes.endMappings.push(stored.id);
    else this.writes.deleteMappings.push(stored.id);
    this.record({ action: 'replaced', resource: 'mapping', path, before: mappingTerms(stored), after: mappingTerms(created) }, created.newId);
  }

  private endMapping(rule: StoredMapping): void {
    this.writes.endMappings.push(rule.id);
    this.record(
      {
        action: 'ended',
        resource: 'mapping',
        path: mappingPath(rule),
        before: mappingTerms(rule),
        after: { ...mappingTerms(rule), end: formatOptionalApiDateTime(this.effectiveAt) },
      },
      rule.mappingId,
    );
  }

  private deleteMapping(rule: StoredMapping): void {
    this.writes.deleteMappings.push(rule.id);
    this.record({ action: 'deleted', resource: 'mapping', path: mappingPath(rule, rule.start), before: mappingTerms(rule) }, rule.mappingId);
  }

  private async planThresholds(wanted: readonly DocumentThreshold[], stored: readonly StoredThreshold[]): Promise<void> {
    const storedBy = await groupBy(stored, thresholdIdentity);
    for (const rule of wanted) {
      const identity = thresholdIdentity(rule);
      const [match, ...extra] = storedBy.get(identity) ?? [];
      storedBy.delete(identity);
      for (const duplicate of extra) this.deleteThreshold(duplicate);
      const path = thresholdPath(rule);
      if (!match) {
        const newId = randomUUID();
        this.writes.insertThresholds.push({ ...rule, newId });
        this.record({ action: 'added', resource: 'threshold', path, after: thresholdTerms(rule) }, newId);
        this.unversioned.push(path);
      } else if (match.type !== rule.type || match.cost !== rule.cost || match.group !== rule.group) {
        this.writes.updateThresholds.push({ id: match.id, rule });
        this.record(
          {
            action: 'updated',
            resource: 'threshold',
            path,
            before: thresholdTerms(match),
            after: thresholdTerms({ ...rule, thresholdId: match.thresholdId, id: match.id }),
          },
          match.thresholdId,
        );
        this.unversioned.push(path);
      }
    }
    for (const rules of storedBy.values()) for (const rule of rules) this.deleteThreshold(rule);
  }

  private deleteThreshold(rule: StoredThreshold): void {
    const path = thresholdPath(rule);
    this.writes.deleteThresholds.push(rule.id);
    this.record({ action: 'deleted', resource: 'threshold', path, before: thresholdTerms(rule) }, rule.thresholdId);
    this.unversioned.push(path);
  }

  /** Reports a name given to two rules valid at the same time from the effective time on. */
  private async checkNames(): Promise<void> {
    for (const clash of await namesInUseTwice(this.named)) {
      this.problem([...clash.path, 'name'], `name '${clash.name}' is used by another rule valid at the same time`);
    }
  }
}

/** `items` by their key, in their order; the event loop turns every few thousand items. */
async function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Promise<Map<string, T[]>> {
  const turns = new EventLoopTurns();
  const groups = new Map<string, T[]>();
  for (const item of items) {
    await turns.step();
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
