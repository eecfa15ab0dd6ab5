/**
 * The hashmap rules of a price list, as read from a document and as stored, with what identifies
 * them (docs/price-list.md §3): a mapping by its parent, value, tenant and group; a threshold by
 * its parent, level and tenant (CloudKitty's `uniq_*_threshold`: one per level and tenant, so the
 * group is an attribute that may change).
 */
import type { DocumentPath } from '../../contract/price-list-section.js';
import type { RuleType } from '../schemas.js';

/** A rule's parent by name: a service, or a field of a service. */
export interface ParentName {
  service: string;
  field: string | null;
}

/**
 * What a mapping and a threshold say wherever they come from: parent, type, cost (fixed-scale
 * text, 28 fraction digits: per unit of quantity per collection period for a flat, a factor for a
 * rate), tenant and group (by name).
 */
interface RuleTerms {
  parent: ParentName;
  type: RuleType;
  cost: string;
  tenantId: string | null;
  group: string | null;
}

/** A mapping's own terms beside {@link RuleTerms}. */
interface MappingTerms extends RuleTerms {
  value: string | null;
  description: string | null;
  end: Date | null;
}

/** A threshold's own term beside {@link RuleTerms}: its level, 8 fraction digits. */
interface ThresholdTerms extends RuleTerms {
  level: string;
}

/** A mapping as a document gives it. */
export interface DocumentMapping extends MappingTerms {
  path: DocumentPath;
  /** Absent: the stored rule's name when it replaces one, else generated. */
  name: string | null;
  /** Absent: in force from the apply's `effective_at`. */
  start: Date | null;
}

/** A threshold as a document gives it. */
export interface DocumentThreshold extends ThresholdTerms {
  path: DocumentPath;
}

/** The hashmap's part of a document, read. */
export interface HashmapSection {
  groups: string[];
  services: { name: string; fields: string[] }[];
  mappings: DocumentMapping[];
  thresholds: DocumentThreshold[];
}

/** A live mapping as stored (end null or after the time it was read for). */
export interface StoredMapping extends MappingTerms {
  id: number;
  mappingId: string;
  name: string;
  start: Date;
}

/** A threshold as stored. */
export interface StoredThreshold extends ThresholdTerms {
  id: number;
  thresholdId: string;
}

/** Joins key parts: NUL between them (checked text never holds one), SOH for null. */
function keyOf(...parts: (string | null)[]): string {
  return parts.map((part) => part ?? '\u0001').join('\u0000');
}

/** The key of a mapping's identity. */
export function mappingIdentity(rule: { parent: ParentName; value: string | null; tenantId: string | null; group: string | null }): string {
  return keyOf(rule.parent.service, rule.parent.field, rule.value, rule.tenantId, rule.group);
}

/** The key of a threshold's identity. */
export function thresholdIdentity(rule: { parent: ParentName; level: string; tenantId: string | null }): string {
  return keyOf(rule.parent.service, rule.parent.field, rule.level, rule.tenantId);
}

/** `services[compute].fields[flavor]` */
export function parentPath(parent: ParentName): string {
  return parent.field === null ? `services[${parent.service}]` : `services[${parent.service}].fields[${parent.field}]`;
}

/** A mapping's place in a diff: `services[compute].fields[flavor].mappings[value=m1.large,tenant_id=…]`. */
export function mappingPath(rule: { parent: ParentName; value: string | null; tenantId: string | null; group: string | null }, start?: Date): string {
  const parts = [
    ...(rule.value !== null ? [`value=${rule.value}`] : []),
    ...(rule.tenantId !== null ? [`tenant_id=${rule.tenantId}`] : []),
    ...(rule.group !== null ? [`group=${rule.group}`] : []),
    ...(start !== undefined ? [`start=${start.toISOString().slice(0, 19)}Z`] : []),
  ];
  return `${parentPath(rule.parent)}.mappings[${parts.join(',') || 'default'}]`;
}

/** A threshold's place in a diff: `services[volume].thresholds[level=200,tenant_id=…]`. */
export function thresholdPath(rule: { parent: ParentName; level: string; tenantId: string | null }): string {
  const parts = [`level=${shortDecimal(rule.level)}`, ...(rule.tenantId !== null ? [`tenant_id=${rule.tenantId}`] : [])];
  return `${parentPath(rule.parent)}.thresholds[${parts.join(',')}]`;
}

/** Fixed-scale text without its trailing zeros: `0.0500000` → `0.05`, `5.000` → `5`. */
export function shortDecimal(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}
