/**
 * Reading a large JSON body without holding the event loop (fix, issue 24, finding 4: one 32 MiB
 * quote held `/healthcheck` 1.2-1.7 s, parsed, walked and checked in one synchronous run).
 * `JSON.parse` cannot stop half-way, and a worker thread does not help: structured-cloning the
 * value back costs more than parsing it (measured: 0.9-1.6 s for a 32 MiB quote, against 0.3 s
 * for `JSON.parse`). So the text is cut: its large arrays and objects are read member by member
 * from the text, their small members parsed a run of about {@link RUN_CHARACTERS} at a time by
 * the given parser, with a step between runs where the caller may give the event loop a turn.
 *
 * The walks are generators: {@link runSteps} runs one to its end at once (small bodies keep a
 * synchronous path, no promise per request), {@link runStepsInSlices} gives the event loop a turn
 * whenever a slice has run for {@link SLICE_MS}.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A step of a walk: nothing, a point where the event loop may have a turn. */
export type Steps<T> = Generator<undefined, T, undefined>;

/** How long a slice of work may hold the event loop before it gives a turn, in ms. */
export const SLICE_MS = 20;

/** Runs `steps` to their end at once and returns their result. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs `steps`, giving the event loop a turn (`setImmediate`) after every {@link SLICE_MS} of work. */
export async function runStepsInSlices<T>(steps: Steps<T>): Promise<T> {
  let sliceStarted = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStarted >= SLICE_MS) {
      await nextTurn();
      sliceStarted = performance.now();
    }
  }
}

/** Characters of small members parsed at once (a run takes a few ms). */
export const RUN_CHARACTERS = 128 * 1024;

/** Characters a walk scans between two steps. */
const SCAN_STEP_CHARACTERS = 1024 * 1024;

/** Thrown inside the cut reading when the text is not what it seemed (invalid JSON, too deep). */
class NotCut extends Error {}

/**
 * Parses a run of members. `text` is a whole JSON array or object (`[…]`, `{…}`); `keeps` is
 * the value the caller passed for the container holding them.
 */
export type RunParser = (text: string, keeps: boolean) => unknown;

/** Options of {@link parseJsonInSteps}. */
export interface CutReading {
  /** Parses a run of members or a whole small value (`JSON.parse`, or the lossless parser). */
  parseRun: RunParser;
  /** Parses the whole text at once: used when the text cannot be cut (it then throws the parser's own error). */
  parseWhole: (text: string) => unknown;
  /**
   * Given a container's `keeps` and a member's key (undefined in an array) and whether the
   * member is an array, the member's `keeps` (for number text: whether it is a named object).
   */
  keepsOf?: (containerKeeps: boolean, key: string | undefined, memberIsArray: boolean) => boolean;
  /** Deepest nesting the cut reading follows; deeper text is parsed whole (and refused by the input-text check). */
  maxDepth: number;
  /** Characters of a run of small members, and the size from which a container is cut (default {@link RUN_CHARACTERS}; tests cut small texts). */
  runCharacters?: number;
}

const SPACE = 32;
const TAB = 9;
const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

function isSpace(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB;
}

function skipSpace(text: string, index: number): number {
  while (isSpace(text.charCodeAt(index))) index += 1;
  return index;
}

/** The index after the string starting at `start` (a `"`), or -1 when it does not end. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * One pass over the text: the end (index after the closing bracket) of every array or object of
 * at least `minimum` characters, by its start.
 *
 * @throws NotCut when brackets do not balance or nest deeper than `maxDepth`.
 */
function* largeContainers(text: string, minimum: number, maxDepth: number): Steps<Map<number, number>> {
  const ends = new Map<number, number>();
  const open: number[] = [];
  let nextStep = SCAN_STEP_CHARACTERS;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      if (end < 0) throw new NotCut();
      index = end - 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      open.push(index);
      if (open.length > maxDepth) throw new NotCut();
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      const start = open.pop();
      if (start === undefined) throw new NotCut();
      if (index + 1 - start >= minimum) ends.set(start, index + 1);
    }
    if (index >= nextStep) {
      nextStep = index + SCAN_STEP_CHARACTERS;
      yield;
    }
  }
  if (open.length > 0) throw new NotCut();
  return ends;
}

/** The index after the small value starting at `start` (its text is checked by the run's parser). */
function valueEnd(text: string, start: number, limit: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return stringEnd(text, start);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let index = start; index < limit; index += 1) {
      const code = text.charCodeAt(index);
      if (code === QUOTE) {
        const end = stringEnd(text, index);
        if (end < 0) return -1;
        index = end - 1;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return index + 1;
      }
    }
    return -1;
  }
  let index = start;
  while (index < limit) {
    const code = text.charCodeAt(index);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
    index += 1;
  }
  return index > start ? index : -1;
}

/** Sets a member as `JSON.parse` does: the last of duplicate keys wins, `__proto__` is an own key. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/**
 * Parses JSON text as `reading.parseWhole` would, in steps: arrays and objects of
 * {@link RUN_CHARACTERS} or more are read member by member, their small members parsed in runs by
 * `reading.parseRun`. Text that is not valid JSON, or nests deeper than `reading.maxDepth`, is
 * given to `reading.parseWhole` at once (which throws the parser's own error, or returns what it reads).
 */
export function* parseJsonInSteps(text: string, reading: CutReading): Steps<unknown> {
  try {
    const start = skipSpace(text, 0);
    let end = text.length;
    while (end > start && isSpace(text.charCodeAt(end - 1))) end -= 1;
    const ends = yield* largeContainers(text, reading.runCharacters ?? RUN_CHARACTERS, reading.maxDepth);
    if (ends.get(start) !== end) return reading.parseRun(text, false);
    return yield* readContainer(text, start, end, false, ends, reading);
  } catch (error) {
    if (error instanceof NotCut) return reading.parseWhole(text);
    throw error;
  }
}

/** Reads the large container `text[start, end)` member by member. */
function* readContainer(text: string, start: number, end: number, keeps: boolean, ends: Map<number, number>, reading: CutReading): Steps<unknown> {
  const isObject = text.charCodeAt(start) === OPEN_BRACE;
  if (text.charCodeAt(end - 1) !== (isObject ? CLOSE_BRACE : CLOSE_BRACKET)) throw new NotCut();
  const close = end - 1;
  const runCharacters = reading.runCharacters ?? RUN_CHARACTERS;
  const result: unknown[] | Record<string, unknown> = isObject ? {} : [];
  let runStart = -1;
  let runEnd = -1;
  function* flush(): Steps<void> {
    if (runStart < 0) return;
    const run = text.slice(runStart, runEnd);
    runStart = -1;
    let parsed: unknown;
    try {
      parsed = reading.parseRun(isObject ? `{${run}}` : `[${run}]`, keeps);
    } catch (error) {
      if (error instanceof SyntaxError) throw new NotCut();
      throw error;
    }
    if (isObject) {
      const members = parsed as Record<string, unknown>;
      for (const key of Object.keys(members)) setMember(result as Record<string, unknown>, key, members[key]);
    } else {
      for (const element of parsed as unknown[]) (result as unknown[]).push(element);
    }
    yield;
  }
  let index = skipSpace(text, start + 1);
  if (index === close) return result;
  for (;;) {
    const memberStart = index;
    let keyEnd = -1;
    if (isObject) {
      if (text.charCodeAt(index) !== QUOTE) throw new NotCut();
      keyEnd = stringEnd(text, index);
      if (keyEnd < 0) throw new NotCut();
      index = skipSpace(text, keyEnd);
      if (text.charCodeAt(index) !== COLON) throw new NotCut();
      index = skipSpace(text, index + 1);
    }
    const largeEnd = ends.get(index);
    if (largeEnd !== undefined) {
      yield* flush();
      let key: string | undefined;
      if (isObject) {
        try {
          key = JSON.parse(text.slice(memberStart, keyEnd)) as string;
        } catch {
          throw new NotCut();
        }
      }
      const memberKeeps = reading.keepsOf?.(keeps, key, text.charCodeAt(index) === OPEN_BRACKET) ?? false;
      const value = yield* readContainer(text, index, largeEnd, memberKeeps, ends, reading);
      if (key !== undefined) setMember(result as Record<string, unknown>, key, value);
      else (result as unknown[]).push(value);
      index = largeEnd;
    } else {
      const valueStop = valueEnd(text, index, close);
      if (valueStop < 0 || valueStop > close) throw new NotCut();
      if (runStart < 0) runStart = memberStart;
      runEnd = valueStop;
      index = valueStop;
      if (runEnd - runStart >= runCharacters) yield* flush();
    }
    index = skipSpace(text, index);
    if (index === close) break;
    if (text.charCodeAt(index) !== COMMA) throw new NotCut();
    index = skipSpace(text, index + 1);
  }
  yield* flush();
  return result;
}
