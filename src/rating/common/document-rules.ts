/**
 * What the modules' price-list sections share when they read a document (docs/price-list.md §1):
 * an attribute whose parse throws a 400 becomes a problem at its path, dates are read as the API
 * reads them, and no two rules of one key are valid at the same time.
 */
import { TariffError } from '../../kernel/errors.js';
import { EventLoopTurns } from '../../kernel/turns.js';
import type { DocumentPath, DocumentReader } from '../contract/price-list-section.js';
import { formatDocumentPath } from '../price-list/problems.js';
import { parseDateTime } from './datetime.js';
import { intervalsOverlap } from './versioning.js';

/** Runs `read`; a TariffError it throws (a 400 of the API's wording) becomes a problem at `path`. */
export function readAttribute<T>(reader: DocumentReader, path: DocumentPath, read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof TariffError)) throw error;
    reader.problem(path, error.message);
    return undefined;
  }
}

/**
 * The rule's `start` or `end` (absent or null: null), a bad date reported at its path: one the API
 * refuses, or one whose wall time in CloudKitty's zone the database cannot store
 * (StoredDateTimes.toStorage).
 */
export function readRuleDate(reader: DocumentReader, rule: Readonly<Record<string, unknown>>, path: DocumentPath, key: 'start' | 'end'): Date | null {
  const raw = rule[key];
  if (raw === undefined || raw === null) return null;
  const date = readAttribute(reader, [...path, key], () => {
    const parsed = parseDateTime(raw, key, key);
    reader.times.checkStorable(parsed, key);
    return parsed;
  });
  return date ?? null;
}

/** The beginning of time for a document rule without `start` ("already in force"). */
const EARLIEST = new Date(-8.64e15);

/** A document rule as the duplicate test sees it; rules without validity are valid always. */
interface DocumentRule {
  path: DocumentPath;
  start?: Date | null;
  end?: Date | null;
}

/**
 * Reports each rule valid at the same time (`intervalsOverlap`) as an earlier one with the same
 * key, at its path: `duplicate of services[x].mappings[2]: {what}, valid at the same time`. The
 * event loop turns every few thousand rules (kernel/turns.ts).
 */
export async function reportDuplicates<Rule extends DocumentRule>(
  reader: DocumentReader,
  rules: readonly Rule[],
  keyOf: (rule: Rule) => string,
  what: string,
): Promise<void> {
  const turns = new EventLoopTurns();
  const byKey = new Map<string, Rule[]>();
  const validity = (rule: Rule) => ({ start: rule.start ?? EARLIEST, end: rule.end ?? null });
  for (const rule of rules) {
    await turns.step();
    const key = keyOf(rule);
    const earlier = byKey.get(key);
    if (earlier === undefined) {
      byKey.set(key, [rule]);
      continue;
    }
    const clash = earlier.find((other) => intervalsOverlap(validity(other), validity(rule)));
    if (clash) reader.problem(rule.path, `duplicate of ${formatDocumentPath(clash.path)}: ${what}, valid at the same time`);
    earlier.push(rule);
  }
}
