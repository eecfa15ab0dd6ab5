/**
 * A large JSON body read in slices (fix, issue 24, finding 4: a 32 MiB quote held the event loop,
 * and `/healthcheck` with it, 1.2-1.7 s while it was parsed, given its number text and checked).
 * The same steps as a small body's, with the same value and the same faults, but cut
 * (`json-in-slices.ts`): the event loop has a turn every {@link SLICE_MS} ms.
 */
import { checkInputTextInSteps } from './input-text.js';
import { parseJsonInSteps, runStepsInSlices, type Steps } from './json-in-slices.js';
import { keepNumberTextInPlaceInSteps, parseKeepingNumberTextInSteps } from './json-number-text.js';

/** Bodies of at least this many bytes are read in slices; smaller ones at once (no promise per request). */
export const LARGE_BODY_BYTES = 1024 * 1024;

/** A large body's value, and its input-text check. */
export interface LargeJsonBody {
  value: unknown;
  /**
   * Whether the value (an object) was checked (`checkInputText`) already: the check's fault, if it
   * found one, is in `fault`, thrown by the caller when the query was checked (query faults first).
   */
  checked: boolean;
  fault?: Error;
}

/**
 * Reads `text` (the decoded body, not blank) as JSON, in slices: `JSON.parse`'s value, or, for a
 * route with number text (`under`), its members' numbers with their source text
 * (`json-number-text.ts`); an object is checked (`checkInputText`, depth `maxDepth`).
 *
 * @throws SyntaxError when the text is not JSON (`JSON.parse`'s own error);
 *   BadRequestError from the number-text reading, or from the input-text check when the lossless
 *   parser must read the body a second time (its value is checked first, as for a small body).
 */
export function readLargeJsonBody(text: string, under: ReadonlySet<string> | undefined, maxDepth: number): Promise<LargeJsonBody> {
  return runStepsInSlices(largeJsonBodyInSteps(text, under, maxDepth));
}

function parseJson(text: string): unknown {
  return JSON.parse(text);
}

function* largeJsonBodyInSteps(text: string, under: ReadonlySet<string> | undefined, maxDepth: number): Steps<LargeJsonBody> {
  // A turn after the decode.
  yield;
  const parsed = yield* parseJsonInSteps(text, { parseRun: parseJson, parseWhole: parseJson, maxDepth });
  if (parsed === null || typeof parsed !== 'object') return { value: parsed, checked: false };
  if (under && !(yield* keepNumberTextInPlaceInSteps(text, parsed, under))) {
    // The lossless parser recurses: check depth (and the rest) on JSON.parse's value first.
    yield* checkInputTextInSteps(parsed, 'body', maxDepth);
    return { value: yield* parseKeepingNumberTextInSteps(text, under, maxDepth), checked: true };
  }
  try {
    yield* checkInputTextInSteps(parsed, 'body', maxDepth);
  } catch (error) {
    return { value: parsed, checked: true, fault: error as Error };
  }
  return { value: parsed, checked: true };
}
