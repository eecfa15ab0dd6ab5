/**
 * A price-list document's text (YAML or JSON) read into plain values, keeping what the plain
 * values lose: each number's source text (`0.10` stays `0.10`, so costs are exact decimals as
 * written) and, for problems, where a path is in the text (line and column).
 *
 * JSON is read by `lossless-json` (numbers as their text); YAML by `js-yaml` (YAML 1.2 core
 * schema: `yes` is a string, `0.1` a number), with its int and float types keeping their text.
 * js-yaml, not `yaml`: on a 10,000-rule document it reads in 30-70 ms and a few MB where `yaml`'s
 * document model takes 700-900 ms and 75 MB (measured here; bench/price-list.js). `yaml` is used
 * only on the way out of a refused document, to tell the line and column of each problem's path.
 * Both readers report duplicate keys (lossless-json: those whose values differ). YAML aliases
 * stay shared objects; each counts against a limit with the nodes it repeats (fix: an alias bomb,
 * a few hundred bytes that stand for billions of nodes, is refused before anything walks it).
 */
import jsYaml from 'js-yaml';
import { parse as parseLossless, isLosslessNumber } from 'lossless-json';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';
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

/** A YAML number as written (`0.10`, `1e3`, `0x1F`); a key written as a number is its text. */
class YamlNumber {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** The types of YAML 1.2's core schema, as js-yaml exports them (its typings leave `types` out). */
const coreTypes = (jsYaml as unknown as { types: Record<'null' | 'bool' | 'int' | 'float', jsYaml.Type> }).types;

/** js-yaml's int or float type, constructing a {@link YamlNumber} that keeps the text. */
function keepingText(tag: string, type: jsYaml.Type): jsYaml.Type {
  return new jsYaml.Type(tag, {
    kind: 'scalar',
    resolve: (data: string) => (type.resolve as (data: string) => boolean)(data),
    construct: (data: string) => new YamlNumber(data),
    instanceOf: YamlNumber,
  });
}

/** YAML 1.2's core schema (null, bool, int, float, str, seq, map), numbers kept as text; no other tags. */
const YAML_SCHEMA = jsYaml.FAILSAFE_SCHEMA.extend({
  implicit: [coreTypes.null, coreTypes.bool, keepingText('tag:yaml.org,2002:int', coreTypes.int), keepingText('tag:yaml.org,2002:float', coreTypes.float)],
});

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

/**
 * Makes a parser's tree plain values, in place (the tree is ours: no copy), keeping each number's
 * text beside the object or array holding it. An object met twice is a YAML alias (js-yaml shares
 * the anchored object): each counts against `maxAliases`, and one inside its own anchor is refused.
 */
class PlainValues {
  /** Number texts by holding object or array, then member name or index. */
  private readonly texts = new WeakMap<object, Map<string | number, string>>();
  private readonly seen = new Set<object>();
  private readonly open = new Set<object>();
  private aliases = 0;
  /** Nodes of each shared object, itself included (what an alias to it repeats). */
  private readonly sizes = new WeakMap<object, number>();
  /** Objects and arrays the text writes out, and the nodes its aliases repeat. */
  private written = 0;
  private repeated = 0;

  /**
   * Refuses aliases that repeat more nodes than the text writes out (an alias bomb: a few lines
   * whose aliases of aliases stand for billions of nodes; nothing walks them, their size is
   * counted). Call once the tree is converted.
   */
  checkRepetition(): void {
    if (this.repeated > Math.max(this.written, 1000)) {
      this.problems.add([], `aliases repeat ${this.repeated.toExponential(1)} nodes, more than the ${this.written} the document writes out`);
    }
  }

  /** @param shared - whether the tree may share objects (YAML aliases; JSON trees never do). */
  constructor(
    private readonly limits: DocumentTextLimits,
    private readonly problems: PriceListProblems,
    private readonly shared: boolean,
  ) {}

  /** The text of the number at `path` in `root` (the converted tree). */
  numberText(root: unknown, path: DocumentPath): string | undefined {
    let holder = root;
    for (let index = 0; index < path.length - 1; index += 1) {
      if (holder === null || typeof holder !== 'object') return undefined;
      holder = (holder as Record<string | number, unknown>)[path[index]];
    }
    return holder !== null && typeof holder === 'object' ? this.texts.get(holder)?.get(path[path.length - 1]) : undefined;
  }

  /**
   * The plain value of `node`, at `path` (a stack, pushed and popped as the walk goes down and
   * up); objects and arrays are converted in place.
   */
  convert(node: unknown, path: (string | number)[]): unknown {
    if (node === null || typeof node !== 'object') return node;
    if (path.length >= this.limits.maxDepth) throw tooDeep(this.limits.maxDepth);
    if (this.shared) {
      if (this.open.has(node)) {
        this.problems.add(path, 'alias inside its own anchor');
        return null;
      }
      if (this.seen.has(node)) {
        // An alias: the shared object stays shared here, but counts as the nodes it repeats.
        this.repeated += this.sizes.get(node) ?? 1;
        return this.countAlias(path) ? node : null;
      }
      this.seen.add(node);
      this.open.add(node);
    }
    try {
      const members = node as Record<string | number, unknown>;
      const keys: (string | number)[] = Array.isArray(node) ? Array.from(node.keys()) : Object.keys(node);
      this.written += 1;
      let size = 1 + keys.length;
      for (const key of keys) {
        const child = members[key];
        if (child instanceof YamlNumber || isLosslessNumber(child)) {
          const text = (child as { value: string }).value;
          let texts = this.texts.get(node);
          if (!texts) this.texts.set(node, (texts = new Map<string | number, string>()));
          texts.set(key, text);
          members[key] = Number(text);
        } else if (child !== null && typeof child === 'object') {
          path.push(key);
          members[key] = this.convert(child, path);
          path.pop();
          size += (this.sizes.get(child) ?? 1) - 1;
        }
      }
      if (this.shared) this.sizes.set(node, size);
      return node;
    } finally {
      if (this.shared) this.open.delete(node);
    }
  }

  /** @returns whether the alias is within the limit. */
  private countAlias(path: DocumentPath): boolean {
    this.aliases += 1;
    if (this.aliases <= this.limits.maxAliases) return true;
    if (this.aliases === this.limits.maxAliases + 1) {
      this.problems.add(path, `too many aliases: at most ${this.limits.maxAliases} (TARIFF_PRICE_LIST_MAX_ALIASES)`);
    }
    return false;
  }
}

/** Parses the text with the parser of its format; a syntax error or duplicate key is a problem. */
function parseText(text: string, format: DocumentFormat, problems: PriceListProblems, maxDepth: number): unknown {
  try {
    if (format === 'json') {
      return parseLossless(text, null, {
        onDuplicateKey: ({ key, position }) => {
          problems.add([], `duplicate key '${key}'`, positionIn(text, position));
          return undefined;
        },
      });
    }
    const documents: unknown[] = [];
    jsYaml.loadAll(text, (document) => documents.push(document), { schema: YAML_SCHEMA });
    if (documents.length !== 1 || documents[0] === undefined || documents[0] === null) {
      problems.add([], documents.length > 1 ? 'one YAML document is expected, the text holds several' : 'the document is empty');
      return undefined;
    }
    return documents[0];
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(maxDepth);
    if (error instanceof jsYaml.YAMLException) {
      problems.add([], `not valid YAML: ${error.reason}`, error.mark ? { line: error.mark.line + 1, column: error.mark.column + 1 } : undefined);
      return undefined;
    }
    const message = (error as Error).message;
    const offset = /at position (\d+)/.exec(message)?.[1];
    problems.add([], `not valid JSON: ${message}`, offset === undefined ? undefined : positionIn(text, Number(offset)));
    return undefined;
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

/**
 * Finds paths in the text (YAML or JSON, which is YAML), for problems only: the `yaml` library's
 * document model keeps every node's position, at a cost paid only when a document is refused.
 */
function positionsIn(text: string): (path: DocumentPath) => TextPosition | undefined {
  let find: ((path: DocumentPath) => TextPosition | undefined) | undefined;
  return (path) => {
    if (find === undefined) {
      const lineCounter = new LineCounter();
      const documents = parseAllDocuments(text, { lineCounter, uniqueKeys: false });
      const document = Array.isArray(documents) && documents.length === 1 ? documents[0] : undefined;
      find = document ? (at) => locateInYaml(document, lineCounter, at) : () => undefined;
    }
    return find(path);
  };
}

/**
 * Reads a document's text.
 *
 * @returns the document; its problems (syntax, duplicate keys, aliases) in `problems`.
 * @throws BadRequestError for nesting deeper than `limits.maxDepth`, worded as for every JSON body.
 */
export function readDocumentText(text: string, format: DocumentFormat, limits: DocumentTextLimits, problems: PriceListProblems): ParsedDocument {
  const raw = parseText(text, format, problems, limits.maxDepth);
  const plain = new PlainValues(limits, problems, format === 'yaml');
  const root =
    raw === undefined ? undefined : raw instanceof YamlNumber || isLosslessNumber(raw) ? Number((raw as { value: string }).value) : plain.convert(raw, []);
  plain.checkRepetition();
  return { value: root, numberText: (path) => plain.numberText(root, path), locate: positionsIn(text) };
}
