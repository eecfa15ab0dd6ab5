/**
 * What every caller text must be before any handler sees it: valid UTF-8, well-formed Unicode
 * (no lone surrogates), no NUL character, and JSON no deeper than a bound. Checked once, without
 * recursion, so that no text a caller sends can crash the process or be stored altered
 * (fix, issue 11: invalid UTF-8 was stored as U+FFFD, `"\ud800"` was accepted, and JSON nested
 * 5,000 levels deep overflowed the stack).
 */
import { isUtf8 } from 'node:buffer';
import { BadRequestError } from '../kernel/errors.js';
import { JsonNumberText } from '../kernel/json-number.js';
import { runSteps, type Steps } from './json-in-slices.js';

/**
 * Decodes a request body as UTF-8.
 *
 * @throws BadRequestError when the bytes are not valid UTF-8 (nothing is replaced by U+FFFD).
 */
export function decodeUtf8Body(body: Buffer): string {
  if (!isUtf8(body)) throw new BadRequestError('Request body is not valid UTF-8 text.');
  return body.toString('utf8');
}

/** `String.prototype.isWellFormed` (ES2024, in Node 20; the project's lib is ES2023). */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

/** Why a text is refused, or undefined when it is acceptable. */
function textFault(text: string): string | undefined {
  // No database stores NUL in text (PostgreSQL refuses it).
  if (text.includes('\0')) return 'text must not contain the NUL character (\\u0000)';
  // A lone surrogate has no UTF-8 form: it cannot be stored or sent back as it came.
  if (!(text as unknown as WellFormedCheck).isWellFormed()) return 'text must not contain a lone surrogate (\\ud800-\\udfff)';
  return undefined;
}

/**
 * Checks a parsed JSON value (or parsed query string) iteratively: every key and string is
 * acceptable text, no key is `__proto__` (refused as Fastify's JSON parser refused it: code that
 * copies objects by assignment would change a prototype), and no array or object is nested
 * deeper than `maxDepth` (the top level is depth 1).
 *
 * @param where - how the message names the value's root: `body` or `query`.
 * @throws BadRequestError `Invalid input in body.usage.compute[0].groupby: ...` naming the place
 *   and the fault, or `Invalid input in body: JSON nested deeper than {n} levels
 *   (TARIFF_JSON_MAX_DEPTH).`
 */
export function checkInputText(value: unknown, where: string, maxDepth: number): void {
  runSteps(checkInputTextInSteps(value, where, maxDepth));
}

/** Items {@link checkInputTextInSteps} checks between two steps. */
const CHECK_STEP_ITEMS = 8192;

/**
 * {@link checkInputText} in steps of {@link CHECK_STEP_ITEMS} strings and containers, for a large
 * body checked in slices (`json-in-slices.ts`); same checks, same errors.
 */
export function* checkInputTextInSteps(value: unknown, where: string, maxDepth: number): Steps<void> {
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  let untilStep = CHECK_STEP_ITEMS;
  while (pending.length > 0) {
    if (--untilStep === 0) {
      untilStep = CHECK_STEP_ITEMS;
      yield;
    }
    const item = pending.pop();
    const depth = depths.pop() as number;
    if (typeof item === 'string') {
      const fault = textFault(item);
      if (fault) throw new BadRequestError(`Invalid input in ${where}${pathTo(value, item, maxDepth)}: ${fault}.`);
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth > maxDepth) {
      throw new BadRequestError(`Invalid input in ${where}: JSON nested deeper than ${maxDepth} levels (TARIFF_JSON_MAX_DEPTH).`);
    }
    const isArray = Array.isArray(item);
    for (const key of Object.keys(item)) {
      if (!isArray) {
        const fault = key === '__proto__' ? 'name must not be __proto__' : textFault(key);
        if (fault) throw new BadRequestError(`Invalid input in ${where}${pathTo(value, item, maxDepth)}: a key's ${fault}.`);
      }
      const child = (item as Record<string, unknown>)[key];
      // A number kept with its source text (json-number-text.ts) is a number, not an object.
      if (child instanceof JsonNumberText) continue;
      if (typeof child === 'string' || (child !== null && typeof child === 'object')) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
}

/**
 * The path from `root` to `target` (`.usage.compute[0]`), searched again iteratively once a fault
 * was found (the check itself keeps no paths), no deeper than `maxDepth`; at most 20 steps shown,
 * long keys shortened.
 */
function pathTo(root: unknown, target: unknown, maxDepth: number): string {
  const pending: { item: unknown; path: string[] }[] = [{ item: root, path: [] }];
  while (pending.length > 0) {
    const { item, path } = pending.pop() as { item: unknown; path: string[] };
    if (item === target) return path.slice(0, 20).join('') + (path.length > 20 ? '...' : '');
    if (item === null || typeof item !== 'object' || path.length >= maxDepth) continue;
    const isArray = Array.isArray(item);
    for (const key of Object.keys(item)) {
      const step = isArray ? `[${key}]` : `.${key.length > 40 ? `${key.slice(0, 40)}...` : key}`;
      pending.push({ item: (item as Record<string, unknown>)[key], path: [...path, step] });
    }
  }
  return '';
}

/**
 * Checks a raw query string: every name and value must be valid percent-encoded UTF-8 (the
 * parser keeps `%FF` as it is rather than refusing it).
 *
 * @throws BadRequestError `Invalid input in query: '{part}' is not valid percent-encoded UTF-8.`
 */
export function checkQueryEncoding(url: string): void {
  const mark = url.indexOf('?');
  if (mark < 0 || !url.includes('%', mark)) return;
  for (const part of url.slice(mark + 1).split(/[&=]/)) {
    if (!part.includes('%')) continue;
    try {
      decodeURIComponent(part);
    } catch {
      throw new BadRequestError(`Invalid input in query: '${part.length > 80 ? `${part.slice(0, 80)}...` : part}' is not valid percent-encoded UTF-8.`);
    }
  }
}
