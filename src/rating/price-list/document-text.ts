/**
 * A price-list document's text (YAML or JSON) read into plain values, keeping what the plain
 * values lose: each number's source text (`0.10` stays `0.10`, so costs are exact decimals as
 * written) and, for problems, where a path is in the text (line and column).
 *
 * JSON is read by `lossless-json` (numbers as their text); YAML by `js-yaml` (YAML 1.2 core
 * schema: `yes` is a string, `0.1` a number), with its null, bool, int and float types keeping
 * their text, so that a key is always its source text (`1024:`, `True:`, `~:`).
 * js-yaml, not `yaml`: on a 10,000-rule document it reads in 30-70 ms and a few MB where `yaml`'s
 * document model takes 700-900 ms and 75 MB (measured here; bench/price-list.js). `yaml` is used
 * only on the way out of a refused document, to tell the line and column of each problem's path.
 * Both readers report duplicate keys (lossless-json: those whose values differ). YAML aliases
 * stay shared objects; each counts against a limit with the nodes it repeats (fix: an alias bomb,
 * a few hundred bytes that stand for billions of nodes, is refused before anything walks it).
 * Everything here is linear in the text (fix, issue 24): lines are found from one index of line
 * starts, a map's keys from one index per map, and nothing is located for problems past the cap.
 */
import jsYaml from 'js-yaml';
import { parse as parseLossless, isLosslessNumber } from 'lossless-json';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YamlNode, type Pair, type YAMLMap } from 'yaml';
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
  /**
   * The number texts that the numbers do not tell (`0.10`, `1e3`, `2.0`: not what `String` of
   * their value gives), by path: what a document read in a worker thread sends back beside its
   * values (reading.ts), where {@link withNumberTexts} keys them again.
   */
  readonly lossyNumberTexts: readonly (readonly [DocumentPath, string])[];
}

/** The body formats: JSON or YAML. */
export type DocumentFormat = 'json' | 'yaml';

/** The media type of a JSON document. */
export const JSON_MEDIA_TYPE = 'application/json';
/** Media types of YAML documents (no registered one: these are what tools send). */
export const YAML_MEDIA_TYPES: readonly string[] = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/**
 * A YAML scalar that YAML reads as something other than a string, as written: a number (`0.10`,
 * `1e3`, `0x1F`), a boolean (`True`) or null (`~`). As a value it becomes its plain value (a
 * number keeps its text, for exact decimals); as a key it is its text (fix, issue 24: js-yaml
 * made a number key `[object Object]`, so `1024:` named a service `[object Object]` and two
 * number keys were "duplicated"; `True:` and `~:` became `true` and `null`). js-yaml keeps the
 * `String()` of a key whose class has its own `Symbol.toStringTag`: the text here.
 */
class YamlScalar {
  constructor(
    /** The source text. */
    readonly text: string,
    /** The plain value: a number, true, false or null. */
    readonly value: number | boolean | null,
  ) {}

  get [Symbol.toStringTag](): string {
    return 'YamlScalar';
  }

  toString(): string {
    return this.text;
  }
}

/** The types of YAML 1.2's core schema, as js-yaml exports them (its typings leave `types` out). */
const coreTypes = (jsYaml as unknown as { types: Record<'null' | 'bool' | 'int' | 'float', jsYaml.Type> }).types;

/** js-yaml's core `type`, constructing a {@link YamlScalar} that keeps the text beside the value. */
function keepingText(type: jsYaml.Type, plain: (text: string) => number | boolean | null): jsYaml.Type {
  return new jsYaml.Type((type as unknown as { tag: string }).tag, {
    kind: 'scalar',
    resolve: (data: string | null) => (type.resolve as (data: string | null) => boolean)(data),
    construct: (data: string | null) => new YamlScalar(data ?? '', plain(data ?? '')),
    instanceOf: YamlScalar,
  });
}

/**
 * YAML 1.2's core schema (null, bool, int, float, str, seq, map), scalars other than strings kept
 * as text; no other tags. A number's value is the JavaScript number of its text (what the sections
 * read only when they need no exact text).
 */
const YAML_SCHEMA = jsYaml.FAILSAFE_SCHEMA.extend({
  implicit: [
    keepingText(coreTypes.null, () => null),
    keepingText(coreTypes.bool, (text) => text.toLowerCase() === 'true'),
    keepingText(coreTypes.int, (text) => (coreTypes.int.construct as (text: string) => number)(text)),
    keepingText(coreTypes.float, (text) => (coreTypes.float.construct as (text: string) => number)(text)),
  ],
});

/** Whether a parsed value is a number kept with its text (YAML or JSON). */
function numberWithText(value: unknown): value is { value: string } {
  return (value instanceof YamlScalar && typeof value.value === 'number') || isLosslessNumber(value);
}

/** The plain value of a parsed scalar; `value` itself when it is none of ours. */
function plainScalar(value: unknown): unknown {
  if (value instanceof YamlScalar) return value.value;
  if (isLosslessNumber(value)) return Number(value.value);
  return value;
}

/** The source text of a number kept with its text. */
function sourceText(value: YamlScalar | { value: string }): string {
  return value instanceof YamlScalar ? value.text : value.value;
}

/** The 400 every JSON endpoint answers for a body nested too deeply (http/input-text.ts), YAML included. */
function tooDeep(maxDepth: number): BadRequestError {
  return new BadRequestError(`Invalid input in body: JSON nested deeper than ${maxDepth} levels (TARIFF_JSON_MAX_DEPTH).`);
}

/**
 * Lines and columns of character offsets in one text: where each line starts, found once (one
 * pass), then each offset by binary search (fix, issue 24: each problem split all the text before
 * it, so 16,000 duplicate keys took 7 s).
 */
export class LineIndex {
  private starts: number[] | undefined;

  constructor(private readonly text: string) {}

  /** The 1-based line and column of the character at `offset` (0-based, clamped to the text). */
  position(offset: number): TextPosition {
    const starts = (this.starts ??= lineStarts(this.text));
    const at = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (starts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: at - starts[low] + 1 };
  }
}

/** The offset of each line's first character (a line ends at `\n`). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

/**
 * Makes a parser's tree plain values, in place (the tree is ours: no copy), keeping each number's
 * text beside the object or array holding it. An object met twice is a YAML alias (js-yaml shares
 * the anchored object): each counts against `maxAliases`, and one inside its own anchor is refused.
 */
class PlainValues {
  /** Number texts by holding object or array, then member name or index. */
  private readonly texts = new WeakMap<object, Map<string | number, string>>();
  /** The texts their numbers do not tell, by path (the first path of a shared object). */
  readonly lossyTexts: [DocumentPath, string][] = [];
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
        if (numberWithText(child)) {
          let texts = this.texts.get(node);
          if (!texts) this.texts.set(node, (texts = new Map<string | number, string>()));
          const text = sourceText(child);
          texts.set(key, text);
          members[key] = plainScalar(child);
          if (String(members[key]) !== text) this.lossyTexts.push([[...path, key], text]);
        } else if (child instanceof YamlScalar) {
          members[key] = child.value;
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
      const lines = new LineIndex(text);
      return parseLossless(text, null, {
        onDuplicateKey: ({ key, position }) => {
          // Past the listed problems, a duplicate is only counted: no position to find.
          problems.add([], `duplicate key '${key}'`, problems.full ? undefined : lines.position(position));
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
    problems.add([], `not valid JSON: ${message}`, offset === undefined ? undefined : new LineIndex(text).position(Number(offset)));
    return undefined;
  }
}

/** A YAML map's pairs by key text (the source text, as the reader keys members), the first of each. */
type PairIndex = Map<string, Pair>;

/** Where `path` is in a YAML document: a member's key, an item, or the nearest ancestor found. */
function locateInYaml(document: Document, lineCounter: LineCounter, indexes: WeakMap<YAMLMap, PairIndex>, path: DocumentPath): TextPosition | undefined {
  let node: unknown = document.contents;
  let offset = (node as YamlNode | null)?.range?.[0];
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      // Indexed once per map: a scan per problem was quadratic in a map of many services.
      let index = indexes.get(node);
      if (index === undefined) indexes.set(node, (index = indexPairs(node)));
      const pair = index.get(String(segment));
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

/** A map's pairs by key text: a scalar key's source text, or its value's. */
function indexPairs(map: YAMLMap): PairIndex {
  const index: PairIndex = new Map();
  for (const item of map.items) {
    if (!isScalar(item.key)) continue;
    for (const text of [item.key.source, String(item.key.value)]) if (typeof text === 'string' && !index.has(text)) index.set(text, item);
  }
  return index;
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
      const indexes = new WeakMap<YAMLMap, PairIndex>();
      find = document ? (at) => locateInYaml(document, lineCounter, indexes, at) : () => undefined;
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
  const root = raw === undefined ? undefined : raw instanceof YamlScalar || isLosslessNumber(raw) ? plainScalar(raw) : plain.convert(raw, []);
  plain.checkRepetition();
  return { value: root, numberText: (path) => plain.numberText(root, path), locate: positionsIn(text), lossyNumberTexts: plain.lossyTexts };
}

/**
 * `numberText` for a document's values received from another thread (the same shape, shared
 * objects still shared): the lossy texts keyed again by their holder, so that every path to a
 * shared object finds them; a number without one is its `String`.
 */
export function withNumberTexts(value: unknown, lossyTexts: readonly (readonly [DocumentPath, string])[]): (path: DocumentPath) => string | undefined {
  const texts = new WeakMap<object, Map<string | number, string>>();
  const holderOf = (path: DocumentPath): unknown => {
    let holder = value;
    for (let index = 0; index < path.length - 1; index += 1) {
      if (holder === null || typeof holder !== 'object') return undefined;
      holder = (holder as Record<string | number, unknown>)[path[index]];
    }
    return holder;
  };
  for (const [path, text] of lossyTexts) {
    const holder = holderOf(path);
    if (holder === null || typeof holder !== 'object') continue;
    let members = texts.get(holder);
    if (!members) texts.set(holder, (members = new Map<string | number, string>()));
    members.set(path[path.length - 1], text);
  }
  return (path) => {
    const holder = holderOf(path);
    if (holder === null || typeof holder !== 'object') return undefined;
    const member = (holder as Record<string | number, unknown>)[path[path.length - 1]];
    return texts.get(holder)?.get(path[path.length - 1]) ?? (typeof member === 'number' ? String(member) : undefined);
  };
}

/** Where each of `paths` is in the text (YAML, or JSON read as YAML), for a refusal. */
export function locateAll(text: string, paths: readonly DocumentPath[]): (TextPosition | undefined)[] {
  const locate = positionsIn(text);
  return paths.map((path) => locate(path));
}
