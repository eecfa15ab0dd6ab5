/**
 * JSON bodies whose numbers keep their source text where a route asks for it (route config
 * `numberTextUnder`): `JSON.parse` reads `2.0` and `2` as the same number, while CloudKitty's
 * Python reads a float and an int whose `str()` differ (rating.md §5). The lossless parse
 * (`lossless-json`) is several times slower than `JSON.parse`: the numbers' texts are found from
 * the text's number tokens when that is unambiguous ({@link keepNumberTextInPlace}), and the
 * body is read a second time, losslessly, only when it is not.
 */
import { parse as parseLossless } from 'lossless-json';
import { BadRequestError } from '../kernel/errors.js';
import { JsonNumberText } from '../kernel/json-number.js';
import { parseJsonInSteps, runSteps, type Steps } from './json-in-slices.js';

/** Route config key: the members whose number values keep their source text. */
export interface NumberTextRouteConfig {
  /**
   * Names of the object members (at any depth) whose own members that are numbers are read as
   * {@link JsonNumberText}: `['metadata', 'groupby']` keeps `{"metadata": {"size": 2.0}}`'s
   * `2.0`. Numbers anywhere else stay plain numbers.
   */
  numberTextUnder?: readonly string[];
}

/**
 * A number token (after `:`, `,` or `[`) with a fraction or an exponent, or an integer of 16
 * digits or more (past 2^53 `JSON.parse` rounds it), followed by what may follow a value. It may
 * also match inside a string (`"a:1.5}"`): that only costs the slower parse.
 */
const NUMBER_NEEDING_TEXT = /[:,[][ \t\n\r]*(-?(?:\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d{16,}))(?=[ \t\n\r]*[,}\]])/g;

/**
 * Gives the numbers of `parsed` (`JSON.parse`'s value of `text`) that are members of an object
 * named in `under` their source text, in place, when the text alone tells it; otherwise leaves
 * the lossless parse to do it ({@link parseKeepingNumberText}).
 *
 * Such a number that no token with a fraction, an exponent or 16+ digits has the value of was
 * written as an integer of at most 15 digits: `String()` gives its text back, it stays a plain
 * number. One whose value such tokens have, all with the same text, is that text when no short
 * integer can have its value (a fraction, or 16+ digits): it becomes a {@link JsonNumberText}.
 * Anything else (`2` beside a `2.0` elsewhere, `1.5` written `1.50` elsewhere, a token found
 * inside a string) cannot be told apart without parsing.
 *
 * @param under - member names, e.g. `['metadata', 'groupby']`.
 * @returns false when the lossless parse is needed (`parsed` may then be partly changed: drop it).
 */
export function keepNumberTextInPlace(text: string, parsed: unknown, under: ReadonlySet<string>): boolean {
  return runSteps(keepNumberTextInPlaceInSteps(text, parsed, under));
}

/** Matches or containers {@link keepNumberTextInPlaceInSteps} handles between two steps. */
const NUMBER_TEXT_STEP = 8192;

/** {@link keepNumberTextInPlace} in steps, for a large body read in slices (`json-in-slices.ts`). */
export function* keepNumberTextInPlaceInSteps(text: string, parsed: unknown, under: ReadonlySet<string>): Steps<boolean> {
  NUMBER_NEEDING_TEXT.lastIndex = 0;
  let texts: Map<number, string | null> | undefined;
  let untilStep = NUMBER_TEXT_STEP;
  for (let match = NUMBER_NEEDING_TEXT.exec(text); match !== null; match = NUMBER_NEEDING_TEXT.exec(text)) {
    if (--untilStep === 0) {
      untilStep = NUMBER_TEXT_STEP;
      // The expression is shared: keep its place across the step.
      const lastIndex = NUMBER_NEEDING_TEXT.lastIndex;
      yield;
      NUMBER_NEEDING_TEXT.lastIndex = lastIndex;
    }
    const value = Number(match[1]);
    texts ??= new Map<number, string | null>();
    const known = texts.get(value);
    texts.set(value, known === undefined || known === match[1] ? match[1] : null);
  }
  if (texts === undefined) return true;
  const pending: unknown[] = [parsed];
  let kept = false;
  while (pending.length > 0) {
    if (--untilStep === 0) {
      untilStep = NUMBER_TEXT_STEP;
      yield;
    }
    const container = pending.pop();
    if (container === null || typeof container !== 'object') continue;
    const isArray = Array.isArray(container);
    for (const key of Object.keys(container)) {
      const child = (container as Record<string, unknown>)[key];
      if (child === null || typeof child !== 'object') continue;
      pending.push(child);
      if (isArray || Array.isArray(child) || !under.has(key)) continue;
      const members = child as Record<string, unknown>;
      for (const name of Object.keys(members)) {
        const value = members[name];
        if (typeof value !== 'number') continue;
        const source = texts.get(value);
        if (source === undefined) continue;
        if (source === null || (Number.isInteger(value) && Math.abs(value) < 1e15)) return false;
        members[name] = new JsonNumberText(source);
        kept = true;
      }
    }
  }
  if (kept) parsedWithNumberText.add(parsed as object);
  return true;
}

/** The roots that hold {@link JsonNumberText} values. */
const parsedWithNumberText = new WeakSet<object>();

/** Integer tokens JSON.parse reads back exactly (and `String()` writes back): at most 15 digits. */
const SHORT_INTEGER = /^-?\d{1,15}$/;

function readNumber(text: string): unknown {
  return SHORT_INTEGER.test(text) ? Number(text) : new JsonNumberText(text);
}

/**
 * Parses JSON text already known to be valid (`JSON.parse` accepted it) and no deeper than the
 * configured limit (the parser recurses), keeping the source text of the numbers that are
 * members of an object named in `under`; every other number is a plain number, as `JSON.parse`
 * gives it. Duplicate keys: the last one wins, as with `JSON.parse`; `__proto__` stays an own key.
 *
 * @param under - member names, e.g. `['metadata', 'groupby']`.
 * @returns the value, with {@link JsonNumberText} only as the members of the named objects.
 * @throws BadRequestError when the nesting is too deep for the parser's stack.
 */
export function parseKeepingNumberText(text: string, under: ReadonlySet<string>): unknown {
  const root = parseLosslessly(text);
  plainNumbersOutside(root, under, false);
  if (root !== null && typeof root === 'object') parsedWithNumberText.add(root);
  return root;
}

/**
 * {@link parseKeepingNumberText} in steps, for a large body read in slices: its large arrays and
 * objects are cut into runs of members (`json-in-slices.ts`), each read by the lossless parser.
 * Same value, same errors.
 *
 * @param maxDepth - `TARIFF_JSON_MAX_DEPTH`: deeper text is read whole (the input-text check refuses it).
 * @param runCharacters - the cut's run size (`json-in-slices.ts`; tests cut small texts).
 */
export function* parseKeepingNumberTextInSteps(text: string, under: ReadonlySet<string>, maxDepth: number, runCharacters?: number): Steps<unknown> {
  const root = yield* parseJsonInSteps(text, {
    parseRun: (run, keeps) => {
      const value = parseLosslessly(run);
      plainNumbersOutside(value, under, keeps);
      return value;
    },
    parseWhole: (whole) => parseKeepingNumberText(whole, under),
    keepsOf: (_containerKeeps, key, memberIsArray) => key !== undefined && !memberIsArray && under.has(key),
    maxDepth,
    runCharacters,
  });
  if (root !== null && typeof root === 'object') parsedWithNumberText.add(root);
  return root;
}

function parseLosslessly(text: string): unknown {
  try {
    return parseLossless(text, null, { parseNumber: readNumber, onDuplicateKey: ({ newValue }) => newValue });
  } catch (error) {
    if (error instanceof RangeError) throw new BadRequestError('Request body is nested too deeply to be read.');
    throw error;
  }
}

/**
 * Whether a parsed body may hold {@link JsonNumberText} values: {@link keepNumberTextInPlace} or
 * {@link parseKeepingNumberText} gave it some (a route can skip looking for them otherwise).
 */
export function hasNumberText(body: unknown): boolean {
  return body !== null && typeof body === 'object' && parsedWithNumberText.has(body);
}

/**
 * Turns every {@link JsonNumberText} that is not a member of an object named in `under` back into
 * its number (no recursion). `rootKeeps`: whether `root`'s own members keep theirs (a run of a
 * named object's members).
 */
function plainNumbersOutside(root: unknown, under: ReadonlySet<string>, rootKeeps: boolean): void {
  const pending: { container: Record<string, unknown>; keeps: boolean }[] = [];
  if (root !== null && typeof root === 'object') pending.push({ container: root as Record<string, unknown>, keeps: rootKeeps });
  while (pending.length > 0) {
    const { container, keeps } = pending.pop() as { container: Record<string, unknown>; keeps: boolean };
    const isArray = Array.isArray(container);
    for (const key of Object.keys(container)) {
      const child = container[key];
      if (child instanceof JsonNumberText) {
        if (!keeps) container[key] = child.value;
      } else if (child !== null && typeof child === 'object') {
        pending.push({ container: child as Record<string, unknown>, keeps: !isArray && !Array.isArray(child) && under.has(key) });
      }
    }
  }
}
