/**
 * Reads the hashmap members of a price-list document (already checked against the schema) into
 * rules: exact decimals from their source text, dates, the value rules of CloudKitty (a field
 * mapping has a value, a service mapping none), groups that the document lists, and no two rules
 * of one identity (or one name) valid at the same time. Every fault is reported, none thrown.
 * The event loop turns every few thousand rules (kernel/turns.ts; fix, issue 24: reading a
 * 280,000-rule section held it for about 0.9 s).
 */
import { COST_COLUMN, LEVEL_COLUMN, parseDecimal, type DecimalColumn } from '../../common/decimal.js';
import { readAttribute, readRuleDate, reportDuplicates } from '../../common/document-rules.js';
import { codePointLength, COLUMN_WIDTH, tooLongMessage } from '../../../database/column-widths.js';
import { EventLoopTurns } from '../../../kernel/turns.js';
import type { DocumentPath, DocumentReader } from '../../contract/price-list-section.js';
import type { RuleType } from '../schemas.js';
import { mappingIdentity, thresholdIdentity, type DocumentMapping, type DocumentThreshold, type HashmapSection, type ParentName } from './rules.js';

interface RawRules {
  mappings?: (Record<string, unknown> | undefined)[];
  thresholds?: (Record<string, unknown> | undefined)[];
}

interface RawService extends RawRules {
  fields?: Record<string, RawRules>;
}

/** A cost or level: a number by its source text, or a decimal string. */
function readDecimal(reader: DocumentReader, rule: Record<string, unknown>, path: DocumentPath, key: string, column: DecimalColumn): string {
  const raw = rule[key];
  const text = typeof raw === 'number' ? (reader.numberText([...path, key]) ?? String(raw)) : raw;
  return readAttribute(reader, [...path, key], () => parseDecimal(text, column, key)) ?? '0';
}

function optionalText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Reads the hashmap's members; problems go to `reader`. */
export class HashmapDocumentReader {
  private readonly groups: Set<string>;
  private readonly mappings: DocumentMapping[] = [];
  private readonly thresholds: DocumentThreshold[] = [];
  private readonly turns = new EventLoopTurns();

  constructor(
    private readonly reader: DocumentReader,
    groups: readonly string[],
  ) {
    this.groups = new Set(groups);
  }

  private readGroup(rule: Record<string, unknown>, path: DocumentPath): string | null {
    const group = optionalText(rule.group);
    if (group !== null && !this.groups.has(group)) this.reader.problem([...path, 'group'], `group '${group}' is not listed in groups`);
    return group;
  }

  private readMapping(parent: ParentName, rule: Record<string, unknown>, path: DocumentPath): void {
    const rawValue = rule.value;
    const value = typeof rawValue === 'number' ? (this.reader.numberText([...path, 'value']) ?? String(rawValue)) : optionalText(rawValue);
    // A number is its source text, which the schema's maxLength did not see (fix, issue 24: 300 digits were a 500).
    if (typeof rawValue === 'number' && value !== null && codePointLength(value) > COLUMN_WIDTH.mappingValue) {
      this.reader.problem([...path, 'value'], tooLongMessage(COLUMN_WIDTH.mappingValue));
    }
    if (parent.field !== null && value === null) this.reader.problem([...path, 'value'], 'a field mapping needs a value');
    if (parent.field === null && value !== null) this.reader.problem([...path, 'value'], 'a service mapping has no value');
    const start = readRuleDate(this.reader, rule, path, 'start');
    const end = readRuleDate(this.reader, rule, path, 'end');
    if (start !== null && end !== null && end.getTime() < start.getTime()) this.reader.problem([...path, 'end'], 'end is before start');
    this.mappings.push({
      path,
      parent,
      value,
      type: (rule.type ?? 'flat') as RuleType,
      cost: readDecimal(this.reader, rule, path, 'cost', COST_COLUMN),
      tenantId: optionalText(rule.tenant_id),
      group: this.readGroup(rule, path),
      name: optionalText(rule.name),
      description: optionalText(rule.description),
      start,
      end,
    });
  }

  private readThreshold(parent: ParentName, rule: Record<string, unknown>, path: DocumentPath): void {
    this.thresholds.push({
      path,
      parent,
      level: readDecimal(this.reader, rule, path, 'level', LEVEL_COLUMN),
      type: (rule.type ?? 'flat') as RuleType,
      cost: readDecimal(this.reader, rule, path, 'cost', COST_COLUMN),
      tenantId: optionalText(rule.tenant_id),
      group: this.readGroup(rule, path),
    });
  }

  private async readRules(parent: ParentName, rules: RawRules, path: DocumentPath): Promise<void> {
    // A rule the schema refused is left out as `undefined` (its problems are reported already).
    const mappings = rules.mappings ?? [];
    for (let index = 0; index < mappings.length; index += 1) {
      const rule = mappings[index];
      if (rule !== undefined) this.readMapping(parent, rule, [...path, 'mappings', index]);
      await this.turns.step();
    }
    const thresholds = rules.thresholds ?? [];
    for (let index = 0; index < thresholds.length; index += 1) {
      const rule = thresholds[index];
      if (rule !== undefined) this.readThreshold(parent, rule, [...path, 'thresholds', index]);
      await this.turns.step();
    }
  }

  /** Reads `services`. */
  async readServices(services: Record<string, RawService>): Promise<HashmapSection['services']> {
    const result: HashmapSection['services'] = [];
    for (const [service, body] of Object.entries(services)) {
      const path = ['services', service];
      await this.readRules({ service, field: null }, body, path);
      const fields = Object.keys(body.fields ?? {});
      for (const field of fields) await this.readRules({ service, field }, (body.fields ?? {})[field], [...path, 'fields', field]);
      result.push({ name: service, fields });
    }
    return result;
  }

  /** The rules read, once duplicates are reported. */
  async finish(groups: string[], services: HashmapSection['services']): Promise<HashmapSection> {
    await reportDuplicates(this.reader, this.mappings, (rule) => mappingIdentity(rule), 'same parent, value, tenant_id and group');
    await reportDuplicates(
      this.reader,
      this.mappings.filter((rule) => rule.name !== null),
      (rule) => rule.name ?? '',
      'same name',
    );
    await reportDuplicates(this.reader, this.thresholds, (rule) => thresholdIdentity(rule), 'one threshold per level and tenant_id on a service or field');
    return { groups, services, mappings: this.mappings, thresholds: this.thresholds };
  }
}

/** Reads `groups` (duplicates reported) and `services`. */
export async function readHashmapMembers(members: Readonly<Record<string, unknown>>, reader: DocumentReader): Promise<HashmapSection> {
  const groups = (members.groups as (string | undefined)[] | undefined) ?? [];
  const seen = new Set<string>();
  for (const [index, group] of groups.entries()) {
    if (group === undefined) continue;
    if (seen.has(group)) reader.problem(['groups', index], `group '${group}' is listed twice`);
    seen.add(group);
  }
  const hashmap = new HashmapDocumentReader(reader, [...seen]);
  const services = await hashmap.readServices((members.services as Record<string, RawService> | undefined) ?? {});
  return hashmap.finish([...seen], services);
}
