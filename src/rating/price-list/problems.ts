/**
 * The problems of a refused price-list document: every one, each with its path in the document's
 * terms (`services[compute].fields[flavor].mappings[3].cost`) and, where the text tells it, its
 * line and column. Refused as one 400 fault listing them all (docs/price-list.md §2).
 */
import { TariffError } from '../../kernel/errors.js';
import type { DocumentPath } from '../contract/price-list-section.js';

/** A position in the text, 1-based. */
export interface TextPosition {
  line: number;
  column: number;
}

/** One problem, as the fault lists it. */
export interface PriceListProblem {
  path: string;
  line?: number;
  column?: number;
  message: string;
}

/** Members whose members are named or numbered entries: `services[compute]`, `mappings[3]`. */
const COLLECTIONS = new Set(['modules', 'groups', 'services', 'fields', 'mappings', 'thresholds', 'scripts']);

/** `['services', 'compute', 'mappings', 3, 'cost']` → `services[compute].mappings[3].cost`; the root is `(document)`. */
export function formatDocumentPath(path: DocumentPath): string {
  let text = '';
  let entryNext = false;
  for (const segment of path) {
    if (entryNext || typeof segment === 'number') {
      text += `[${segment}]`;
      entryNext = false;
    } else {
      text += text === '' ? segment : `.${segment}`;
      entryNext = COLLECTIONS.has(segment);
    }
  }
  return text === '' ? '(document)' : text;
}

/** 400: the document is malformed; `faultDetails.problems` lists every problem. */
export class InvalidPriceListError extends TariffError {
  constructor(
    readonly problems: readonly PriceListProblem[],
    /** Problems past `TARIFF_PRICE_LIST_MAX_PROBLEMS`, only counted. */
    readonly omitted: number,
  ) {
    const lines = problems.map(
      (problem) => `${problem.path}${problem.line !== undefined ? ` (line ${problem.line}, column ${problem.column})` : ''}: ${problem.message}`,
    );
    if (omitted > 0) lines.push(`… and ${omitted} more problems (TARIFF_PRICE_LIST_MAX_PROBLEMS)`);
    super(400, `The price list has ${problems.length + omitted} problem${problems.length + omitted === 1 ? '' : 's'}:\n${lines.join('\n')}`, { problems });
  }
}

/** A problem as recorded, before its position is found. */
export interface RecordedProblem {
  path: DocumentPath;
  message: string;
  position?: TextPosition;
}

/** Collects problems up to a limit; the rest are counted. */
export class PriceListProblems {
  private readonly found: RecordedProblem[] = [];
  private omitted = 0;

  /** @param limit - most problems listed (`TARIFF_PRICE_LIST_MAX_PROBLEMS`). */
  constructor(private readonly limit: number) {}

  /** Records a problem at `path`, with its position when the caller knows it (a syntax error). */
  add(path: DocumentPath, message: string, position?: TextPosition): void {
    if (this.found.length >= this.limit) this.omitted += 1;
    else this.found.push({ path: [...path], message, position });
  }

  /** The problems recorded, and the count of those past the limit: what another thread sends back (reading.ts). */
  get recorded(): { found: readonly RecordedProblem[]; omitted: number } {
    return { found: this.found, omitted: this.omitted };
  }

  /** Adds what {@link recorded} gave in another thread. */
  addRecorded({ found, omitted }: { found: readonly RecordedProblem[]; omitted: number }): void {
    for (const { path, message, position } of found) this.add(path, message, position);
    this.omitted += omitted;
  }

  /** The paths of the problems listed without a position (those a refusal must locate in the text). */
  get unlocated(): DocumentPath[] {
    return this.found.filter((problem) => problem.position === undefined && problem.path.length > 0).map((problem) => problem.path);
  }

  /** Whether the list is full: a problem added now is only counted (callers skip finding its position). */
  get full(): boolean {
    return this.found.length >= this.limit;
  }

  /** Whether any problem was recorded. */
  get any(): boolean {
    return this.found.length > 0;
  }

  /**
   * Throws the 400 listing every problem, when there is one.
   *
   * @param locate - finds a path's line and column in the text.
   * @throws InvalidPriceListError
   */
  throwIfAny(locate: (path: DocumentPath) => TextPosition | undefined): void {
    if (this.found.length === 0) return;
    const problems = this.found.map(({ path, message, position }) => {
      const at = position ?? (path.length > 0 ? locate(path) : undefined);
      return { path: formatDocumentPath(path), ...(at ? { line: at.line, column: at.column } : {}), message };
    });
    // In text order where the text tells it (a reader goes down the file), the rest after.
    problems.sort((left, right) => (left.line ?? Infinity) - (right.line ?? Infinity) || (left.column ?? 0) - (right.column ?? 0));
    throw new InvalidPriceListError(problems, this.omitted);
  }
}
