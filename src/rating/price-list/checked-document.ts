/**
 * The pure first step of an apply: a document's text read (YAML or JSON), every text-level check
 * (syntax, duplicate keys, aliases, NUL, lone surrogates, nesting, `__proto__`) and the schema's
 * structural check. It needs no database and no module code, so that it runs in a worker thread
 * (reading.ts; fix, issue 24: a refused 7 MB document held the event loop for 5.5 s, a 32 MB dry
 * run for 42 s). Its answer is plain data that crosses threads.
 */
import type { TSchema } from 'typebox';
import { checkInputText } from '../../http/input-text.js';
import { BadRequestError } from '../../kernel/errors.js';
import type { DocumentPath } from '../contract/price-list-section.js';
import { locateAll, readDocumentText, type DocumentFormat, type DocumentTextLimits } from './document-text.js';
import { InvalidPriceListError, PriceListProblems, type PriceListProblem, type RecordedProblem, type TextPosition } from './problems.js';
import { PriceListSchema } from './schema.js';

/** What the step is given. */
export interface CheckRequest {
  kind: 'check';
  text: string;
  format: DocumentFormat;
  limits: DocumentTextLimits & { maxProblems: number };
  /** The document's JSON Schema (`PriceListSchema.schema`). */
  schema: TSchema;
}

/** Where paths are in a text: the second step of a refusal, once the sections have added theirs. */
export interface LocateRequest {
  kind: 'locate';
  text: string;
  paths: DocumentPath[];
}

/** What the check answers. */
export type CheckedDocument =
  /** A text-level refusal: every problem, located (thrown as InvalidPriceListError). */
  | { kind: 'refused'; problems: PriceListProblem[]; omitted: number }
  /** A refusal every body gets (nesting, NUL, `__proto__`): a plain 400. */
  | { kind: 'fault'; message: string }
  /**
   * The values (those in error left out, schema.ts) and the schema's problems, not yet located:
   * the sections read the rest and add theirs.
   */
  | { kind: 'read'; value: unknown; lossyNumberTexts: (readonly [DocumentPath, string])[]; problems: { found: RecordedProblem[]; omitted: number } };

/** Schemas compiled in this thread, by the schema object (one per module set). */
const compiled = new WeakMap<TSchema, PriceListSchema>();

/** Runs the check. Never throws for a document's faults: they are the answer. */
export function checkDocument({ text, format, limits, schema }: CheckRequest): CheckedDocument {
  const problems = new PriceListProblems(limits.maxProblems);
  try {
    const parsed = readDocumentText(text, format, limits, problems);
    problems.throwIfAny(parsed.locate);
    // As every body: no NUL, no lone surrogate (a JSON `\ud800` escape), no `__proto__` key.
    checkInputText(parsed.value, 'body', limits.maxDepth);
    let checker = compiled.get(schema);
    if (!checker) compiled.set(schema, (checker = new PriceListSchema(schema)));
    const value = checker.check(parsed.value, problems);
    const recorded = problems.recorded;
    return { kind: 'read', value, lossyNumberTexts: [...parsed.lossyNumberTexts], problems: { found: [...recorded.found], omitted: recorded.omitted } };
  } catch (error) {
    if (error instanceof InvalidPriceListError) return { kind: 'refused', problems: [...error.problems], omitted: error.omitted };
    if (error instanceof BadRequestError) return { kind: 'fault', message: error.message };
    throw error;
  }
}

/** Runs a locate request. */
export function locatePaths({ text, paths }: LocateRequest): (TextPosition | undefined)[] {
  return locateAll(text, paths);
}
