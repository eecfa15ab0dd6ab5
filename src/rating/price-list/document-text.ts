/**
 * A price-list document's text (YAML or JSON) read into plain values, keeping what the plain
 * values lose: each number's source text (`0.10` stays `0.10`, so costs are exact decimals as
 * written) and, for problems, where a path is in the text (line and column).
 *
 * JSON is read by `lossless-json` (numbers as their text, several times faster than the YAML
 * parser); YAML by `yaml` (YAML 1.2 core schema: `yes` is a string, `0.1` a number). Both report
 * duplicate keys. YAML aliases are expanded here, within limits (fix: an alias bomb, a few
 * hundred bytes that expand to billions of nodes, must not reach the server's memory).
 */
import { parse as parseLossless, isLosslessNumber } from 'lossless-json';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Alias, type Document, type Node as YamlNode } from 'yaml';
import { BadRequestError } from '../../kernel/errors.js';
import type { DocumentPath } from '../contract/price-list-section.js';
import type { PriceListProblems, TextPosition } from './problems.js';

/** Limits on what a document may expand to. */
export interface DocumentTextLimits {
  /** YAML aliases (`*name`) a document may use (`TARIFF_PRICE_LIST_MAX_ALIASES`). */
  maxAliases: number;
  /** Deepest nesting of maps and lists (`TARIFF_JSON_MAX_DEPTH`). */
  maxDepth: number;
}

/** A document's values with the number texts and positions its text gave. */
export interface ParsedDocument {
  /** Plain values: objects, arrays, strings, numbers, booleans, null. */
  readonly value: unknown;
  /** The source text of the number at `path`. */
  numberText: (path: DocumentPath) => string | undefined;
  /** Where `path` (or its nearest ancestor found) is in the text. */
  locate: (path: DocumentPath) => TextPosition | undefined;
}

/** The body formats: JSON or YAML. */
export type DocumentFormat = 'json' | 'yaml';

/** Joins a path into a map key (`\u0000` cannot appear in a checked key). */
function pathKey(path: DocumentPath): string {
  return path.join('\u0000');
}

/** Keeps `value` as an own property even when its key is `__proto__` (refused later, with a path). */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The 400 every JSON endpoint answers for a body nested too deeply (http/input-text.ts), YAML included. */
function tooDeep(maxDepth: number): BadRequestError {
  return new BadRequestError(`Invalid input in body: JSON nested deeper than ${maxDepth} levels (TARIFF_JSON_MAX_DEPTH).`);
}

/** The line and column of a character offset. */
function positionIn(text: string, offset: number): TextPosition {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Reads JSON text; a syntax error or duplicate key becomes a problem. */
function readJson(text: string, problems: PriceListProblems, maxDepth: number): { value: unknown; numbers: Map<string, string> } {
  const numbers = new Map<string, string>();
  let raw: unknown;
  try {
    raw = parseLossless(text, null, {
      onDuplicateKey: ({ key, position }) => {
        problems.add([], `duplicate key '${key}'`, positionIn(text, position));
        return undefined;
      },
    });
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(maxDepth);
    else {
      const message = (error as Error).message;
      const offset = /at position (\d+)/.exec(message)?.[1];
      problems.add([], `not valid JSON: ${message}`, offset === undefined ? undefined : positionIn(text, Number(offset)));
    }
    return { value: undefined, numbers };
  }
  const convert = (node: unknown, path: (string | number)[]): unknown => {
    if (path.length >= maxDepth) throw tooDeep(maxDepth);
    if (isLosslessNumber(node)) {
      numbers.set(pathKey(path), node.value);
      return Number(node.value);
    }
    if (Array.isArray(node)) return node.map((item, index) => convert(item, [...path, index]));
    if (node !== null && typeof node === 'object') {
      const result: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) setMember(result, key, convert(child, [...path, key]));
      return result;
    }
    return node;
  };
  return { value: convert(raw, []), numbers };
}

/** Expands a YAML document into plain values, counting aliases and depth. */
class YamlReader {
  readonly numbers = new Map<string, string>();
  private aliases = 0;
  private readonly expanding = new Set<YamlNode>();

  constructor(
    private readonly document: Document,
    private readonly problems: PriceListProblems,
    private readonly limits: DocumentTextLimits,
  ) {}

  read(node: unknown, path: (string | number)[]): unknown {
    if (path.length >= this.limits.maxDepth) throw tooDeep(this.limits.maxDepth);
    if (isAlias(node)) return this.readAlias(node, path);
    if (isScalar(node)) {
      if (typeof node.value === 'number') {
        const text = typeof node.source === 'string' ? node.source : String(node.value);
        this.numbers.set(pathKey(path), text);
      }
      return node.value;
    }
    if (isSeq(node)) return node.items.map((item, index) => this.read(item, [...path, index]));
    if (isMap(node)) {
      const result: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        if (typeof key !== 'string' && typeof key !== 'number') {
          this.problems.add(path, 'a key must be a plain name');
          continue;
        }
        const name = isScalar(pair.key) && typeof pair.key.source === 'string' && typeof key === 'number' ? pair.key.source : String(key);
        setMember(result, name, this.read(pair.value ?? null, [...path, name]));
      }
      return result;
    }
    return node ?? null;
  }

  private readAlias(node: Alias, path: (string | number)[]): unknown {
    this.aliases += 1;
    if (this.aliases > this.limits.maxAliases) {
      if (this.aliases === this.limits.maxAliases + 1) {
        this.problems.add(path, `too many aliases: at most ${this.limits.maxAliases} (TARIFF_PRICE_LIST_MAX_ALIASES)`);
      }
      return null;
    }
    const target = node.resolve(this.document) as YamlNode | undefined;
    if (target === undefined) {
      this.problems.add(path, 'alias to an unknown anchor');
      return null;
    }
    if (this.expanding.has(target)) {
      this.problems.add(path, 'alias inside its own anchor');
      return null;
    }
    this.expanding.add(target);
    try {
      return this.read(target, path);
    } finally {
      this.expanding.delete(target);
    }
  }
}

/** Where `path` is in a YAML document: a member's key, an item, or the nearest ancestor found. */
function locateInYaml(document: Document, lineCounter: LineCounter, path: DocumentPath): TextPosition | undefined {
  let node: unknown = document.contents;
  let offset = (node as YamlNode | null)?.range?.[0];
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && (item.key.source === String(segment) || String(item.key.value) === String(segment)));
      if (!pair) break;
      offset = (pair.key as YamlNode).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      node = node.items[segment];
      offset = (node as YamlNode | null)?.range?.[0] ?? offset;
    } else break;
  }
  if (offset === undefined) return undefined;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Parses YAML (the text may also be JSON) for positions only: a JSON body's problems get lines too. */
function yamlPositions(text: string): ((path: DocumentPath) => TextPosition | undefined) | undefined {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, uniqueKeys: false });
  if (!Array.isArray(documents) || documents.length !== 1) return undefined;
  const [document] = documents;
  return (path) => locateInYaml(document, lineCounter, path);
}

/**
 * Reads a document's text.
 *
 * @returns the document; its problems (syntax, duplicate keys, aliases) in `problems`.
 * @throws BadRequestError for nesting deeper than `limits.maxDepth` (a container's children at
 *   depth `maxDepth` + 1), worded as for every JSON body.
 */
export function readDocumentText(text: string, format: DocumentFormat, limits: DocumentTextLimits, problems: PriceListProblems): ParsedDocument {
  if (format === 'json') {
    const { value, numbers } = readJson(text, problems, limits.maxDepth);
    let positions: ((path: DocumentPath) => TextPosition | undefined) | undefined | null = null;
    return {
      value,
      numberText: (path) => numbers.get(pathKey(path)),
      locate: (path) => {
        // Only for problems: the YAML parser (JSON is YAML) is slow, but tells lines.
        if (positions === null) positions = yamlPositions(text);
        return positions?.(path);
      },
    };
  }
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const located = (offset: number | undefined): TextPosition | undefined => {
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (!Array.isArray(documents) || documents.length !== 1) {
    problems.add([], documents.length === 0 ? 'the document is empty' : 'one YAML document is expected, the text holds several');
    return { value: undefined, numberText: () => undefined, locate: () => undefined };
  }
  const [document] = documents;
  for (const error of document.errors) problems.add([], error.message.split('\n')[0], located(error.pos[0]));
  if (document.errors.length > 0) return { value: undefined, numberText: () => undefined, locate: () => undefined };
  const reader = new YamlReader(document, problems, limits);
  const value = reader.read(document.contents, []);
  return {
    value,
    numberText: (path) => reader.numbers.get(pathKey(path)),
    locate: (path) => locateInYaml(document, lineCounter, path),
  };
}
